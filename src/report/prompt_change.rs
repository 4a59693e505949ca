//! The change a new prompt version made, measured honestly: for one judge
//! and one person, every classification pooled, on the combinations *both*
//! versions judged, with a paired bootstrap 95 % interval (each resample
//! draws combinations, and both versions' answers on a drawn combination go
//! together). On the `test` side of a split this is the one line a
//! researcher can quote: "prompts a1b2 → c3d4 raised κ from 0.41 to 0.58
//! [0.49, 0.66] on 120 held-out combinations".

use super::paired::{Both, PairedDelta, ci_or_reason, paired_delta};
use super::pairs::{Comparison, Pair};
use crate::domain::{ComboKey, Value};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

const MARK: &str = " · prompts ";

/// One version change for one judge and person.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptChange {
    pub judge: String,
    pub person: String,
    pub scale: String,
    pub from: String,
    pub to: String,
    /// `from` and `to` by name (`prompts-v2 (34eb1475)`), when runs
    /// recorded their folders ([`prompt_names`](super::prompt_names)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_version: Option<String>,
    /// On the combinations both versions judged (and the person labelled).
    #[serde(flatten)]
    pub paired: PairedDelta,
}

impl PromptChange {
    /// `prompts 4ad49c21 → 34eb1475`, or by name where runs recorded their
    /// folders: `embedded (4ad49c21) → prompts-v2 (34eb1475)`.
    pub fn versions_text(&self) -> String {
        versions_text(
            (&self.from, self.from_version.as_deref()),
            (&self.to, self.to_version.as_deref()),
        )
    }
}

/// `prompts 4ad49c21 → 34eb1475`, or with names where they are known:
/// `embedded (4ad49c21) → prompts-v2 (34eb1475)` (each a hash and its name).
pub fn versions_text(from: (&str, Option<&str>), to: (&str, Option<&str>)) -> String {
    let short = |h: &str| crate::sanitize::one_line(h, 12);
    match (from.1, to.1) {
        (None, None) => format!("prompts {} → {}", short(from.0), short(to.0)),
        (f, t) => format!(
            "{} → {}",
            super::prompt_names::shown_version(&short(from.0), f),
            super::prompt_names::shown_version(&short(to.0), t)
        ),
    }
}

/// Each prompt version's (judge value, person value) per combination.
pub(super) type Versions = BTreeMap<String, BTreeMap<Arc<ComboKey>, (Value, Value)>>;

/// Judge vs human pairs of judges that ran several prompt sets, by (judge,
/// person, classification when `per_classification`, scale) and version:
/// what both the pooled changes and the per-classification deltas pair.
pub(super) fn by_version(
    pairs: &BTreeMap<Comparison, Vec<Pair>>,
    per_classification: bool,
) -> BTreeMap<(String, String, String, String), Versions> {
    let mut by: BTreeMap<(String, String, String, String), Versions> = BTreeMap::new();
    for p in pairs.get(&Comparison::JudgeVsHuman).into_iter().flatten() {
        let Some((judge, prompts)) = p.left.split_once(MARK) else {
            continue;
        };
        let Some((a, b)) = on_one_scale(p.a, p.b) else {
            continue;
        };
        let classification = if per_classification {
            p.ctx.key.classification_id.clone()
        } else {
            String::new()
        };
        by.entry((
            judge.to_string(),
            p.right.to_string(),
            classification,
            a.scale().as_str().to_string(),
        ))
        .or_default()
        .entry(prompts.to_string())
        .or_default()
        .insert(p.ctx.key.clone(), (a, b));
    }
    by
}

/// Versions in the order they were first run.
pub(super) fn in_run_order<'a>(
    versions: &'a Versions,
    first_run_of: &dyn Fn(&str) -> i64,
) -> Vec<&'a String> {
    let mut order: Vec<&String> = versions.keys().collect();
    order.sort_by_key(|v| first_run_of(v));
    order
}

/// The scale's category count of a group's versions (one scale per group).
pub(super) fn categories(versions: &Versions) -> usize {
    versions
        .values()
        .flat_map(|m| m.values())
        .next()
        .map_or(0, |(v, _)| v.scale().values().len())
}

/// The combinations both versions judged, as `[old, new]` pairs.
pub(super) fn both_judged(versions: &Versions, old: &str, new: &str) -> Vec<Both> {
    let (old, new) = (&versions[old], &versions[new]);
    old.iter()
        .filter_map(|(key, a)| {
            let b = new.get(key)?;
            Some([
                (a.0.ordinal(), a.1.ordinal()),
                (b.0.ordinal(), b.1.ordinal()),
            ])
        })
        .collect()
}

