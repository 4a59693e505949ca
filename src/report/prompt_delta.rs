//! Prompt versions (DESIGN §7): when the same judge (protocol, mode, model)
//! ran with two or more prompt sets, judge-vs-human agreement per
//! classification for each version, in the order the versions were first
//! run, and the change from the previous version.

use super::GroupBy;
use super::GroupFigures;
use super::pairs::{Comparison, Pair};
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
    pub n: usize,
    pub percent_agreement: Option<f64>,
    pub cohen_kappa: Option<f64>,
    /// Change in percent agreement from the previous version.
    pub delta_percent_agreement: Option<f64>,
    pub delta_cohen_kappa: Option<f64>,
}

const MARK: &str = " · prompts ";

/// Judge, person, classification, scale.
type DeltaKey = (String, String, String, String);

/// `first_run_of` orders prompt hashes by the first run that used them.
pub fn deltas(
    pairs: &BTreeMap<Comparison, Vec<Pair>>,
    first_run_of: &dyn Fn(&str) -> i64,
) -> Vec<PromptDelta> {
    let versioned: Vec<Pair> = pairs
        .get(&Comparison::JudgeVsHuman)
        .into_iter()
        .flatten()
        .filter(|p| p.left.contains(MARK))
        .cloned()
        .collect();
    if versioned.is_empty() {
        return Vec::new();
    }
    let mut only = BTreeMap::new();
    only.insert(Comparison::JudgeVsHuman, versioned);
    let groups: Vec<GroupFigures> =
        super::compute_from(&only, Some(GroupBy::Classification), Some(0), 0);
    // (judge, person, classification, scale) → versions.
    let mut by: BTreeMap<DeltaKey, Vec<(i64, Version)>> = BTreeMap::new();
    for g in groups {
        let Some((judge, prompts)) = g.left.split_once(MARK) else {
            continue;
        };
        let classification = g.group.split(" · ").next().unwrap_or("").to_string();
        let v = Version {
            prompts: prompts.to_string(),
            n: g.figures.n,
            percent_agreement: g.figures.percent_agreement.value,
            cohen_kappa: g.figures.cohen_kappa.value,
            delta_percent_agreement: None,
            delta_cohen_kappa: None,
        };
        by.entry((
            judge.to_string(),
            g.right.clone(),
            classification,
            g.scale.as_str().to_string(),
        ))
        .or_default()
        .push((first_run_of(prompts), v));
    }
    by.into_iter()
        .filter(|(_, vs)| vs.len() > 1)
        .map(|((judge, person, classification, scale), mut vs)| {
            vs.sort_by_key(|(first, _)| *first);
            let mut versions: Vec<Version> = vs.into_iter().map(|(_, v)| v).collect();
            for i in 1..versions.len() {
                let d = |a: Option<f64>, b: Option<f64>| Some(b? - a?);
                versions[i].delta_percent_agreement = d(
                    versions[i - 1].percent_agreement,
                    versions[i].percent_agreement,
                );
                versions[i].delta_cohen_kappa =
                    d(versions[i - 1].cohen_kappa, versions[i].cohen_kappa);
            }
            PromptDelta {
                judge,
                person,
                classification,
                scale,
                versions,
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
        "prompt versions: judge vs human per classification (Δ from the previous version)".into(),
    ];
    for d in deltas {
        out.push(format!(
            "{} vs {} · {} ({})",
            crate::sanitize::one_line(&d.judge, 40),
            crate::sanitize::one_line(&d.person, 20),
            crate::sanitize::one_line(&d.classification, 30),
            d.scale
        ));
        for v in &d.versions {
            out.push(format!(
                "    prompts {:<10} n {:>5}  agree {} ({})  kappa {} ({})",
                crate::sanitize::one_line(&v.prompts, 10),
                v.n,
                g(v.percent_agreement),
                f(v.delta_percent_agreement),
                g(v.cohen_kappa),
                f(v.delta_cohen_kappa)
            ));
        }
    }
    out
}
