//! Claims: the combinations a running run is judging. Two runs started
//! together on the same combinations would otherwise both pay for every one
//! of them; with claims the second (a `--resume`) leaves to the first what
//! it has claimed, from whichever host (on PostgreSQL claims take turns on
//! an advisory lock: [`take_claims_lock`]). A claim is void once its run
//! ended or its owner is gone (the liveness rule of
//! [`super::RunOwner::is_gone`]: a dead pid on this host, else a heartbeat
//! older than the stale time by the store's clock), so a killed run's
//! claims block others only until then.

use super::db::params;
use super::{Result, Store, VerdictFilter, host_name, pid_alive};
use crate::domain::ComboKey;
use std::borrow::Borrow;
use std::collections::{BTreeSet, HashMap, HashSet};

/// What a run's claim found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Claimed {
    /// Combinations another live run has claimed: left to it.
    pub held: HashSet<ComboKey>,
    /// The runs holding them.
    pub by_runs: Vec<i64>,
    /// Of `held`, how many an open batch holds (sent and not read yet, or
    /// exported for `jury batch import`), and of which runs.
    pub in_batches: (usize, Vec<i64>),
    /// Combinations judged (same persona, protocol, mode, model and prompt
    /// set) since the run was planned: a run that ended meanwhile.
    pub judged: HashSet<ComboKey>,
}

impl Claimed {
    pub fn skips(&self, key: &ComboKey) -> bool {
        self.held.contains(key) || self.judged.contains(key)
    }
}

/// The matching key of a verdict's configuration (see migration 11): the
/// values of [`super::verdicts::JUDGE_CONFIG`], in its order.
fn config_of(f: &VerdictFilter<'_>) -> String {
    let mode = f.mode.map(|m| m.number().to_string()).unwrap_or_default();
    [
        f.persona_id,
        f.protocol.as_str(),
        &mode,
        f.model,
        f.prompt_hash,
    ]
    .join("\u{1f}")
}

impl Store {
    /// Claims `keys` for `run_id`, in one transaction with the check, so two
    /// runs claiming at once are served one after the other (SQLite's one
    /// writer; on PostgreSQL an advisory lock, whatever host each runs on). With
    /// `leave_held` (a `--resume`), keys another live run holds, or judged
    /// since planning, are not claimed and are returned; the run's total
    /// drops by as many. Without it (a deliberate repeat) everything is
    /// claimed. Claims of runs that ended or whose owner is gone are
    /// removed on the way.
    pub fn claim_combinations<K: Borrow<ComboKey>>(
        &mut self,
        run_id: i64,
        f: &VerdictFilter<'_>,
        keys: &[K],
        leave_held: bool,
    ) -> Result<Claimed> {
        let config = config_of(f);
        // Combinations an open batch of this judge holds (sent and not read,
        // or exported for another engine): a resume leaves them to it, as
        // to a live run, however long the batch takes.
        let in_batches = if leave_held {
            self.open_batch_keys(f, run_id)?
        } else {
            HashMap::new()
        };
        let tx = self.immediate()?;
        take_claims_lock(&tx)?;
        // The run's writer, which beats, starts only after the claim, and a
        // large claim over a slow link may take a while: beat here, first to
        // hold the run's row (another process marking it abandoned waits,
        // then sees a new beat), last so the beat is fresh at commit.
        beat(&tx, run_id)?;
        // Read under the write lock: a run that claims meanwhile waits for
        // us, and one that ended meanwhile has written all it judged.
        let judged = if leave_held {
            super::verdicts::judged_keys_on(&tx, f)?
        } else {
            HashSet::new()
        };
        let live = live_runs(&tx)?;
        // Claims of runs no longer live: their runs cannot judge them.
        let claimants: Vec<i64> = {
            let mut stmt = tx.prepare("SELECT DISTINCT run_id FROM run_claims")?;
            stmt.query_map([], |r| r.get(0))?
                .collect::<super::Result<_>>()?
        };
        for dead in claimants.iter().filter(|id| !live.contains(id)) {
            tx.execute("DELETE FROM run_claims WHERE run_id = ?1", [dead])?;
        }
        let mut out = Claimed::default();
        if leave_held {
            let mut holders: HashMap<ComboKey, i64> = HashMap::new();
            let mut stmt = tx.prepare(
                "SELECT item_id, classification_id, perspective_id, run_id FROM run_claims WHERE config = ?1 AND run_id != ?2",
            )?;
            let rows = stmt.query_map(params![config, run_id], |r| {
                Ok((
                    ComboKey::new(
                        &r.get::<_, String>(0)?,
                        &r.get::<_, String>(1)?,
                        &r.get::<_, String>(2)?,
                    ),
                    r.get::<_, i64>(3)?,
                ))
            })?;
            for row in rows {
                let (k, by) = row?;
                holders.insert(k, by);
            }
            drop(stmt);
            for (k, by) in &in_batches {
                holders.entry(k.clone()).or_insert(*by);
            }
            let mut by = BTreeSet::new();
            let mut batch_runs = BTreeSet::new();
            for k in keys.iter().map(Borrow::borrow) {
                if let Some(r) = holders.get(k) {
                    out.held.insert(k.clone());
                    by.insert(*r);
                    if in_batches.get(k) == Some(r) {
                        out.in_batches.0 += 1;
                        batch_runs.insert(*r);
                    }
                } else if judged.contains(k) {
                    out.judged.insert(k.clone());
                }
            }
            out.by_runs = by.into_iter().collect();
            out.in_batches.1 = batch_runs.into_iter().collect();
        }
        {
            let mut insert = tx.prepare(
                "INSERT INTO run_claims (run_id, config, item_id, classification_id, perspective_id)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for k in keys.iter().map(Borrow::borrow).filter(|k| !out.skips(k)) {
                insert.execute(params![
                    run_id,
                    config,
                    k.item_id,
                    k.classification_id,
                    k.perspective_id
                ])?;
            }
        }
        let left = (out.held.len() + out.judged.len()) as i64;
        if left > 0 {
            tx.execute(
                "UPDATE runs SET total = CASE WHEN total > ?2 THEN total - ?2 ELSE 0 END WHERE id = ?1",
                params![run_id, left],
            )?;
        }
        beat(&tx, run_id)?;
        tx.commit()?;
        Ok(out)
    }

