//! Prompt versions per classification (docs/design.md §7): when the same judge
//! (protocol, mode, model) ran with two or more prompt sets, each version's
//! own judge-vs-human agreement on what it judged, and — the figure to act
//! on — its change from the version before, computed only on the
//! combinations both versions judged, with paired intervals
//! ([`paired`](super::paired)). A version run on a subset never shows a
//! delta made of two different item sets.

use super::paired::{PairedDelta, ci_or_reason, paired_delta};
use super::pairs::{Comparison, Pair};
use super::prompt_change::{both_judged, by_version, categories, in_run_order};
use crate::analytics::Figure;
use serde::Serialize;
use std::collections::BTreeMap;

/// One classification, one person, one judge: agreement per prompt version.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PromptDelta {
    pub judge: String,
    pub person: String,
    pub classification: String,
    pub scale: String,
    pub versions: Vec<Version>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Version {
    pub prompts: String,
    /// `prompts` by name (`prompts-v2 (34eb1475)`), when a run recorded its
    /// folder ([`prompt_names`](super::prompt_names)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_version: Option<String>,
    /// Combinations this version judged and the person labelled.
    pub n: usize,
    /// On this version's own `n` (not comparable across versions when the
    /// item sets differ: `change` is).
    pub percent_agreement: Figure,
    pub cohen_kappa: Figure,
    /// From the previous version, on the combinations both judged; `None`
    /// for the first version.
    pub change: Option<PairedDelta>,
}

/// `first_run_of` orders prompt hashes by the first run that used them.
pub fn deltas(
    pairs: &BTreeMap<Comparison, Vec<Pair>>,
    first_run_of: &dyn Fn(&str) -> i64,
    resamples: usize,
    seed: u64,
) -> Vec<PromptDelta> {
    by_version(pairs, true)
        .into_iter()
        .filter(|(_, vs)| vs.len() > 1)
        .map(|((judge, person, classification, scale), versions)| {
            let order = in_run_order(&versions, first_run_of);
            let k = categories(&versions);
            let mut out: Vec<Version> = Vec::with_capacity(order.len());
            for (i, name) in order.iter().enumerate() {
                let mine = &versions[*name];
                let own: Vec<(u8, u8)> = mine
                    .values()
                    .map(|(a, b)| (a.ordinal(), b.ordinal()))
                    .collect();
                let f = crate::analytics::Figures::compute(&own, k, false, resamples, seed)
                    .expect("indices come from the scale itself");
                let change = (i > 0).then(|| {
                    let both = both_judged(&versions, order[i - 1], name);
                    paired_delta(&both, k, resamples, seed)
                });
                out.push(Version {
                    prompts: (*name).clone(),
                    prompt_version: None,
                    n: own.len(),
                    percent_agreement: f.percent_agreement,
                    cohen_kappa: f.cohen_kappa,
                    change,
                });
            }
            PromptDelta {
                judge,
                person,
                classification,
                scale,
                versions: out,
            }
        })
        .collect()
}

