//! Verdicts and failures: written one by one as they arrive.

use super::db::params;
use super::{Result, Store, StoreError};
use crate::domain::{
    ComboKey, Confidence, ConfidenceSource, Failure, FailureKind, Mode, Protocol, RequestPosition,
    Scale, Value, Verdict,
};
use std::collections::HashSet;

/// The columns that make a judge configuration: verdicts that agree on all
/// of them are repeats of one judge (what `--resume` skips, what a run
/// claims, whose majority `confidence = "repeats"` reads).
pub(super) const JUDGE_CONFIG: &str = "persona_id, protocol, mode, model, prompt_hash";

/// A verdict's right/wrong reading in SQL (`Value::as_agreement`): repeats
/// agree when their readings do, not only their exact values.
const READING: &str = "CASE
    WHEN scale = 'likert' AND value IN ('4', '5') THEN 'AGREE'
    WHEN scale = 'likert' AND value IN ('1', '2') THEN 'DISAGREE'
    WHEN scale = 'bool' AND value = 'true' THEN 'AGREE'
    WHEN scale = 'bool' AND value = 'false' THEN 'DISAGREE'
    ELSE value END";

/// Selects the verdicts a `--resume` must not repeat.
#[derive(Debug, Clone)]
pub struct VerdictFilter<'a> {
    pub persona_id: &'a str,
    pub protocol: Protocol,
    pub mode: Option<Mode>,
    pub model: &'a str,
    pub prompt_hash: &'a str,
}

impl Store {
    /// Commits one verdict. A verdict already stored for the same run and
    /// combination is left as it is (a retried request cannot duplicate it).
    pub fn insert_verdict(&mut self, v: &Verdict) -> Result<bool> {
        Ok(self
            .insert_verdicts(std::slice::from_ref(v))?
            .first()
            .copied()
            .unwrap_or(false))
    }

    /// Commits the verdicts of one answer together, in one transaction with
    /// cached statements (they arrive together; one commit per verdict made
    /// the store writer the busiest part of a fast run). Returns, per verdict,
    /// whether it was new; a verdict already stored for the same run and
    /// combination is left as it is.
    pub fn insert_verdicts(&mut self, vs: &[Verdict]) -> Result<Vec<bool>> {
        let mut fresh = Vec::with_capacity(vs.len());
        if vs.is_empty() {
            return Ok(fresh);
        }
        if self.grouped {
            insert_verdicts_on(&self.conn, vs, &mut fresh)?;
            return Ok(fresh);
        }
        let tx = self.immediate()?;
        insert_verdicts_on(&tx, vs, &mut fresh)?;
        tx.commit()?;
        Ok(fresh)
    }

