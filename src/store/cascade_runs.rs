//! The run a cascade of judges (`jury run --cascade`) is recorded in: a
//! run row of its own with no verdicts (each stage's verdicts and usage are
//! in the runs that asked for them), its model `cascade: A → B`, and the
//! typed [`CascadeRecord`] in `params` (as an imported run keeps its
//! origin; no migration), rewritten after each stage so a process killed
//! between stages leaves what the finished stages did.

use super::db::params;
use super::{Result, Store};
use crate::domain::{CASCADE_MODEL_PREFIX, CascadeRecord, Run, RunSpec, RunStatus};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize)]
struct Params {
    cascade: CascadeRecord,
}

impl Store {
    /// A running cascade run for `spec` (whose model names the stages).
    pub fn create_cascade_run(&mut self, spec: &RunSpec, record: &CascadeRecord) -> Result<i64> {
        let id = self.create_run(spec, record.combinations)?;
        self.write_cascade_record(id, record)?;
        Ok(id)
    }

    /// The cascade's record as it stands, and its note.
    pub fn write_cascade_record(&mut self, id: i64, record: &CascadeRecord) -> Result<()> {
        let json = serde_json::to_string(&Params {
            cascade: record.clone(),
        })
        .map_err(|e| super::StoreError::Data(e.to_string()))?;
        let at = super::clock::store_timestamp(&self.conn)?;
        self.write_one(
            "UPDATE runs SET params = ?2, note = ?3, heartbeat_at = ?4 WHERE id = ?1",
            params![id, json, record.note(), at],
        )?;
        Ok(())
    }

    /// Ends the cascade run with its last record.
    pub fn end_cascade_run(
        &mut self,
        id: i64,
        status: RunStatus,
        record: &CascadeRecord,
    ) -> Result<()> {
        self.write_cascade_record(id, record)?;
        self.finish_run(id, status, Some(&record.note()))
    }

    /// A cascade run taken up again by `--resume`: running, owned by this
    /// process.
    pub fn take_up_cascade_run(&mut self, id: i64) -> Result<()> {
        let at = super::clock::store_timestamp(&self.conn)?;
        self.write_one(
            "UPDATE runs SET status = 'running', finished_at = NULL, owner_pid = ?2, owner_host = ?3,
               heartbeat_at = ?4 WHERE id = ?1",
            params![id, std::process::id(), super::runs::host_name(), at],
        )?;
        Ok(())
    }

    /// Every cascade run with its record, in id order.
    pub fn cascade_runs(&self) -> Result<Vec<(Run, CascadeRecord)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, params FROM runs WHERE model LIKE 'cascade: %' ORDER BY id")?;
        let rows = stmt.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)))?;
        let mut found = Vec::new();
        for row in rows {
            let (id, params) = row?;
            if let Ok(p) = serde_json::from_str::<Params>(&params) {
                found.push((id, p.cascade));
            }
        }
        drop(stmt);
        let mut out = Vec::with_capacity(found.len());
        for (id, record) in found {
            if let Some(run) = self.run(id)?
                && run.spec.model.starts_with(CASCADE_MODEL_PREFIX)
            {
                out.push((run, record));
            }
        }
        Ok(out)
    }
}
