//! Runs and their counters, and who owns a running one.

use super::db::{OptionalExtension, params};
use super::{Result, Store, StoreError, now};
use crate::domain::{Mode, Run, RunRecord, RunSpec, RunStatus, Usage};
use std::time::Duration;

/// How often a live run's writer refreshes its heartbeat.
pub const HEARTBEAT_EVERY: Duration = Duration::from_secs(5);

/// A heartbeat older than this means the run's process is gone or hung.
/// Six missed beats: a writer may wait out a few busy-store timeouts (5 s
/// each) on a slow disk without another process declaring its run dead.
pub const HEARTBEAT_STALE_AFTER: Duration = Duration::from_secs(30);

/// Test-only: a heartbeat age, in milliseconds, that counts as stale
/// instead of [`HEARTBEAT_STALE_AFTER`] (the beat quickens to match), so a
/// test sees a killed run's claims lapse without waiting 30 s.
pub const TEST_STALE_AFTER_ENV: &str = "JURY_TEST_HEARTBEAT_STALE_MS";

/// Test-only: the host name this process gives its runs instead of the
/// machine's, so one machine's tests can play several hosts.
pub const TEST_HOST_NAME_ENV: &str = "JURY_TEST_HOST_NAME";

/// When a heartbeat is stale: [`HEARTBEAT_STALE_AFTER`], unless a test
/// says otherwise ([`TEST_STALE_AFTER_ENV`]).
pub fn heartbeat_stale_after() -> Duration {
    std::env::var(TEST_STALE_AFTER_ENV)
        .ok()
        .and_then(|ms| ms.trim().parse::<u64>().ok())
        .filter(|&ms| ms > 0)
        .map(Duration::from_millis)
        .unwrap_or(HEARTBEAT_STALE_AFTER)
}

/// How often a live run beats: [`HEARTBEAT_EVERY`], or six times per stale
/// period when a test shortened it, so a live run never looks dead.
pub fn heartbeat_every() -> Duration {
    HEARTBEAT_EVERY.min(heartbeat_stale_after() / 6)
}

/// The note a run gets when its process ended without finishing it.
pub const INTERRUPTED_NOTE: &str = "interrupted (process ended)";

/// What the store knows about the process running a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOwner {
    pub pid: Option<u32>,
    pub host: Option<String>,
    /// RFC 3339; `None` for runs written before owners were recorded.
    pub heartbeat_at: Option<String>,
    pub created_at: String,
}

impl RunOwner {
    /// Whether the run's process is gone: on this host a pid that no longer
    /// exists says so at once; otherwise (another host, or a pid that may
    /// have been reused by an unrelated process) only a stale heartbeat does.
    /// Runs from before owners were recorded count from their start.
    pub fn is_gone(
        &self,
        now: chrono::DateTime<chrono::Utc>,
        this_host: &str,
        pid_alive: impl Fn(u32) -> bool,
    ) -> bool {
        if let (Some(pid), Some(host)) = (self.pid, self.host.as_deref())
            && host == this_host
            && !pid_alive(pid)
        {
            return true;
        }
        let last = self.heartbeat_at.as_deref().unwrap_or(&self.created_at);
        match chrono::DateTime::parse_from_rfc3339(last) {
            Ok(t) => {
                let age = now.signed_duration_since(t.with_timezone(&chrono::Utc));
                age.to_std().is_ok_and(|a| a > heartbeat_stale_after())
            }
            // An unreadable time proves nothing about the owner.
            Err(_) => false,
        }
    }
}

