//! Runs made by `jury import` from another tool's verdicts: one run per
//! source (judge name, and the run it came from, if the file said), done
//! when written, with where it came from kept in the run's `params` as a
//! typed, versioned [`ImportRecord`] (a JSON field runs no longer use for
//! their own settings since their typed record; no migration needed) and
//! said in its note. A file whose SHA-256 an imported run already names was
//! imported whole (imports are all-or-nothing): importing it again adds
//! nothing.

use super::db::{OptionalExtension, params};
use super::{ImportTx, Result, Store};
use crate::domain::{RunSpec, Verdict};
use serde::{Deserialize, Serialize};

pub use crate::domain::ImportOrigin;

/// The layout version of [`ImportRecord`]; bump it when a field changes
/// meaning. Records written before it had a version read as version 0
/// (the same fields).
pub const IMPORT_RECORD_VERSION: u32 = 1;

/// An imported run's `runs.params`: the origin, as one typed value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportRecord {
    #[serde(default)]
    pub version: u32,
    pub imported: ImportOrigin,
}

impl ImportRecord {
    pub fn new(origin: ImportOrigin) -> ImportRecord {
        ImportRecord {
            version: IMPORT_RECORD_VERSION,
            imported: origin,
        }
    }

    /// A run's `params` as an import record; `None` for any other run (its
    /// params empty, or a legacy run's settings).
    pub fn read(params: &str) -> Option<ImportRecord> {
        serde_json::from_str(params).ok()
    }
}

/// Every imported run with its origin, in id order (runs are few: one per
/// source and file).
fn imported_runs_on(conn: &super::db::Db) -> Result<Vec<(i64, ImportOrigin)>> {
    let mut stmt = conn.prepare(
        "SELECT id, params FROM runs WHERE params IS NOT NULL AND params <> '' ORDER BY id",
    )?;
    let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
    let mut out = Vec::new();
    for row in rows {
        let (id, params) = row?;
        if let Some(r) = ImportRecord::read(&params) {
            out.push((id, r.imported));
        }
    }
    Ok(out)
}

impl ImportTx<'_> {
    /// The imported runs made from a file with this SHA-256 (empty: never
    /// imported).
    pub fn runs_imported_from(&self, sha256: &str) -> Result<Vec<i64>> {
        Ok(imported_runs_on(&self.tx)?
            .into_iter()
            .filter(|(_, o)| o.sha256 == sha256)
            .map(|(id, _)| id)
            .collect())
    }

    /// A finished run for one imported source, its origin in `params`.
    pub fn create_imported_run(
        &mut self,
        spec: &RunSpec,
        origin: &ImportOrigin,
        total: u64,
    ) -> Result<i64> {
        let params_json = serde_json::to_string(&ImportRecord::new(origin.clone()))
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
            .and_then(|p| ImportRecord::read(&p))
            .map(|r| r.imported))
    }

    /// Every imported run and where it came from, in id order.
    pub fn imported_runs(&self) -> Result<Vec<(i64, ImportOrigin)>> {
        imported_runs_on(&self.conn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Protocol;

    /// Rows written before the record had a version still read; a new one
    /// carries its version; another run's params are no import.
    #[test]
    fn an_import_record_reads_old_and_new_rows() {
        let old = r#"{"imported":{"judge":"inspect","file":"a.json","sha256":"ab"}}"#;
        let r = ImportRecord::read(old).expect("an old row reads");
        assert_eq!(r.version, 0);
        assert_eq!(r.imported.judge, "inspect");
        let new = serde_json::to_string(&ImportRecord::new(r.imported.clone())).expect("json");
        assert!(new.contains("\"version\":1"), "{new}");
        assert_eq!(
            ImportRecord::read(&new).map(|r| r.imported),
            Some(r.imported)
        );
        assert_eq!(ImportRecord::read(r#"{"temperature":0.2}"#), None);
        assert_eq!(ImportRecord::read(""), None);
    }

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
            assert!(s.imported_runs().unwrap().is_empty());
            let mut tx = s.begin_import().unwrap();
            let id = tx.create_imported_run(&spec, &origin, 1).unwrap();
            tx.commit().unwrap();
            let found = s.imported_runs().unwrap();
            assert_eq!(found, vec![(id, origin.clone())]);
            assert_eq!(found[0].1.file_name(), "theirs.csv");
        });
    }
}
