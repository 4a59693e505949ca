//! Self-consistency (docs/design.md §7): how often a judge changes its answer —
//! between two runs of the same configuration on the same combination
//! (test-retest), and under the proposition protocol's "are you sure?"
//! double check — per judge and mode, each with its n.

use super::pairs::{Comparison, Pair};
use crate::store::Store;
use serde::Serialize;
use std::collections::BTreeMap;

/// Flip rates of one judge configuration.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FlipRate {
    /// e.g. "awag mode 2 · gpt-4o-mini" or "proposition · gpt-4o-mini".
    pub judge: String,
    /// Pairs of runs of this judge on the same combination, and how many differ.
    pub retest_pairs: u64,
    pub retest_changed: u64,
    pub retest_flip_rate: Option<f64>,
    /// Its exact 95 % interval (a share: one at every n).
    pub retest_flip_ci: Option<[f64; 2]>,
    /// Verdicts asked "are you sure?", and how many the judge revised.
    pub double_checked: u64,
    pub double_check_flipped: u64,
    pub double_check_flip_rate: Option<f64>,
    pub double_check_flip_ci: Option<[f64; 2]>,
}

fn rate(k: u64, n: u64) -> Option<f64> {
    (n > 0).then(|| k as f64 / n as f64)
}

/// Test-retest from the run-vs-run pairs, double checks from the store
/// (a double-checked verdict keeps `{"first", "revised", "flipped"}` as raw).
pub fn flip_rates(
    pairs: &BTreeMap<Comparison, Vec<Pair>>,
    store: &Store,
) -> crate::store::Result<Vec<FlipRate>> {
    let mut by = retests(pairs);
    for (judge, flipped) in store.double_checks()? {
        let e = by.entry(judge).or_default();
        e.double_checked += 1;
        e.double_check_flipped += u64::from(flipped);
    }
    Ok(finish(by))
}

/// Retest flips only: the double checks carry no item ids, so a report on
/// one side of a split cannot tell which of them belong to it.
pub fn retest_flip_rates(pairs: &BTreeMap<Comparison, Vec<Pair>>) -> Vec<FlipRate> {
    finish(retests(pairs))
}

fn retests(pairs: &BTreeMap<Comparison, Vec<Pair>>) -> BTreeMap<String, FlipRate> {
    let mut by: BTreeMap<String, FlipRate> = BTreeMap::new();
    for p in pairs.get(&Comparison::RunVsRun).into_iter().flatten() {
        let judge = crate::domain::judge_name(p.ctx.protocol, p.ctx.mode, &p.ctx.model);
        let e = by.entry(judge).or_default();
        e.retest_pairs += 1;
        e.retest_changed += u64::from(p.a != p.b);
    }
    by
}

fn finish(by: BTreeMap<String, FlipRate>) -> Vec<FlipRate> {
    by.into_iter()
        .map(|(judge, mut e)| {
            e.judge = judge;
            e.retest_flip_rate = rate(e.retest_changed, e.retest_pairs);
            e.retest_flip_ci = crate::analytics::wilson(e.retest_changed, e.retest_pairs);
            e.double_check_flip_rate = rate(e.double_check_flipped, e.double_checked);
            e.double_check_flip_ci =
                crate::analytics::exact_share(e.double_check_flipped, e.double_checked);
            e
        })
        .collect()
}

/// The flip rates as table lines (empty when there is nothing to show).
pub fn table(rates: &[FlipRate]) -> Vec<String> {
    if rates.is_empty() {
        return Vec::new();
    }
    let fmt = |k: u64, n: u64, r: Option<f64>, ci: Option<[f64; 2]>| match (r, ci) {
        (Some(r), Some([lo, hi])) => format!("{r:.3} [{lo:.2},{hi:.2}] ({k}/{n})"),
        (Some(r), None) => format!("{r:.3} ({k}/{n})"),
        (None, _) => "–".into(),
    };
    let mut out = vec![
        String::new(),
        format!(
            "{:<40} {:>30} {:>30}",
            "self-consistency", "flips between runs", "flips when asked again"
        ),
    ];
    for r in rates {
        out.push(format!(
            "{:<40} {:>30} {:>30}",
            crate::sanitize::one_line(&r.judge, 40),
            fmt(
                r.retest_changed,
                r.retest_pairs,
                r.retest_flip_rate,
                r.retest_flip_ci
            ),
            fmt(
                r.double_check_flipped,
                r.double_checked,
                r.double_check_flip_rate,
                r.double_check_flip_ci
            ),
        ));
    }
    out
}