    /// The combinations `run_id` holds (tests and `doctor`).
    pub fn claims_of(&self, run_id: i64) -> Result<usize> {
        Ok(self.conn.query_row(
            "SELECT count(*) FROM run_claims WHERE run_id = ?1",
            [run_id],
            |r| r.get::<_, i64>(0),
        )? as usize)
    }
}

/// The advisory lock claiming takes on PostgreSQL (jury's own key; the
/// migrations take 7032001).
const CLAIMS_LOCK: i64 = 7032002;

/// Makes the claim transaction the only one of its kind until it ends.
///
/// SQLite has one writer: `BEGIN IMMEDIATE` already serialises claims. A
/// PostgreSQL transaction at READ COMMITTED does not: two runs (on two
/// hosts, or one) would both read no claim, both insert theirs and both pay
/// for every combination. A transaction-level advisory lock makes every
/// claim wait for the one before it to commit; each statement after it sees
/// what that one claimed (READ COMMITTED takes a snapshot per statement).
/// Chosen over row locks (`FOR UPDATE SKIP LOCKED`) or a unique constraint
/// with `ON CONFLICT DO NOTHING` because a claim is not one row per
/// combination that only one run may hold: a deliberate repeat (no
/// `--resume`) claims combinations another run holds, and the same check
/// also reads verdicts judged since planning and open batches, which no
/// row lock covers. A run claims once, at its start, so the wait is short
/// and rare; the lock goes with the transaction (a killed process's
/// session ends and releases it), so it can never be left held.
pub(super) fn take_claims_lock(tx: &super::db::Db) -> Result<()> {
    match tx.dialect() {
        super::db::Dialect::Sqlite => Ok(()),
        super::db::Dialect::Postgres => {
            tx.execute_batch(&format!("SELECT pg_advisory_xact_lock({CLAIMS_LOCK})"))
        }
    }
}

/// Renews `run_id`'s heartbeat inside the claim's transaction.
fn beat(tx: &super::db::Db, run_id: i64) -> Result<()> {
    let at = super::clock::store_timestamp(tx)?;
    tx.execute(
        "UPDATE runs SET heartbeat_at = ?2 WHERE id = ?1 AND status = 'running'",
        params![run_id, at],
    )?;
    Ok(())
}

/// Runs still `running` whose owner is alive.
fn live_runs(conn: &super::db::Db) -> Result<HashSet<i64>> {
    let (at, host) = (super::clock::store_now(conn)?, host_name());
    Ok(super::runs::running_owners_on(conn)?
        .into_iter()
        .filter(|(_, o)| !o.is_gone(at, &host, pid_alive))
        .map(|(id, _)| id)
        .collect())
}

/// Removes a run's claims (inside the transaction that ends it).
pub(super) fn release_tx(conn: &super::db::Db, run_id: i64) -> Result<()> {
    conn.execute("DELETE FROM run_claims WHERE run_id = ?1", [run_id])?;
    Ok(())
}
