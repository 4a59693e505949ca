//! Runs sent as batches: each part's batch and file ids (stored before jury
//! waits, so a killed process finds its batch again) and what each request
//! of the batch file holds (so an answer file is matched line by line).

use super::db::params;
use super::runs::host_name;
use super::{Result, Store, now};
use crate::domain::{BatchWay, ComboKey};
use crate::provider::ToolMode;
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};

/// One part of a batch run: one request file, and with the Batch API one batch.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchJob {
    pub run_id: i64,
    /// From 1; a run of more than one file's worth of requests has several.
    pub part: u32,
    /// Sent through the Batch API, or written for another engine.
    pub kind: BatchWay,
    /// The delimiter the requests' item texts were written with.
    pub boundary: String,
    /// The structured path the requests asked for.
    pub tool_mode: ToolMode,
    pub batch_id: Option<String>,
    pub input_file_id: Option<String>,
    pub output_file_id: Option<String>,
    pub error_file_id: Option<String>,
    /// The batch's last status as seen (`exported` for a file).
    pub status: BatchStatus,
    /// `request_counts` as last seen (JSON), when any.
    pub counts: Option<String>,
    /// Its answers were read into the run.
    pub imported: bool,
}

/// What [`Store::adopt_run_unless_held`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Adoption {
    /// This process has the run now.
    Adopted,
    /// Another live process (this pid) has it.
    HeldBy(u32),
    /// Its batches were all read (by another process, meanwhile).
    NothingOpen,
}

/// Where a batch part stands: the Batch API's statuses, and jury's own
/// before a batch exists (`uploading`), for a file (`exported`) and after
/// an import (`imported`). A status the server names otherwise is kept as
/// it said it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchStatus {
    Uploading,
    Validating,
    InProgress,
    Finalizing,
    Completed,
    Failed,
    Expired,
    Cancelling,
    Cancelled,
    Exported,
    Imported,
    Other(String),
}

