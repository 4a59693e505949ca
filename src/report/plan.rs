//! `jury plan` (issue #33): per classification and judge configuration, how
//! many more labels an interval of ±w needs under labels alone, uniform
//! PPI++ and the active order ([`crate::analytics::active_plan`]), and the
//! width after N more. The active order's probabilities are those it
//! would give now (the judge's current verdicts).

use super::active_order::{population, stratum_probabilities};
use super::estimate::Estimate;
use super::pairs::Readings;
use crate::analytics::active_design::FLOOR;
use crate::analytics::active_plan::{Seen, plans};
use crate::analytics::ppi::z_two_sided;
use crate::domain::ComboKey;
use serde::Serialize;
use std::collections::HashMap;
use std::sync::Arc;

/// Per scheme, a figure.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PerScheme<T> {
    pub labels_alone: T,
    pub uniform: T,
    pub active: T,
}

/// One classification and judge configuration's plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlanRow {
    pub classification: String,
    pub perspective: String,
    pub judge: String,
    pub persona: String,
    pub half_width: f64,
    pub alpha: f64,
    /// More labels for ±`half_width` (`None`: not reachable, the judge's
    /// own term is wider, or nothing to learn from yet).
    pub labels_alone: Option<usize>,
    pub uniform: Option<usize>,
    pub active: Option<usize>,
    /// Labels each scheme's line uses now.
    pub labels_now: PerScheme<usize>,
    /// `at` more labels, and the half-width each scheme would then give.
    pub at: usize,
    pub width_at: PerScheme<Option<f64>>,
    /// The combinations (labelled or not) and PPI++'s λ the plan used.
    #[serde(rename = "N")]
    pub big_n: usize,
    pub lambda: f64,
}

/// The plans for every estimate with labels (of `classification` only,
/// when given), half-width `w` at level 1 − `alpha`, widths after `at`
/// more labels.
pub fn plan_rows(
    es: &[Estimate],
    readings: &Readings,
    w: f64,
    alpha: f64,
    at: usize,
    classification: Option<&str>,
) -> Vec<PlanRow> {
    let members = population(readings, None);
    let probs = stratum_probabilities(&members, FLOOR);
    let p_now: HashMap<(&str, &ComboKey), f64> = members
        .iter()
        .zip(&probs)
        .map(|(m, (p, _))| ((&*m.persona, &*m.key), *p))
        .collect();
    let z = z_two_sided(alpha);
    es.iter()
        .filter(|e| classification.is_none_or(|c| c == e.classification))
        .filter_map(|e| {
            let parts = e.plan_parts.as_ref()?;
            let m = parts.m;
            // Among a group pooling strata, a draw picks a combination of
            // stratum s with p · size(s)/M (as the estimate reads it).
            let pooled = |k: &(Arc<str>, Arc<ComboKey>)| {
                parts
                    .strata
                    .iter()
                    .find(|(s, _)| {
                        *s.0 == *k.0 && s.1 == k.1.classification_id && s.2 == k.1.perspective_id
                    })
                    .map_or(1.0, |(_, n)| *n as f64 / m as f64)
            };
            let now = |k: &(Arc<str>, Arc<ComboKey>)| {
                p_now
                    .get(&(&*k.0, &*k.1))
                    .map(|p| p * pooled(k))
                    .unwrap_or(1.0 / m as f64)
            };
            let labels: Vec<(f64, f64)> = parts.labels.iter().map(|l| (l.0, l.1)).collect();
            let draws: Vec<Seen> = if parts.draws.is_empty() {
                // No draw of known probability yet: learn from the labels
                // as if they were a uniform sample.
                parts
                    .labels
                    .iter()
                    .map(|(y, y_hat, k)| Seen {
                        y: *y,
                        y_hat: *y_hat,
                        q: 1.0 / m as f64,
                        p_now: now(k),
                        count: 1,
                    })
                    .collect()
            } else {
                parts
                    .draws
                    .iter()
                    .map(|(d, k)| Seen {
                        y: d.y,
                        y_hat: d.y_hat,
                        q: match d.design {
                            crate::analytics::active::Design::Uniform => 1.0 / m as f64,
                            crate::analytics::active::Design::Active => d.p,
                        },
                        p_now: now(k),
                        count: d.count,
                    })
                    .collect()
            };
            if labels.is_empty() && draws.is_empty() {
                return None;
            }
            let lambda = e
                .ppi
                .map(|p| p.lambda)
                .or(e.active.map(|a| a.lambda))
                .unwrap_or(0.0);
            let p = plans(&labels, &draws, m, parts.var_yhat, lambda, z, w, at);
            Some(PlanRow {
                classification: e.classification.clone(),
                perspective: e.perspective.clone(),
                judge: e.judge.clone(),
                persona: e.persona.clone(),
                half_width: w,
                alpha,
                labels_alone: p.labels_alone.more,
                uniform: p.uniform.more,
                active: p.active.more,
                labels_now: PerScheme {
                    labels_alone: p.labels_alone.now,
                    uniform: p.uniform.now,
                    active: p.active.now,
                },
                at,
                width_at: PerScheme {
                    labels_alone: p.labels_alone.width_at,
                    uniform: p.uniform.width_at,
                    active: p.active.width_at,
                },
                big_n: m,
                lambda,
            })
        })
        .collect()
}

/// The plans as a table.
pub fn table(rows: &[PlanRow]) -> String {
    if rows.is_empty() {
        return "nothing to plan yet: a plan needs a judge's verdicts and some people's labels on the same classification".into();
    }
    let more = |n: Option<usize>| n.map_or("not reachable".to_string(), |n| n.to_string());
    let width = |w: Option<f64>| w.map_or("-".to_string(), |w| format!("±{w:.3}"));
    let mut out = vec![format!(
        "labels still needed for an interval of ±{} ({:.0} % level), an estimate from the labels so far:",
        rows[0].half_width,
        (1.0 - rows[0].alpha) * 100.0
    )];
    for r in rows {
        let cut = |s: &str, n| crate::sanitize::one_line(s, n);
        out.push(String::new());
        out.push(format!(
            "{} · {} · {} as {} ({} combinations)",
            cut(&r.classification, 30),
            cut(&r.perspective, 30),
            cut(&r.judge, 50),
            cut(&r.persona, 20),
            r.big_n
        ));
        for (name, m, now, w) in [
            (
                "labels alone",
                r.labels_alone,
                r.labels_now.labels_alone,
                r.width_at.labels_alone,
            ),
            (
                "uniform PPI++",
                r.uniform,
                r.labels_now.uniform,
                r.width_at.uniform,
            ),
            (
                "active order",
                r.active,
                r.labels_now.active,
                r.width_at.active,
            ),
        ] {
            // A plan past the population: every combination labelled
            // gives the exact figure before that.
            let past = m.is_some_and(|m| now + m > r.big_n);
            out.push(format!(
                "   {name:<14} {:>14} more (has {now:>4}) · at {} more labels the width would be {}{}",
                more(m),
                r.at,
                width(w),
                if past {
                    " (more than the combinations: labelling all of them is cheaper)"
                } else {
                    ""
                }
            ));
        }
    }
    out.push(String::new());
    out.push(
        "The active plan assumes labels drawn in the active order from now on (jury sample --order active, or the workbench's active order); \
the uniform and labels-alone plans, labels of the random sample order."
            .into(),
    );
    out.join("\n")
}
