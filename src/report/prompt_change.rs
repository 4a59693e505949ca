//! The change a new prompt version made, measured honestly: for one judge
//! and one person, every classification pooled, on the combinations *both*
//! versions judged, with a paired bootstrap 95 % interval (each resample
//! draws combinations, and both versions' answers on a drawn combination go
//! together). On the `test` side of a split this is the one line a
//! researcher can quote: "prompts a1b2 → c3d4 raised κ from 0.41 to 0.58
//! [0.49, 0.66] on 120 held-out combinations".

use super::pairs::{Comparison, Pair};
use crate::analytics::ConfusionMatrix;
use crate::analytics::Xoshiro256pp;
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
    /// Combinations both versions judged (and the person labelled).
    pub n: usize,
    pub kappa_from: Option<f64>,
    pub kappa_to: Option<f64>,
    pub kappa_to_ci95: Option<[f64; 2]>,
    pub delta_kappa: Option<f64>,
    pub delta_kappa_ci95: Option<[f64; 2]>,
    pub agree_from: Option<f64>,
    pub agree_to: Option<f64>,
    pub delta_agree: Option<f64>,
    pub delta_agree_ci95: Option<[f64; 2]>,
}

/// (judge, person, scale) → version → combination → (judge value, person value).
type ByVersion =
    BTreeMap<(String, String, String), BTreeMap<String, BTreeMap<Arc<ComboKey>, (Value, Value)>>>;