impl BatchStatus {
    const NAMED: [(BatchStatus, &'static str); 11] = [
        (BatchStatus::Uploading, "uploading"),
        (BatchStatus::Validating, "validating"),
        (BatchStatus::InProgress, "in_progress"),
        (BatchStatus::Finalizing, "finalizing"),
        (BatchStatus::Completed, "completed"),
        (BatchStatus::Failed, "failed"),
        (BatchStatus::Expired, "expired"),
        (BatchStatus::Cancelling, "cancelling"),
        (BatchStatus::Cancelled, "cancelled"),
        (BatchStatus::Exported, "exported"),
        (BatchStatus::Imported, "imported"),
    ];

    pub fn parse(s: &str) -> BatchStatus {
        Self::NAMED
            .iter()
            .find(|(_, name)| *name == s)
            .map(|(st, _)| st.clone())
            .unwrap_or_else(|| BatchStatus::Other(s.to_string()))
    }

    pub fn as_str(&self) -> &str {
        match self {
            BatchStatus::Other(s) => s,
            named => Self::NAMED
                .iter()
                .find(|(st, _)| st == named)
                .map_or("", |(_, name)| name),
        }
    }
}

impl std::fmt::Display for BatchStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for BatchStatus {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl BatchWay {
    pub fn as_str(self) -> &'static str {
        match self {
            BatchWay::Api => "api",
            BatchWay::File => "file",
        }
    }
}

// The enums' columns hold their names, as the store always wrote them.
impl ToSql for BatchStatus {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for BatchStatus {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
        v.as_str().map(BatchStatus::parse)
    }
}

impl ToSql for BatchWay {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for BatchWay {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
        match v.as_str()? {
            "api" => Ok(BatchWay::Api),
            "file" => Ok(BatchWay::File),
            other => Err(FromSqlError::Other(
                format!("unknown batch kind '{other}'").into(),
            )),
        }
    }
}

impl ToSql for ToolMode {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for ToolMode {
    fn column_result(v: ValueRef<'_>) -> FromSqlResult<Self> {
        let s = v.as_str()?;
        ToolMode::parse(s)
            .ok_or_else(|| FromSqlError::Other(format!("unknown structured path '{s}'").into()))
    }
}

/// One request of a batch file.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchRequestRow {
    pub idx: u32,
    pub part: u32,
    pub keys: Vec<ComboKey>,
    pub max_tokens: u32,
}

impl Store {
    /// Records what each request of `run_id`'s batch file asks.
    pub fn record_batch_requests(&mut self, run_id: i64, rows: &[BatchRequestRow]) -> Result<()> {
        let tx = self.immediate()?;
        {
            let mut stmt = tx.prepare(
                "INSERT INTO batch_requests (run_id, idx, part, keys, max_tokens)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (run_id, idx) DO UPDATE SET part = excluded.part, keys = excluded.keys,
                   max_tokens = excluded.max_tokens",
            )?;
            for r in rows {
                stmt.execute(params![
                    run_id,
                    r.idx,
                    r.part,
                    serde_json::to_string(&r.keys).unwrap_or_default(),
                    r.max_tokens
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The requests of `run_id`'s batch file, in order.
    pub fn batch_requests(&self, run_id: i64) -> Result<Vec<BatchRequestRow>> {
        let mut stmt = self.conn.prepare(
            "SELECT idx, part, keys, max_tokens FROM batch_requests WHERE run_id = ?1 ORDER BY idx",
        )?;
        let rows = stmt.query_map(params![run_id], |r| {
            let keys: String = r.get(2)?;
            Ok(BatchRequestRow {
                idx: r.get(0)?,
                part: r.get(1)?,
                keys: serde_json::from_str(&keys).unwrap_or_default(),
                max_tokens: r.get(3)?,
            })
        })?;
        rows.collect::<std::result::Result<_, _>>()
    }

    /// Inserts or updates `job`.
    pub fn save_batch_job(&mut self, job: &BatchJob) -> Result<()> {
        let at = now();
        self.write_one(
            "INSERT INTO batch_jobs (run_id, part, kind, batch_id, input_file_id, output_file_id,
               error_file_id, status, counts, imported, created_at, updated_at, boundary, tool_mode)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12, ?13)
             ON CONFLICT (run_id, part) DO UPDATE SET batch_id = ?4, input_file_id = ?5,
               output_file_id = ?6, error_file_id = ?7, status = ?8, counts = ?9,
               imported = ?10, updated_at = ?11",
            params![
                job.run_id,
                job.part,
                job.kind,
                job.batch_id,
                job.input_file_id,
                job.output_file_id,
                job.error_file_id,
                job.status,
                job.counts,
                job.imported,
                at,
                job.boundary,
                job.tool_mode
            ],
        )?;
        Ok(())
    }

    /// The batch parts of `run_id`, in order.
    pub fn batch_jobs(&self, run_id: i64) -> Result<Vec<BatchJob>> {
        self.batch_jobs_where("run_id = ?1", params![run_id])
    }

    /// Every batch part sent through the Batch API whose answers were not
    /// read yet, oldest first.
    pub fn open_batch_jobs(&self) -> Result<Vec<BatchJob>> {
        self.batch_jobs_where("kind = 'api' AND imported = 0", params![])
    }

    /// The run whose batch is still open (sent, never read) for the judge
    /// of `spec` (protocol, mode, persona, perspectives, model, prompts),
    /// some combination of whose open batches is among `planned`: what a
    /// resumed run waits for instead of sending again. An open batch of
    /// other items is another run's to wait for.
    pub fn open_batch_run_for(
        &self,
        spec: &crate::domain::RunSpec,
        planned: &std::collections::HashSet<&ComboKey>,
    ) -> Result<Option<i64>> {
        for job in self.open_batch_jobs()? {
            let Some(run) = self.run(job.run_id)? else {
                continue;
            };
            let r = &run.spec;
            let same_judge = r.protocol == spec.protocol
                && r.mode == spec.mode
                && r.persona_id == spec.persona_id
                && r.perspective_ids == spec.perspective_ids
                && r.model == spec.model
                && r.prompt_hash == spec.prompt_hash;
            if !same_judge {
                continue;
            }
            let open: std::collections::HashSet<u32> = self
                .batch_jobs(job.run_id)?
                .into_iter()
                .filter(|j| !j.imported)
                .map(|j| j.part)
                .collect();
            // Any of them: a process killed while it read the batch left
            // some of its combinations judged (not planned again) and the
            // rest still to read from it.
            let overlaps = self
                .batch_requests(job.run_id)?
                .iter()
                .filter(|row| open.contains(&row.part))
                .flat_map(|row| row.keys.iter())
                .any(|k| planned.contains(k));
            if overlaps {
                return Ok(Some(job.run_id));
            }
        }
        Ok(None)
    }

    /// The combinations of open batches of this judge (`f`), each with its
    /// run: sent through the Batch API and not read yet, or exported and
    /// waiting for `jury batch import` (the run queued). Runs other than
    /// `except` only. What a `--resume` leaves to the batch rather than
    /// judge again at full price.
    pub fn open_batch_keys(
        &self,
        f: &super::VerdictFilter<'_>,
        except: i64,
    ) -> Result<std::collections::HashMap<ComboKey, i64>> {
        let mut held = std::collections::HashMap::new();
        let jobs = self.batch_jobs_where("imported = 0 AND run_id != ?1", params![except])?;
        let mut seen = std::collections::HashSet::new();
        for job in jobs {
            if !seen.insert(job.run_id) {
                continue;
            }
            let Some(run) = self.run(job.run_id)? else {
                continue;
            };
            let r = &run.spec;
            let same_judge = r.persona_id == f.persona_id
                && r.protocol == f.protocol
                && r.mode == f.mode
                && r.model == f.model
                && r.prompt_hash == f.prompt_hash;
            let open = job.kind == BatchWay::Api || run.status == crate::domain::RunStatus::Queued;
            if !same_judge || !open {
                continue;
            }
            let parts: std::collections::HashSet<u32> = self
                .batch_jobs(job.run_id)?
                .into_iter()
                .filter(|j| !j.imported)
                .map(|j| j.part)
                .collect();
            for row in self.batch_requests(job.run_id)? {
                if parts.contains(&row.part) {
                    for k in row.keys {
                        held.insert(k, job.run_id);
                    }
                }
            }
        }
        Ok(held)
    }

    /// This process takes `run_id` over again, unless another live process
    /// holds it (two `--resume` of one open batch), or (`need_open`) none of
    /// its batches is left open: in one transaction, so two asking at once
    /// are served one after the other. Nothing changes unless it is adopted.
    pub fn adopt_run_unless_held(&mut self, run_id: i64, need_open: bool) -> Result<Adoption> {
        let host = host_name();
        let me = std::process::id();
        let tx = self.immediate()?;
        // On PostgreSQL the transaction alone does not serialise two
        // adopters (both would read no live holder): they take turns on
        // the claims' lock, as runs claiming combinations do.
        super::claims::take_claims_lock(&tx)?;
        let clock = super::clock::store_now(&tx)?;
        let at = super::timestamp(clock);
        let holder = super::runs::running_owners_on(&tx)?
            .into_iter()
            .find(|(id, _)| *id == run_id)
            .map(|(_, o)| o)
            .filter(|o| !(o.pid == Some(me) && o.host.as_deref() == Some(host.as_str())))
            .filter(|o| !o.is_gone(clock, &host, super::pid_alive));
        if let Some(o) = holder {
            return Ok(Adoption::HeldBy(o.pid.unwrap_or(0)));
        }
        let open: i64 = tx.query_row(
            "SELECT count(*) FROM batch_jobs WHERE run_id = ?1 AND imported = 0",
            params![run_id],
            |r| r.get(0),
        )?;
        if need_open && open == 0 {
            return Ok(Adoption::NothingOpen);
        }
        tx.execute(
            "UPDATE runs SET status = 'running', note = NULL, finished_at = NULL,
               owner_pid = ?2, owner_host = ?3, heartbeat_at = ?4 WHERE id = ?1",
            params![run_id, me, host, at],
        )?;
        tx.commit()?;
        Ok(Adoption::Adopted)
    }

    fn batch_jobs_where(&self, cond: &str, p: impl super::db::Params) -> Result<Vec<BatchJob>> {
        let sql = format!(
            "SELECT run_id, part, kind, batch_id, input_file_id, output_file_id, error_file_id,
               status, counts, imported, boundary, tool_mode FROM batch_jobs WHERE {cond} ORDER BY run_id, part"
        );
        let mut stmt = self.conn.prepare(&sql)?;
        let rows = stmt.query_map(p, |r| {
            Ok(BatchJob {
                run_id: r.get(0)?,
                part: r.get(1)?,
                kind: r.get(2)?,
                batch_id: r.get(3)?,
                input_file_id: r.get(4)?,
                output_file_id: r.get(5)?,
                error_file_id: r.get(6)?,
                status: r.get(7)?,
                counts: r.get(8)?,
                imported: r.get(9)?,
                boundary: r.get(10)?,
                tool_mode: r.get(11)?,
            })
        })?;
        rows.collect::<std::result::Result<_, _>>()
    }

    /// Marks `run_id` as waiting for a batch that is answered elsewhere (a
    /// file exported for another engine): queued, not running, so no
    /// process is expected to beat for it.
    pub fn park_run(&mut self, run_id: i64, note: &str) -> Result<()> {
        self.write_one(
            "UPDATE runs SET status = 'queued', note = ?2 WHERE id = ?1",
            params![run_id, note],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_and_requests_round_trip() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut s = Store::open(&dir.path().join("j.db")).expect("open");
        let spec = crate::domain::RunSpec {
            protocol: crate::domain::Protocol::Awag,
            mode: Some(crate::domain::Mode::One),
            persona_id: "p".into(),
            perspective_ids: vec!["q".into()],
            model: "m".into(),
            prompt_hash: "h".into(),
            record: None,
        };
        let run = s.create_run(&spec, 2).expect("run");
        let key = ComboKey {
            item_id: "i".into(),
            classification_id: "c".into(),
            perspective_id: "q".into(),
        };
        let rows = vec![BatchRequestRow {
            idx: 0,
            part: 1,
            keys: vec![key],
            max_tokens: 500,
        }];
        s.record_batch_requests(run, &rows).expect("requests");
        assert_eq!(s.batch_requests(run).expect("read"), rows);
        let mut job = BatchJob {
            run_id: run,
            part: 1,
            kind: BatchWay::Api,
            boundary: "b".into(),
            tool_mode: ToolMode::Tools,
            batch_id: Some("batch_1".into()),
            input_file_id: Some("file_1".into()),
            output_file_id: None,
            error_file_id: None,
            status: BatchStatus::Validating,
            counts: None,
            imported: false,
        };
        s.save_batch_job(&job).expect("save");
        assert_eq!(s.open_batch_jobs().expect("open"), vec![job.clone()]);
        // The open batch is this judge's to wait for when its combinations
        // are among those planned, and not for a plan of other items.
        let k = rows[0].keys[0].clone();
        let other = ComboKey {
            item_id: "other".into(),
            ..k.clone()
        };
        let both: std::collections::HashSet<&ComboKey> = [&k, &other].into_iter().collect();
        let others: std::collections::HashSet<&ComboKey> = [&other].into_iter().collect();
        assert_eq!(s.open_batch_run_for(&spec, &both).expect("find"), Some(run));
        assert_eq!(s.open_batch_run_for(&spec, &others).expect("find"), None);
        job.status = BatchStatus::Completed;
        job.imported = true;
        s.save_batch_job(&job).expect("update");
        assert!(s.open_batch_jobs().expect("open").is_empty());
        assert_eq!(s.batch_jobs(run).expect("jobs"), vec![job]);
    }
}