/// Table lines for the deltas (empty when no judge ran two prompt sets).
pub fn table(deltas: &[PromptDelta]) -> Vec<String> {
    if deltas.is_empty() {
        return Vec::new();
    }
    let f = |v: Option<f64>| v.map(|x| format!("{x:+.3}")).unwrap_or_else(|| "–".into());
    let g = |v: Option<f64>| v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "–".into());
    let mut out = vec![
        String::new(),
        "prompt versions: judge vs human per classification; Δ from the previous version on the combinations both judged (paired)".into(),
    ];
    for d in deltas {
        out.push(format!(
            "{} vs {} · {} ({})",
            crate::sanitize::one_line(&d.judge, 40),
            crate::sanitize::one_line(&d.person, 20),
            crate::sanitize::one_line(&d.classification, 30),
            d.scale
        ));
        // Each version by name where a run recorded its folder
        // (`prompts-v2 (34eb1475)`), else `prompts 34eb1475`; one column.
        let names: Vec<String> = d
            .versions
            .iter()
            .map(|v| {
                let hash = crate::sanitize::one_line(&v.prompts, 10);
                super::prompt_names::shown_version(&hash, v.prompt_version.as_deref())
            })
            .collect();
        let w = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
        for (v, name) in d.versions.iter().zip(&names) {
            // A version's own figures follow the interval rules of every
            // figure: agreement with its exact interval, kappa with its
            // BCa interval or the reason it has none.
            out.push(format!(
                "    {name:<w$}  n {:>5}  agree {}  kappa {}",
                v.n,
                super::figure_text(&v.percent_agreement),
                super::figure_text(&v.cohen_kappa),
            ));
            let Some(c) = &v.change else { continue };
            if c.n == 0 {
                out.push(
                    "        no combination judged by both versions: no delta (the item sets differ)"
                        .into(),
                );
                continue;
            }
            out.push(format!(
                "        Δ on {} paired: agree {} → {} {}{}  kappa {}{}",
                c.n,
                g(c.agree_from.value),
                g(c.agree_to.value),
                f(c.delta_agree.value),
                ci_or_reason(&c.delta_agree),
                f(c.delta_kappa.value),
                ci_or_reason(&c.delta_kappa),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Agreement, ComboKey, Mode, Protocol, Value};
    use crate::report::pairs::PairContext;
    use std::sync::Arc;

    fn pair(prompts: &str, item: usize, judge_ok: bool) -> Pair {
        let ag = |ok: bool| {
            Value::Agreement(if ok {
                Agreement::Agree
            } else {
                Agreement::Disagree
            })
        };
        Pair {
            ctx: PairContext {
                key: Arc::new(ComboKey::new(&format!("i{item}"), "urgency", "p")),
                protocol: Protocol::Awag,
                persona: Arc::from("kenton"),
                mode: Some(Mode::Three),
                model: Arc::from("m"),
                run: None,
            },
            left: Arc::from(format!("awag mode 3 · m · prompts {prompts}").as_str()),
            right: Arc::from("alice"),
            a: ag(judge_ok),
            b: ag(item.is_multiple_of(2)),
        }
    }

    /// Each version's own agreement is a share: it gets its exact interval
    /// at every n, and its kappa says why it has none (a version on 5 items
    /// must not read "agree 0.600 kappa 0.000" as if those were exact).
    #[test]
    fn each_versions_own_figures_carry_their_interval_or_why_not() {
        let mut ps: Vec<Pair> = (0..5).map(|i| pair("aaaa", i, i < 3)).collect();
        ps.extend((0..2).map(|i| pair("bbbb", i, true)));
        let all = BTreeMap::from([(Comparison::JudgeVsHuman, ps)]);
        let order = |h: &str| i64::from(h != "aaaa");
        let lines = table(&deltas(&all, &order, 200, 1));
        let own: Vec<&String> = lines
            .iter()
            .filter(|l| l.trim_start().starts_with("prompts "))
            .collect();
        assert_eq!(own.len(), 2, "{lines:#?}");
        let [lo, hi] = crate::analytics::exact_share(3, 5).unwrap();
        assert!(
            own[0].contains(&format!("agree 0.600 [{lo:.2},{hi:.2}]")),
            "{}",
            own[0]
        );
        assert!(own[0].contains("(n<30)"), "{}", own[0]);
        let [lo, hi] = crate::analytics::exact_share(1, 2).unwrap();
        assert!(
            own[1].contains(&format!("agree 0.500 [{lo:.2},{hi:.2}]")),
            "{}",
            own[1]
        );
        assert!(own[1].contains("kappa 0.000 (one value)"), "{}", own[1]);
    }

    /// Two versions that judged different combinations are never
    /// subtracted: both tables say there is no delta, and why.
    #[test]
    fn versions_on_different_combinations_print_no_delta() {
        let mut ps: Vec<Pair> = (0..5).map(|i| pair("aaaa", i, i < 3)).collect();
        ps.extend((5..9).map(|i| pair("bbbb", i, true)));
        let all = BTreeMap::from([(Comparison::JudgeVsHuman, ps)]);
        let order = |h: &str| i64::from(h != "aaaa");
        let lines = table(&deltas(&all, &order, 200, 1)).join("\n");
        assert!(
            lines.contains("no combination judged by both versions: no delta"),
            "{lines}"
        );
        assert!(!lines.contains("Δ on"), "{lines}");
        let changes = super::super::prompt_change::changes(&all, &order, 200, 1);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].paired.n, 0);
        assert_eq!(changes[0].paired.delta_agree.value, None);
        let lines = super::super::prompt_change::table(&changes).join("\n");
        assert!(
            lines.contains("no combination judged by both versions"),
            "{lines}"
        );
        assert!(!lines.contains("Δ"), "{lines}");
    }
}