    pub fn insert_failure(&mut self, f: &Failure) -> Result<()> {
        self.write_one(
            "INSERT INTO failures (run_id, kind, keys, reason, raw_response, http_status, finish_reason, request, attempt, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                f.run_id,
                f.kind.as_str(),
                serde_json::to_string(&f.keys).unwrap_or_else(|_| "[]".into()),
                f.reason,
                f.raw_response,
                f.http_status,
                f.finish_reason,
                f.request,
                f.attempt,
                f.created_at
            ],
        )?;
        Ok(())
    }

    /// Combinations that already have a verdict with this persona, protocol,
    /// mode, model and prompt set (what `--resume` skips).
    pub fn judged_keys(&self, f: &VerdictFilter<'_>) -> Result<HashSet<ComboKey>> {
        judged_keys_on(&self.conn, f)
    }

    /// Every verdict for one item, oldest first.
    pub fn verdicts_for_item(&self, item_id: &str) -> Result<Vec<Verdict>> {
        self.query_verdicts("WHERE item_id = ?1 ORDER BY id", params![item_id])
    }

    /// Every verdict of one run, oldest first.
    pub fn verdicts_for_run(&self, run_id: i64) -> Result<Vec<Verdict>> {
        self.query_verdicts("WHERE run_id = ?1 ORDER BY id", params![run_id])
    }

    /// Streams every verdict to `f` (exports and reports over millions of rows).
    pub fn for_each_verdict(&self, mut f: impl FnMut(Verdict)) -> Result<()> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {VERDICT_COLUMNS} FROM verdicts ORDER BY id"
        ))?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            f(verdict_from_row(&row)?);
        }
        Ok(())
    }

    /// As [`Store::for_each_verdict`], each verdict without a stored
    /// confidence given the share of its judge configuration's verdicts on
    /// its combination (same persona, protocol, mode, model and prompt set:
    /// repeats) that gave the same AGREE/DISAGREE reading — a Likert 4 and
    /// a 5 are one answer; values with no such reading count by their own
    /// value — where there are several (`confidence = "repeats"`).
    /// Computed when reading, never stored.
    pub fn for_each_verdict_with_repeats(&self, mut f: impl FnMut(Verdict)) -> Result<()> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {VERDICT_COLUMNS}, count(*) OVER config, count(*) OVER same
             FROM verdicts
             WINDOW config AS (PARTITION BY {JUDGE_CONFIG}, item_id, classification_id, perspective_id),
                    same AS (PARTITION BY {JUDGE_CONFIG}, item_id, classification_id, perspective_id, {READING})
             ORDER BY id"
        ))?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            let mut v = verdict_from_row(&row)?;
            let (all, same): (i64, i64) = (row.get(23)?, row.get(24)?);
            if v.confidence.is_none() && all > 1 {
                v.confidence = Some(Confidence {
                    value: same as f64 / all as f64,
                    source: ConfidenceSource::Repeats,
                    expected_score: None,
                });
            }
            f(v);
        }
        Ok(())
    }

    /// Verdicts that went through a double check, as (judge, flipped): the
    /// judge named like the report does ("proposition · model").
    pub fn double_checks(&self) -> Result<Vec<(String, bool)>> {
        let mut stmt = self.conn.prepare(
            // Only proposition runs double-check; the run_id filter reads
            // their verdicts through the (run_id, ...) index instead of
            // scanning every verdict's raw answer.
            "SELECT protocol, mode, model, raw FROM verdicts
             WHERE run_id IN (SELECT id FROM runs WHERE protocol = 'proposition')
               AND raw LIKE '%\"flipped\"%' ORDER BY id",
        )?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let raw: String = r.get(3)?;
            let Some(flipped) = serde_json::from_str::<serde_json::Value>(&raw)
                .ok()
                .and_then(|v| v.get("flipped").and_then(|f| f.as_bool()))
            else {
                continue;
            };
            let protocol: Protocol = r.get::<_, String>(0)?.parse().map_err(StoreError::Data)?;
            let mode: Option<u8> = r.get(1)?;
            let model: String = r.get(2)?;
            let judge =
                crate::domain::judge_name(protocol, mode.and_then(Mode::from_number), &model);
            out.push((judge, flipped));
        }
        Ok(out)
    }

    /// Every verdict's identity and value, without texts, in insertion order,
    /// borrowed from the row (no allocation per verdict): what agreement
    /// statistics need, fast enough for millions of verdicts.
    pub fn for_each_verdict_value(&self, f: impl FnMut(VerdictValue<'_>)) -> Result<()> {
        self.for_each_verdict_value_in(i64::MIN, i64::MAX, f)
    }

    /// The smallest and largest verdict row id (None when there are none):
    /// readers split `for_each_verdict_value_in` at ids between them.
    pub fn verdict_id_range(&self) -> Result<Option<(i64, i64)>> {
        self.conn
            // Two subqueries: SQLite answers a lone min() or max() of the
            // rowid from the b-tree's ends, but scans for both in one select.
            .query_row(
                "SELECT (SELECT min(id) FROM verdicts), (SELECT max(id) FROM verdicts)",
                [],
                |r| Ok(r.get::<_, Option<i64>>(0)?.zip(r.get::<_, Option<i64>>(1)?)),
            )
    }

    /// As [`Store::for_each_verdict_value`], for row ids `from..=to` only.
    pub fn for_each_verdict_value_in(
        &self,
        from: i64,
        to: i64,
        mut f: impl FnMut(VerdictValue<'_>),
    ) -> Result<()> {
        let mut stmt = self.conn.prepare(
            "SELECT run_id, item_id, classification_id, perspective_id, persona_id, protocol, mode, model, scale, value,
               position, request_items, confidence, confidence_source
             FROM verdicts WHERE id BETWEEN ?1 AND ?2 ORDER BY id",
        )?;
        let mut rows = stmt.query([from, to])?;
        while let Some(r) = rows.next()? {
            let text = |i: usize| -> Result<&str> {
                r.text(i)
                    .map_err(|e| StoreError::Data(format!("verdict column {i}: {e}")))
            };
            let scale = text(8)?;
            let scale = Scale::parse_name(scale)
                .ok_or_else(|| StoreError::Data(format!("unknown scale '{scale}' in a verdict")))?;
            let value = scale
                .parse(text(9)?)
                .map_err(|e| StoreError::Data(format!("verdict value: {e}")))?;
            let mode: Option<u8> = r.get(6)?;
            f(VerdictValue {
                run_id: r.get(0)?,
                item_id: text(1)?,
                classification_id: text(2)?,
                perspective_id: text(3)?,
                persona_id: text(4)?,
                protocol: text(5)?.parse().map_err(StoreError::Data)?,
                mode: mode.and_then(Mode::from_number),
                model: text(7)?,
                value,
                position: match (r.get::<_, Option<u32>>(10)?, r.get::<_, Option<u32>>(11)?) {
                    (Some(index), Some(items)) => Some(RequestPosition { index, items }),
                    _ => None,
                },
                // As stored: the reader checks it and counts what it refuses.
                confidence: r.get::<_, Option<f64>>(12)?,
                confidence_source: r
                    .get::<_, Option<String>>(13)?
                    .as_deref()
                    .and_then(ConfidenceSource::parse),
            });
        }
        Ok(())
    }

    fn query_verdicts(&self, tail: &str, p: impl super::db::Params) -> Result<Vec<Verdict>> {
        let mut stmt = self
            .conn
            .prepare(&format!("SELECT {VERDICT_COLUMNS} FROM verdicts {tail}"))?;
        let mut rows = stmt.query(p)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            out.push(verdict_from_row(&row)?);
        }
        Ok(out)
    }

    /// Item ids with at least one verdict (list marks).
    pub fn judged_item_ids(&self) -> Result<HashSet<String>> {
        let mut stmt = self.conn.prepare("SELECT DISTINCT item_id FROM verdicts")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect::<super::Result<HashSet<_>>>()
    }

    /// Failures of one run, or of all runs.
    pub fn failures(&self, run_id: Option<i64>) -> Result<Vec<Failure>> {
        let mut out = Vec::new();
        self.for_each_failure(run_id, |_, f| out.push(f))?;
        Ok(out)
    }

    /// Each failure with its row id (one row per request, however many
    /// combinations it covers), in order, one at a time: a raw answer can be
    /// hundreds of megabytes, so exports never hold all of them at once.
    pub fn for_each_failure(
        &self,
        run_id: Option<i64>,
        mut f: impl FnMut(i64, Failure),
    ) -> Result<()> {
        let mut stmt = self.conn.prepare(
            "SELECT run_id, kind, keys, reason, raw_response, http_status, finish_reason, request, attempt, created_at, id
             FROM failures WHERE CAST(?1 AS BIGINT) IS NULL OR run_id = ?1 ORDER BY id",
        )?;
        let mut rows = stmt.query([run_id])?;
        while let Some(r) = rows.next()? {
            let kind: String = r.get(1)?;
            let keys: String = r.get(2)?;
            let failure = Failure {
                run_id: r.get(0)?,
                kind: parse_failure_kind(&kind),
                keys: serde_json::from_str(&keys).unwrap_or_default(),
                reason: r.get(3)?,
                raw_response: r.get(4)?,
                http_status: r.get(5)?,
                finish_reason: r.get(6)?,
                request: r.get(7)?,
                attempt: r.get(8)?,
                created_at: r.get(9)?,
            };
            f(r.get(10)?, failure);
        }
        Ok(())
    }
}