/// Every consecutive version change (versions ordered by `first_run_of`).
pub fn changes(
    pairs: &BTreeMap<Comparison, Vec<Pair>>,
    first_run_of: &dyn Fn(&str) -> i64,
    resamples: usize,
    seed: u64,
) -> Vec<PromptChange> {
    let mut out = Vec::new();
    for ((judge, person, _, scale), versions) in by_version(pairs, false) {
        let order = in_run_order(&versions, first_run_of);
        let k = categories(&versions);
        for w in order.windows(2) {
            let both = both_judged(&versions, w[0], w[1]);
            out.push(change(
                (judge.clone(), person.clone(), scale.clone()),
                w,
                &both,
                k,
                resamples,
                seed,
            ));
        }
    }
    out
}

/// A pair on one scale: as it is when both sides share one; a cross-scale
/// pair (mode 3's AGREE/DISAGREE against a Likert label) read as agreement,
/// as the report's groups read it (a Likert 3 is undecided and left out).
pub(super) fn on_one_scale(a: Value, b: Value) -> Option<(Value, Value)> {
    if a.scale() == b.scale() {
        return Some((a, b));
    }
    if a.scale() != crate::domain::Scale::Agreement && b.scale() != crate::domain::Scale::Agreement
    {
        return None;
    }
    Some((
        Value::Agreement(a.as_agreement()?),
        Value::Agreement(b.as_agreement()?),
    ))
}

fn change(
    (judge, person, scale): (String, String, String),
    versions: &[&String],
    both: &[Both],
    k: usize,
    resamples: usize,
    seed: u64,
) -> PromptChange {
    PromptChange {
        judge,
        person,
        scale,
        from: versions[0].clone(),
        to: versions[1].clone(),
        from_version: None,
        to_version: None,
        paired: paired_delta(both, k, resamples, seed),
    }
}

/// One line per change, the kind a paper quotes.
pub fn table(changes: &[PromptChange]) -> Vec<String> {
    if changes.is_empty() {
        return Vec::new();
    }
    let v = |x: Option<f64>| x.map_or("–".into(), |x| format!("{x:.2}"));
    let signed = |x: Option<f64>| x.map_or("–".into(), |x| format!("{x:+.2}"));
    let mut out = vec![
        String::new(),
        "prompt version changes: judge vs human on the combinations both versions judged".into(),
        "(every classification pooled; paired bootstrap 95 % intervals)".into(),
    ];
    for c in changes {
        // Two lines each, so they fit 120 columns whatever the names.
        out.push(format!(
            "  {} vs {} ({}): {} on {} combination(s)",
            crate::sanitize::one_line(&c.judge, 50),
            crate::sanitize::one_line(&c.person, 20),
            c.scale,
            c.versions_text(),
            c.paired.n
        ));
        let p = &c.paired;
        if p.n == 0 {
            out.push("     no combination judged by both versions: no change to show".into());
            continue;
        }
        out.push(format!(
            "     kappa {} → {}{}, Δ {}{}; agreement {} → {}, Δ {}{}",
            v(p.kappa_from.value),
            v(p.kappa_to.value),
            ci_or_reason(&p.kappa_to),
            signed(p.delta_kappa.value),
            ci_or_reason(&p.delta_kappa),
            v(p.agree_from.value),
            v(p.agree_to.value),
            signed(p.delta_agree.value),
            ci_or_reason(&p.delta_agree),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_3_against_likert_labels_is_read_as_agreement() {
        use crate::domain::Agreement::*;
        let ag = Value::Agreement;
        assert_eq!(
            on_one_scale(ag(Agree), Value::Likert(5)),
            Some((ag(Agree), ag(Agree)))
        );
        assert_eq!(
            on_one_scale(Value::Likert(1), ag(Agree)),
            Some((ag(Disagree), ag(Agree)))
        );
        // Undecided, and two scales neither of which is agreement: left out.
        assert_eq!(on_one_scale(ag(Agree), Value::Likert(3)), None);
        assert_eq!(on_one_scale(Value::Likert(4), Value::Score(4)), None);
        assert_eq!(
            on_one_scale(Value::Likert(4), Value::Likert(2)),
            Some((Value::Likert(4), Value::Likert(2)))
        );
    }
}