/// Every consecutive version change (versions ordered by `first_run_of`).
pub fn changes(
    pairs: &BTreeMap<Comparison, Vec<Pair>>,
    first_run_of: &dyn Fn(&str) -> i64,
    resamples: usize,
    seed: u64,
) -> Vec<PromptChange> {
    let mut by: ByVersion = BTreeMap::new();
    for p in pairs.get(&Comparison::JudgeVsHuman).into_iter().flatten() {
        let Some((judge, prompts)) = p.left.split_once(MARK) else {
            continue;
        };
        let Some((a, b)) = on_one_scale(p.a, p.b) else {
            continue;
        };
        by.entry((
            judge.to_string(),
            p.right.to_string(),
            a.scale().as_str().to_string(),
        ))
        .or_default()
        .entry(prompts.to_string())
        .or_default()
        .insert(p.ctx.key.clone(), (a, b));
    }
    let mut out = Vec::new();
    for ((judge, person, scale), versions) in by {
        let mut order: Vec<&String> = versions.keys().collect();
        order.sort_by_key(|v| first_run_of(v));
        for w in order.windows(2) {
            let (old, new) = (&versions[w[0]], &versions[w[1]]);
            let both: Vec<[(u8, u8); 2]> = old
                .iter()
                .filter_map(|(key, a)| {
                    let b = new.get(key)?;
                    Some([
                        (a.0.ordinal(), a.1.ordinal()),
                        (b.0.ordinal(), b.1.ordinal()),
                    ])
                })
                .collect();
            let k = old
                .values()
                .next()
                .map_or(0, |(v, _)| v.scale().values().len());
            out.push(change(
                judge.clone(),
                person.clone(),
                scale.clone(),
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
fn on_one_scale(a: Value, b: Value) -> Option<(Value, Value)> {
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

fn kappa(pairs: &[(u8, u8)], k: usize) -> Option<f64> {
    ConfusionMatrix::from_pairs(pairs, k)?.cohen_kappa()
}

fn agree(pairs: &[(u8, u8)], k: usize) -> Option<f64> {
    ConfusionMatrix::from_pairs(pairs, k)?.percent_agreement()
}

#[allow(clippy::too_many_arguments)]
fn change(
    judge: String,
    person: String,
    scale: String,
    versions: &[&String],
    both: &[[(u8, u8); 2]],
    k: usize,
    resamples: usize,
    seed: u64,
) -> PromptChange {
    let side =
        |i: usize, draw: &[usize]| -> Vec<(u8, u8)> { draw.iter().map(|&j| both[j][i]).collect() };
    let all: Vec<usize> = (0..both.len()).collect();
    let (old, new) = (side(0, &all), side(1, &all));
    let kappa_from = kappa(&old, k);
    let kappa_to = kappa(&new, k);
    let agree_from = agree(&old, k);
    let agree_to = agree(&new, k);
    // Paired resamples: one draw of combinations serves both versions.
    let (mut to, mut dk, mut da) = (Vec::new(), Vec::new(), Vec::new());
    let n = both.len();
    if n > 0 {
        let mut draw = vec![0usize; n];
        for r in 0..resamples {
            let mut rng = Xoshiro256pp::for_stream(seed, r as u64);
            for d in draw.iter_mut() {
                *d = rng.below(n as u64) as usize;
            }
            let (o, w) = (side(0, &draw), side(1, &draw));
            let (ko, kn) = (kappa(&o, k), kappa(&w, k));
            if let Some(kn) = kn.filter(|v| v.is_finite()) {
                to.push(kn);
                if let Some(ko) = ko.filter(|v| v.is_finite()) {
                    dk.push(kn - ko);
                }
            }
            if let (Some(ao), Some(an)) = (agree(&o, k), agree(&w, k)) {
                da.push(an - ao);
            }
        }
    }
    let ci = |v: &mut Vec<f64>| crate::analytics::percentile_interval(v).map(|(a, b)| [a, b]);
    let d = |a: Option<f64>, b: Option<f64>| Some(b? - a?);
    PromptChange {
        judge,
        person,
        scale,
        from: versions[0].clone(),
        to: versions[1].clone(),
        n,
        kappa_from,
        kappa_to,
        kappa_to_ci95: ci(&mut to),
        delta_kappa: d(kappa_from, kappa_to),
        delta_kappa_ci95: ci(&mut dk),
        agree_from,
        agree_to,
        delta_agree: d(agree_from, agree_to),
        delta_agree_ci95: ci(&mut da),
    }
}

/// One line per change, the kind a paper quotes.
pub fn table(changes: &[PromptChange]) -> Vec<String> {
    if changes.is_empty() {
        return Vec::new();
    }
    let v = |x: Option<f64>| x.map_or("–".into(), |x| format!("{x:.2}"));
    let ci = |c: Option<[f64; 2]>| c.map_or(String::new(), |[a, b]| format!(" [{a:.2}, {b:.2}]"));
    let signed = |x: Option<f64>| x.map_or("–".into(), |x| format!("{x:+.2}"));
    let mut out = vec![
        String::new(),
        "prompt version changes: judge vs human on the combinations both versions judged".into(),
        "(every classification pooled; paired bootstrap 95 % intervals)".into(),
    ];
    for c in changes {
        // Two lines each, so they fit 120 columns whatever the names.
        out.push(format!(
            "  {} vs {} ({}): prompts {} → {} on {} combination(s)",
            crate::sanitize::one_line(&c.judge, 50),
            crate::sanitize::one_line(&c.person, 20),
            c.scale,
            crate::sanitize::one_line(&c.from, 12),
            crate::sanitize::one_line(&c.to, 12),
            c.n
        ));
        out.push(format!(
            "     kappa {} → {}{}, Δ {}{}; agreement Δ {}{}",
            v(c.kappa_from),
            v(c.kappa_to),
            ci(c.kappa_to_ci95),
            signed(c.delta_kappa),
            ci(c.delta_kappa_ci95),
            signed(c.delta_agree),
            ci(c.delta_agree_ci95),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (old judge, human) and (new judge, human) for one combination.
    type Answers = ((u8, u8), (u8, u8));

    fn both(pairs: &[Answers]) -> Vec<[(u8, u8); 2]> {
        pairs.iter().map(|(a, b)| [*a, *b]).collect()
    }

    #[test]
    fn a_better_version_shows_a_positive_paired_delta() {
        // 40 combinations: the old version agrees on half, the new on all.
        let data: Vec<Answers> = (0..40u8)
            .map(|i| {
                let human = i % 2;
                let old = if i % 4 < 2 { human } else { 1 - human };
                ((old, human), (human, human))
            })
            .collect();
        let v = ["a".to_string(), "b".to_string()];
        let c = change(
            "j".into(),
            "p".into(),
            "agreement".into(),
            &[&v[0], &v[1]],
            &both(&data),
            2,
            500,
            7,
        );
        assert_eq!(c.n, 40);
        assert_eq!(c.kappa_to, Some(1.0));
        assert!(c.delta_kappa.unwrap() > 0.9);
        let [lo, hi] = c.delta_kappa_ci95.unwrap();
        // Kappa lies in [-1, 1], so a change lies in [-2, 2].
        assert!(lo > 0.5 && hi <= 2.0, "[{lo}, {hi}]");
        let [alo, _] = c.delta_agree_ci95.unwrap();
        assert!(alo > 0.3);
    }

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

    #[test]
    fn the_same_answers_give_no_change_and_the_same_seed_the_same_interval() {
        let data: Vec<Answers> = (0..30u8)
            .map(|i| ((i % 3, i % 2), (i % 3, i % 2)))
            .collect();
        let v = ["a".to_string(), "b".to_string()];
        let c1 = change(
            "j".into(),
            "p".into(),
            "likert".into(),
            &[&v[0], &v[1]],
            &both(&data),
            5,
            300,
            3,
        );
        let c2 = change(
            "j".into(),
            "p".into(),
            "likert".into(),
            &[&v[0], &v[1]],
            &both(&data),
            5,
            300,
            3,
        );
        assert_eq!(c1.delta_kappa, Some(0.0));
        assert_eq!(c1.delta_kappa_ci95, Some([0.0, 0.0]));
        assert_eq!(c1, c2);
    }
}