const VERDICT_COLUMNS: &str = "run_id, item_id, classification_id, perspective_id, persona_id, protocol, mode, model,
    scale, value, text, evaluated_selection, selection_mismatch, latency_ms, tokens, raw, created_at,
    position, request_items, confidence, confidence_source, expected_score, server";

fn verdict_from_row(r: &super::db::Row<'_>) -> Result<Verdict> {
    let protocol: String = r.get(5)?;
    let mode: Option<u8> = r.get(6)?;
    let scale: String = r.get(8)?;
    let value: String = r.get(9)?;
    let scale = Scale::parse_name(&scale)
        .ok_or_else(|| StoreError::Data(format!("unknown scale '{scale}' in a verdict")))?;
    let value = scale
        .parse(&value)
        .map_err(|e| StoreError::Data(format!("verdict value: {e}")))?;
    Ok(Verdict {
        run_id: r.get(0)?,
        key: ComboKey::new(
            &r.get::<_, String>(1)?,
            &r.get::<_, String>(2)?,
            &r.get::<_, String>(3)?,
        ),
        persona_id: r.get(4)?,
        protocol: protocol.parse().map_err(|e: String| StoreError::Data(e))?,
        mode: mode.and_then(Mode::from_number),
        model: r.get(7)?,
        value,
        text: r.get(10)?,
        evaluated_selection: r.get(11)?,
        selection_mismatch: r.get(12)?,
        latency_ms: r.get::<_, i64>(13)? as u64,
        tokens: r.get::<_, i64>(14)? as u64,
        raw: r.get(15)?,
        created_at: r.get(16)?,
        position: match (r.get::<_, Option<u32>>(17)?, r.get::<_, Option<u32>>(18)?) {
            (Some(index), Some(items)) => Some(RequestPosition { index, items }),
            _ => None,
        },
        confidence: confidence_from(r.get(19)?, r.get(20)?, r.get(21)?),
        server: r.get(22)?,
    })
}

/// A stored confidence as read: a probability in [0, 1], else unknown.
fn valid_confidence(c: Option<f64>) -> Option<f64> {
    c.filter(|c| c.is_finite() && (0.0..=1.0).contains(c))
}