/// This machine's name, to tell its own processes from another host's
/// (a test may pretend to be another host: [`TEST_HOST_NAME_ENV`]).
pub fn host_name() -> String {
    if let Ok(name) = std::env::var(TEST_HOST_NAME_ENV)
        && !name.trim().is_empty()
    {
        return name;
    }
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its whole length; gethostname writes at
    // most that many bytes.
    let rc = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if rc != 0 {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

/// Whether a process with this pid exists on this machine. EPERM means it
/// exists under another user.
pub fn pid_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 sends nothing; it only checks that the pid exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

const RUN_COLUMNS: &str = "r.id, r.protocol, r.mode, r.persona_id, r.perspective_ids, r.model, r.prompt_hash, r.params,
    r.status, r.created_at, r.finished_at, r.total, r.prompt_tokens, r.completion_tokens, r.cost_usd, r.note,
    (SELECT count(*) FROM verdicts v WHERE v.run_id = r.id),
    (SELECT count(*) FROM failures f WHERE f.run_id = r.id),
    r.requests, r.usage_unknown, r.cached_tokens, r.structured, r.record, r.record_note";

/// A run marked running, as a workbench's status line shows another
/// process's run: its own counters, no count over the verdicts (asked
/// once a second).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningRun {
    pub id: i64,
    /// Combinations planned.
    pub total: u64,
    /// Requests sent so far, every attempt counted.
    pub requests: u64,
}

impl Store {
    /// Every run marked running, oldest first.
    pub fn running_runs(&self) -> Result<Vec<RunningRun>> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, total, requests FROM runs WHERE status = 'running' ORDER BY id")?;
        let rows = stmt.query_map([], |r| {
            Ok(RunningRun {
                id: r.get(0)?,
                total: r.get::<_, i64>(1)?.max(0) as u64,
                requests: r.get::<_, i64>(2)?.max(0) as u64,
            })
        })?;
        rows.collect()
    }

    pub fn create_run(&mut self, spec: &RunSpec, total: u64) -> Result<i64> {
        let tx = self.immediate()?;
        let beat = super::clock::store_timestamp(&tx)?;
        let id: i64 = tx.query_row(
            "INSERT INTO runs (protocol, mode, persona_id, perspective_ids, model, prompt_hash, params, status, created_at, total,
               owner_pid, owner_host, heartbeat_at, record)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, '{}', 'running', ?7, ?8, ?9, ?10, ?12, ?11)
             RETURNING id",
            params![
                spec.protocol.as_str(),
                spec.mode.map(|m| m.number()),
                spec.persona_id,
                serde_json::to_string(&spec.perspective_ids).unwrap_or_default(),
                spec.model,
                spec.prompt_hash,
                now(),
                total as i64,
                std::process::id(),
                host_name(),
                record_json(spec.record.as_deref()),
                beat
            ],
            |r| r.get(0),
        )?;
        tx.commit()?;
        Ok(id)
    }

    /// Tells other processes the run is still alive (by the store's clock,
    /// which every host reads alike: see `clock.rs`).
    pub fn heartbeat(&mut self, run_id: i64) -> Result<()> {
        let at = super::clock::store_timestamp(&self.conn)?;
        self.write_one(
            "UPDATE runs SET heartbeat_at = ?2 WHERE id = ?1 AND status = 'running'",
            params![run_id, at],
        )?;
        Ok(())
    }

    /// Ends a run. The note is the run's own: one left by another process
    /// that took the run for dead is replaced, as is its status.
    pub fn finish_run(&mut self, run_id: i64, status: RunStatus, note: Option<&str>) -> Result<()> {
        // Its claims go with it: what it did not judge is free for others.
        let tx = self.immediate()?;
        tx.execute(
            "UPDATE runs SET status = ?2, finished_at = ?3, note = ?4 WHERE id = ?1",
            params![run_id, status.as_str(), now(), note],
        )?;
        super::claims::release_tx(&tx, run_id)?;
        tx.commit()?;
        Ok(())
    }

    /// Adds one request's token usage (and its estimated cost) to the run.
    pub fn add_run_usage(
        &mut self,
        run_id: i64,
        usage: Option<Usage>,
        cost_usd: Option<f64>,
    ) -> Result<()> {
        let u = usage.unwrap_or_default();
        self.write_one(
            "UPDATE runs SET requests = requests + 1,
               usage_unknown = usage_unknown + ?5,
               prompt_tokens = prompt_tokens + ?2, completion_tokens = completion_tokens + ?3,
               cached_tokens = cached_tokens + ?6,
               cost_usd = CASE WHEN CAST(?4 AS DOUBLE PRECISION) IS NULL THEN cost_usd ELSE coalesce(cost_usd, 0) + ?4 END
             WHERE id = ?1",
            params![
                run_id,
                u.prompt_tokens as i64,
                u.completion_tokens as i64,
                cost_usd,
                usage.is_none() as i64,
                u.cached_tokens as i64
            ],
        )?;
        Ok(())
    }

    /// Records how the run's structured answers were asked for and came back.
    pub fn set_run_structured(&mut self, run_id: i64, structured: &str) -> Result<()> {
        self.write_one(
            "UPDATE runs SET structured = ?2 WHERE id = ?1",
            params![run_id, structured],
        )?;
        Ok(())
    }

    /// The structured path `endpoint` and `model` answered a probe with.
    pub fn endpoint_path(&self, endpoint: &str, model: &str) -> Result<Option<(String, String)>> {
        self.conn
            .query_row(
                "SELECT structured, detail FROM endpoint_paths WHERE endpoint = ?1 AND model = ?2",
                params![endpoint, model],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
    }

    pub fn set_endpoint_path(
        &mut self,
        endpoint: &str,
        model: &str,
        structured: &str,
        detail: &str,
    ) -> Result<()> {
        self.write_one(
            "INSERT INTO endpoint_paths (endpoint, model, structured, detail, probed_at)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (endpoint, model) DO UPDATE SET structured = ?3, detail = ?4, probed_at = ?5",
            params![endpoint, model, structured, detail, now()],
        )?;
        Ok(())
    }

    pub fn runs(&self) -> Result<Vec<Run>> {
        let mut stmt = self
            .conn
            .prepare(&format!("SELECT {RUN_COLUMNS} FROM runs r ORDER BY r.id"))?;
        let rows = stmt.query_map([], run_from_row)?;
        rows.collect::<super::Result<Vec<_>>>()
    }

    pub fn run(&self, id: i64) -> Result<Option<Run>> {
        self.conn
            .query_row(
                &format!("SELECT {RUN_COLUMNS} FROM runs r WHERE r.id = ?1"),
                [id],
                run_from_row,
            )
            .optional()
    }

    /// Who owns each run still marked running.
    pub fn running_owners(&self) -> Result<Vec<(i64, RunOwner)>> {
        running_owners_on(&self.conn)
    }

    /// Runs left `running` by a process that is gone (see [`RunOwner::is_gone`]):
    /// mark them failed so the list tells the truth. A live run, whichever
    /// process owns it, is left alone.
    pub fn mark_abandoned_runs(&mut self, except: &[i64]) -> Result<usize> {
        if self.is_read_only() {
            // Nothing can be marked; reading must still work.
            return Ok(0);
        }
        let (at, host) = (super::clock::store_now(&self.conn)?, host_name());
        let mut n = 0;
        for (id, owner) in self.running_owners()? {
            if except.contains(&id) || !owner.is_gone(at, &host, pid_alive) {
                continue;
            }
            // The heartbeat is checked again in the update: the owner may
            // have beaten since it was read.
            match self.write_one(
                "UPDATE runs SET status = 'failed', note = ?2, finished_at = ?3
                 WHERE id = ?1 AND status = 'running' AND heartbeat_at IS NOT DISTINCT FROM ?4",
                params![id, INTERRUPTED_NOTE, now(), owner.heartbeat_at],
            ) {
                Ok(k) => n += k,
                // Marking is a courtesy to whoever reads the list: a store
                // that cannot take the write now (full disk, held lock)
                // must still be read. The next command marks the run.
                Err(StoreError::Full(_) | StoreError::Busy { .. } | StoreError::ReadOnly(_)) => {
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }
}

/// Who owns each run still marked running, read on `conn` (inside a
/// transaction when the answer must hold until it commits).
pub(super) fn running_owners_on(conn: &super::db::Db) -> Result<Vec<(i64, RunOwner)>> {
    let mut stmt = conn.prepare(
            "SELECT id, owner_pid, owner_host, heartbeat_at, created_at FROM runs WHERE status = 'running' ORDER BY id",
        )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            RunOwner {
                pid: r
                    .get::<_, Option<i64>>(1)?
                    .and_then(|p| u32::try_from(p).ok()),
                host: r.get(2)?,
                heartbeat_at: r.get(3)?,
                created_at: r.get(4)?,
            },
        ))
    })?;
    rows.collect::<super::Result<Vec<_>>>()
}

