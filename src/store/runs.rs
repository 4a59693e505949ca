//! Runs and their counters.

use super::{Result, Store, now};
use crate::domain::{Mode, Run, RunSpec, RunStatus, Usage};
use rusqlite::{OptionalExtension, params};

const RUN_COLUMNS: &str = "r.id, r.protocol, r.mode, r.persona_id, r.perspective_ids, r.model, r.prompt_hash, r.params,
    r.status, r.created_at, r.finished_at, r.total, r.prompt_tokens, r.completion_tokens, r.cost_usd, r.note,
    (SELECT count(*) FROM verdicts v WHERE v.run_id = r.id),
    (SELECT count(*) FROM failures f WHERE f.run_id = r.id)";

impl Store {
    pub fn create_run(&mut self, spec: &RunSpec, total: u64) -> Result<i64> {
        let tx = self.immediate()?;
        tx.execute(
            "INSERT INTO runs (protocol, mode, persona_id, perspective_ids, model, prompt_hash, params, status, created_at, total)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'running', ?8, ?9)",
            params![
                spec.protocol.as_str(),
                spec.mode.map(|m| m.number()),
                spec.persona_id,
                serde_json::to_string(&spec.perspective_ids).unwrap_or_default(),
                spec.model,
                spec.prompt_hash,
                spec.params.to_string(),
                now(),
                total as i64
            ],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(id)
    }

    pub fn finish_run(&mut self, run_id: i64, status: RunStatus, note: Option<&str>) -> Result<()> {
        self.before_write()?;
        self.conn.execute(
            "UPDATE runs SET status = ?2, finished_at = ?3, note = coalesce(?4, note) WHERE id = ?1",
            params![run_id, status.as_str(), now(), note],
        )?;
        Ok(())
    }

    /// Adds one request's token usage (and its estimated cost) to the run.
    pub fn add_run_usage(
        &mut self,
        run_id: i64,
        usage: Usage,
        cost_usd: Option<f64>,
    ) -> Result<()> {
        self.before_write()?;
        self.conn.execute(
            "UPDATE runs SET prompt_tokens = prompt_tokens + ?2, completion_tokens = completion_tokens + ?3,
               cost_usd = CASE WHEN ?4 IS NULL THEN cost_usd ELSE coalesce(cost_usd, 0) + ?4 END
             WHERE id = ?1",
            params![
                run_id,
                usage.prompt_tokens as i64,
                usage.completion_tokens as i64,
                cost_usd
            ],
        )?;
        Ok(())
    }

    pub fn runs(&self) -> Result<Vec<Run>> {
        let mut stmt = self
            .conn
            .prepare(&format!("SELECT {RUN_COLUMNS} FROM runs r ORDER BY r.id"))?;
        let rows = stmt.query_map([], run_from_row)?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    pub fn run(&self, id: i64) -> Result<Option<Run>> {
        Ok(self
            .conn
            .query_row(
                &format!("SELECT {RUN_COLUMNS} FROM runs r WHERE r.id = ?1"),
                [id],
                run_from_row,
            )
            .optional()?)
    }

    /// Runs left `running` by a process that died: mark them failed so the list tells the truth.
    pub fn mark_abandoned_runs(&mut self, except: &[i64]) -> Result<usize> {
        if self.is_read_only() {
            // Nothing can be marked; reading must still work.
            return Ok(0);
        }
        let mut n = 0;
        for run in self.runs()? {
            if run.status == RunStatus::Running && !except.contains(&run.id) {
                self.before_write()?;
                n += self.conn.execute(
                    "UPDATE runs SET status='failed', note='interrupted (process ended)' WHERE id=?1 AND status='running'",
                    [run.id],
                )?;
            }
        }
        Ok(n)
    }
}

fn run_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Run> {
    let protocol: String = r.get(1)?;
    let mode: Option<u8> = r.get(2)?;
    let perspectives: String = r.get(4)?;
    let params: String = r.get(7)?;
    let status: String = r.get(8)?;
    Ok(Run {
        id: r.get(0)?,
        spec: RunSpec {
            protocol: protocol.parse().unwrap_or(crate::domain::Protocol::Awag),
            mode: mode.and_then(Mode::from_number),
            persona_id: r.get(3)?,
            perspective_ids: serde_json::from_str(&perspectives).unwrap_or_default(),
            model: r.get(5)?,
            prompt_hash: r.get(6)?,
            params: serde_json::from_str(&params).unwrap_or(serde_json::Value::Null),
        },
        status: RunStatus::parse(&status),
        created_at: r.get(9)?,
        finished_at: r.get(10)?,
        total: r.get::<_, i64>(11)? as u64,
        prompt_tokens: r.get::<_, i64>(12)? as u64,
        completion_tokens: r.get::<_, i64>(13)? as u64,
        cost_usd: r.get(14)?,
        note: r.get(15)?,
        verdicts: r.get::<_, i64>(16)? as u64,
        failures: r.get::<_, i64>(17)? as u64,
    })
}