/// The stored confidence columns as a [`Confidence`]; a value without a
/// known source, or outside (0, 1], reads as unknown.
fn confidence_from(
    value: Option<f64>,
    source: Option<String>,
    expected_score: Option<f64>,
) -> Option<Confidence> {
    let value = valid_confidence(value)?;
    let source = ConfidenceSource::parse(source.as_deref()?)?;
    Some(Confidence {
        value,
        source,
        expected_score: expected_score.filter(|s| s.is_finite()),
    })
}

fn parse_failure_kind(s: &str) -> FailureKind {
    match s {
        "invalid" => FailureKind::Invalid,
        "malformed" => FailureKind::Malformed,
        "truncated" => FailureKind::Truncated,
        "length" => FailureKind::Length,
        "content_filter" => FailureKind::ContentFilter,
        "refusal" => FailureKind::Refusal,
        "cancelled" => FailureKind::Cancelled,
        _ => FailureKind::Provider,
    }
}

/// A verdict's identity and value, borrowed from a store row.
#[derive(Debug, Clone, Copy)]
pub struct VerdictValue<'a> {
    pub run_id: i64,
    pub item_id: &'a str,
    pub classification_id: &'a str,
    pub perspective_id: &'a str,
    pub persona_id: &'a str,
    pub protocol: Protocol,
    pub mode: Option<Mode>,
    pub model: &'a str,
    pub value: Value,
    pub position: Option<RequestPosition>,
    /// The confidence stored with the verdict, if any, and where it came
    /// from (`None`: not recorded, as on verdicts stored before sources
    /// were: token probabilities).
    pub confidence: Option<f64>,
    pub confidence_source: Option<ConfidenceSource>,
}

/// Inserts `vs` on `conn` (inside a transaction the caller owns), pushing
/// for each whether it was new (a repeat of a stored combination is ignored).
pub(super) fn insert_verdicts_on(
    conn: &super::db::Db,
    vs: &[Verdict],
    fresh: &mut Vec<bool>,
) -> Result<()> {
    let mut hash_of = conn.prepare_cached("SELECT prompt_hash FROM runs WHERE id = ?1")?;
    let mut insert = conn.prepare_cached(
        "INSERT INTO verdicts (run_id, item_id, classification_id, perspective_id, persona_id, protocol, mode,
           model, prompt_hash, scale, value, text, evaluated_selection, selection_mismatch, latency_ms, tokens, raw, created_at,
           position, request_items, confidence, confidence_source, expected_score, server)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20,
           ?21, ?22, ?23, ?24)
         ON CONFLICT DO NOTHING",
    )?;
    let mut known: Option<(i64, String)> = None;
    for v in vs {
        let prompt_hash = match &known {
            Some((run, hash)) if *run == v.run_id => hash.clone(),
            _ => {
                let hash: String = hash_of.query_row([v.run_id], |r| r.get(0))?;
                known = Some((v.run_id, hash.clone()));
                hash
            }
        };
        let n = insert.execute(params![
            v.run_id,
            v.key.item_id,
            v.key.classification_id,
            v.key.perspective_id,
            v.persona_id,
            v.protocol.as_str(),
            v.mode.map(|m| m.number()),
            v.model,
            prompt_hash,
            v.value.scale().as_str(),
            v.value.as_text(),
            v.text,
            v.evaluated_selection,
            v.selection_mismatch,
            v.latency_ms as i64,
            v.tokens as i64,
            v.raw,
            v.created_at,
            v.position.map(|p| p.index),
            v.position.map(|p| p.items),
            v.confidence.map(|c| c.value),
            v.confidence.map(|c| c.source.as_str()),
            v.confidence.and_then(|c| c.expected_score),
            v.server
        ])?;
        fresh.push(n == 1);
    }
    Ok(())
}

/// [`Store::judged_keys`] on a connection or a transaction (a claim reads
/// it under the write lock it claims with).
pub(super) fn judged_keys_on(
    conn: &super::db::Db,
    f: &VerdictFilter<'_>,
) -> Result<HashSet<ComboKey>> {
    let mut stmt = conn.prepare(
            "SELECT item_id, classification_id, perspective_id FROM verdicts
             WHERE persona_id = ?1 AND protocol = ?2 AND mode IS NOT DISTINCT FROM ?3 AND model = ?4 AND prompt_hash = ?5",
        )?;
    let rows = stmt.query_map(
        params![
            f.persona_id,
            f.protocol.as_str(),
            f.mode.map(|m| m.number()),
            f.model,
            f.prompt_hash
        ],
        |r| {
            Ok(ComboKey::new(
                &r.get::<_, String>(0)?,
                &r.get::<_, String>(1)?,
                &r.get::<_, String>(2)?,
            ))
        },
    )?;
    rows.collect::<super::Result<HashSet<_>>>()
}