fn run_from_row(r: &super::db::Row<'_>) -> super::Result<Run> {
    let protocol: String = r.get(1)?;
    let mode: Option<u8> = r.get(2)?;
    let perspectives: String = r.get(4)?;
    let status: String = r.get(8)?;
    let (record, record_note) = read_record(r.get(22)?, r.get(23)?);
    Ok(Run {
        id: r.get(0)?,
        spec: RunSpec {
            protocol: protocol.parse().unwrap_or(crate::domain::Protocol::Awag),
            mode: mode.and_then(Mode::from_number),
            persona_id: r.get(3)?,
            perspective_ids: serde_json::from_str(&perspectives).unwrap_or_default(),
            model: r.get(5)?,
            prompt_hash: r.get(6)?,
            record,
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
        requests: r.get::<_, i64>(18)? as u64,
        usage_unknown: r.get::<_, i64>(19)? as u64,
        cached_tokens: r.get::<_, i64>(20)? as u64,
        structured: r.get(21)?,
        record_note,
    })
}

/// A record as `runs.record` keeps it (JSON; NULL for none).
pub(super) fn record_json(record: Option<&RunRecord>) -> Option<String> {
    record.and_then(|r| serde_json::to_string(r).ok())
}

/// The record of a stored run, or why it has none: a run the migration to
/// records could not convert keeps its note; a record that does not read
/// (written by a later jury?) is said, never taken for none.
fn read_record(
    json: Option<String>,
    note: Option<String>,
) -> (Option<Box<RunRecord>>, Option<String>) {
    match json {
        Some(text) => match serde_json::from_str::<RunRecord>(&text) {
            Ok(record) => (Some(Box::new(record)), note),
            Err(e) => (None, Some(format!("its record does not read: {e}"))),
        },
        None => (None, note),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(pid: u32, host: &str, beat: &str) -> RunOwner {
        RunOwner {
            pid: Some(pid),
            host: Some(host.into()),
            heartbeat_at: Some(beat.into()),
            created_at: "2026-11-23T10:00:00.000Z".into(),
        }
    }

    fn at(t: &str) -> chrono::DateTime<chrono::Utc> {
        chrono::DateTime::parse_from_rfc3339(t)
            .unwrap()
            .with_timezone(&chrono::Utc)
    }

    #[test]
    fn a_run_is_gone_only_when_its_process_is() {
        let now = at("2026-11-23T10:01:00.000Z");
        let fresh = "2026-11-23T10:00:55.000Z";
        let stale = "2026-11-23T10:00:20.000Z";
        let (alive, dead) = (|_| true, |_| false);
        // Same host: a dead pid is gone at once, a live one with a fresh beat is not.
        assert!(owner(7, "h", fresh).is_gone(now, "h", dead));
        assert!(!owner(7, "h", fresh).is_gone(now, "h", alive));
        // A live pid with a stale beat: reused pid or hung process.
        assert!(owner(7, "h", stale).is_gone(now, "h", alive));
        // Another host: its pids mean nothing here; only the heartbeat counts.
        assert!(!owner(7, "other", fresh).is_gone(now, "h", dead));
        assert!(owner(7, "other", stale).is_gone(now, "h", dead));
        // A run from before owners were recorded counts from its start.
        let legacy = RunOwner {
            pid: None,
            host: None,
            heartbeat_at: None,
            created_at: stale.into(),
        };
        assert!(legacy.is_gone(now, "h", alive));
        let legacy_new = RunOwner {
            created_at: fresh.into(),
            ..legacy
        };
        assert!(!legacy_new.is_gone(now, "h", alive));
    }

    #[test]
    fn this_process_is_alive() {
        assert!(pid_alive(std::process::id()));
        assert!(!pid_alive(0));
        assert!(!host_name().is_empty());
    }
}
