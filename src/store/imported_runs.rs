//! Runs made by `jury import` from another tool's verdicts: one run per
//! source (judge name, and the run it came from, if the file said), done
//! when written, with where it came from kept in the run's `params` as
//! `{"imported": {...}}` (a JSON field runs no longer use for their own
//! settings since their typed record; no migration needed) and said in its
//! note. A file whose SHA-256 an imported run already names was imported
//! whole (imports are all-or-nothing): importing it again adds nothing.

use super::db::{OptionalExtension, params};
use super::{ImportTx, Result, Store};
use crate::domain::{RunSpec, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

pub use crate::domain::ImportOrigin;

#[derive(Serialize, Deserialize)]
struct Params {
    imported: ImportOrigin,
}

impl ImportTx<'_> {
    /// The imported runs made from a file with this SHA-256 (empty: never
    /// imported).
    pub fn runs_imported_from(&self, sha256: &str) -> Result<Vec<i64>> {
        // The hex digest only ever appears as this field's value.
        let pattern = format!("%\"sha256\":\"{sha256}\"%");
        let mut stmt = self
            .tx
            .prepare("SELECT id FROM runs WHERE params LIKE ?1 ORDER BY id")?;
        let rows = stmt.query_map(params![pattern], |r| r.get::<_, i64>(0))?;
        rows.collect()
    }

    /// A finished run for one imported source, its origin in `params`.
    pub fn create_imported_run(
        &mut self,
        spec: &RunSpec,
        origin: &ImportOrigin,
        total: u64,
    ) -> Result<i64> {
        let params_json = serde_json::to_string(&Params {
            imported: origin.clone(),
        })
        .unwrap_or_else(|_| "{}".into());
        let now = super::now();
        self.tx.query_row(
            "INSERT INTO runs (protocol, mode, persona_id, perspective_ids, model, prompt_hash, params, status,
               created_at, finished_at, total, note)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'done', ?8, ?8, ?9, ?10)
             RETURNING id",
            params![
                spec.protocol.as_str(),
                spec.mode.map(|m| m.number()),
                spec.persona_id,
                serde_json::to_string(&spec.perspective_ids).unwrap_or_default(),
                spec.model,
                spec.prompt_hash,
                params_json,
                now,
                total as i64,
                origin.note()
            ],
            |r| r.get(0),
        )
    }

    /// Writes an imported run's verdicts; returns how many were new.
    pub fn insert_imported_verdicts(&mut self, vs: &[Verdict]) -> Result<usize> {
        let mut fresh = Vec::with_capacity(vs.len());
        super::verdicts::insert_verdicts_on(&self.tx, vs, &mut fresh)?;
        Ok(fresh.into_iter().filter(|f| *f).count())
    }
}

impl Store {
    /// Where a run's verdicts came from, when `jury import` made it.
    pub fn import_origin(&self, run_id: i64) -> Result<Option<ImportOrigin>> {
        let params: Option<String> = self
            .conn
            .query_row(
                "SELECT params FROM runs WHERE id = ?1",
                params![run_id],
                |r| r.get(0),
            )
            .optional()?;
        Ok(params
            .and_then(|p| serde_json::from_str::<Params>(&p).ok())
            .map(|p| p.imported))
    }

    /// The origin of every imported run, by run id (the workbench shows
    /// each imported verdict with it).
    pub fn import_origins(&self) -> Result<HashMap<i64, ImportOrigin>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, params FROM runs WHERE params LIKE '%\"imported\"%' ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?))
        })?;
        let mut out = HashMap::new();
        for row in rows {
            let (id, params) = row?;
            if let Some(p) = params.and_then(|p| serde_json::from_str::<Params>(&p).ok()) {
                out.insert(id, p.imported);
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Protocol;

    /// The workbench finds each imported run's origin by its id, on both
    /// backends (the origin is a JSON field of the run's row).
    #[test]
    fn every_imported_runs_origin_is_found_by_its_id() {
        crate::store::testing::each_backend(|s| {
            let spec = RunSpec {
                protocol: Protocol::Awag,
                mode: None,
                persona_id: "kenton".into(),
                perspective_ids: vec!["classification".into()],
                model: "their-tool".into(),
                prompt_hash: "imported".into(),
                record: None,
            };
            let origin = ImportOrigin {
                judge: "their-tool".into(),
                file: "/data/theirs.csv".into(),
                sha256: "ab".repeat(32),
                source_run_id: Some(7),
            };
            assert!(s.import_origins().unwrap().is_empty());
            let mut tx = s.begin_import().unwrap();
            let id = tx.create_imported_run(&spec, &origin, 1).unwrap();
            tx.commit().unwrap();
            let found = s.import_origins().unwrap();
            assert_eq!(found.len(), 1);
            assert_eq!(found.get(&id), Some(&origin));
            assert_eq!(found[&id].file_name(), "theirs.csv");
        });
    }
}
