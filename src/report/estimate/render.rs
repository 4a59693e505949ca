//! The estimates written out: the one line a researcher quotes, the table,
//! CSV, and the lines that head the agreement view and the HTML report.

use super::{Estimate, MIN_LABELS};
use std::collections::BTreeMap;

/// Per classification, the one estimate to head a view with: the judge
/// configuration the user chose or the ranking puts first
/// ([`Choice`](crate::report::headline::Choice)), on its perspective with
/// the most labels; then, where a classification has fewer than
/// [`MIN_LABELS`] labels, that configuration's estimate pooled over every
/// classification (`pooled`, see [`super::pooled`]). Valid ones first, then
/// by labels; classifications nobody labelled under any configuration are
/// left out.
pub fn headlines(
    es: &[Estimate],
    pooled: &[Estimate],
    choice: &crate::report::headline::Choice,
) -> Vec<String> {
    let chosen = chosen(es, choice);
    let few = chosen.iter().any(|e| e.n < MIN_LABELS);
    let mut lines: Vec<String> = chosen.iter().map(|e| named(e)).collect();
    if few && chosen.len() > 1 {
        let first = chosen
            .first()
            .map(|e| (e.judge.as_str(), e.persona.as_str()));
        if let Some(p) = pooled
            .iter()
            .find(|p| Some((p.judge.as_str(), p.persona.as_str())) == first)
        {
            lines.push(named(p));
        }
    }
    lines
}

/// Per classification, the estimate a headline names (see [`headlines`]).
pub fn chosen<'a>(
    es: &'a [Estimate],
    choice: &crate::report::headline::Choice,
) -> Vec<&'a Estimate> {
    let mut by_class: BTreeMap<&str, Vec<&Estimate>> = BTreeMap::new();
    for e in es {
        by_class.entry(&e.classification).or_default().push(e);
    }
    let mut chosen: Vec<&Estimate> = by_class
        .into_values()
        .filter(|c| c.iter().any(|e| e.n > 0))
        .filter_map(|c| {
            let i = choice.pick(&c, |e| (e.judge.as_str(), e.persona.as_str()), |e| e.n)?;
            let (j, p) = (c[i].judge.as_str(), c[i].persona.as_str());
            c.iter()
                .copied()
                .filter(|e| e.judge == j && e.persona == p)
                .max_by(|a, b| {
                    a.n.cmp(&b.n)
                        .then_with(|| b.perspective.cmp(&a.perspective))
                })
        })
        .collect();
    chosen.sort_by_key(|e| (e.not_valid.is_some(), std::cmp::Reverse(e.n)));
    chosen
}

/// The headline with the configuration it is about, and how many more
/// labels would make its interval ±0.05.
fn named(e: &Estimate) -> String {
    let plan = e
        .plan
        .filter(|_| e.n > 0)
        .map_or(String::new(), |p| format!(" · {}", super::plan::text(&p)));
    format!(
        "{}{plan} ({} as {})",
        headline(e),
        crate::sanitize::one_line(&e.judge, 40),
        crate::sanitize::one_line(&e.persona, 20)
    )
}

/// Per classification, the chosen configuration's errors against people
/// and its corrected rate, one line each (the HTML report's detail).
pub fn error_lines(es: &[Estimate], choice: &crate::report::headline::Choice) -> Vec<String> {
    chosen(es, choice)
        .into_iter()
        .filter_map(|e| {
            let errors = e.judge_errors.as_ref()?;
            Some(format!(
                "{}: {}",
                crate::sanitize::one_line(&e.classification, 30),
                super::judge_errors::line(errors)
            ))
        })
        .collect()
}

fn pct(x: f64) -> String {
    format!("{x:.2}")
}

fn ci(c: [f64; 2]) -> String {
    format!("[{}, {}]", pct(c[0]), pct(c[1]))
}

/// The one line a researcher quotes, e.g. "urgency: classifier right 0.69
/// [0.60, 0.78] · judge on 400 + 80 labels · labels alone [0.59, 0.79]".
pub fn headline(e: &Estimate) -> String {
    if e.n == 0 {
        return format!(
            "{}: no person labelled it{} — label a random sample to estimate the accuracy",
            e.classification,
            e.judge_alone.map_or(String::new(), |j| format!(
                " (the judge alone reads {} right on {})",
                pct(j),
                e.big_n
            ))
        );
    }
    if e.not_valid.is_some() {
        return format!(
            "{}: no valid interval ({})",
            e.classification,
            e.not_valid.unwrap_or_default()
        );
    }
    let labels_alone = e.human_only.map_or("no decided label".into(), |h| {
        format!("labels alone {}", ci(h.ci))
    });
    // Where the normal approximation cannot hold the intervals are exact
    // or finite-sample: said on the line, as it changes how wide they are.
    let mut method = e.not_normal.map_or(String::new(), |why| {
        format!(" · finite-sample intervals ({why})")
    });
    // Pooled over classifications labelled at different rates: each
    // counts by its share of the combinations, not of the labels.
    if let Some(strata) = &e.stratified {
        method.push_str(&format!(
            " · stratified over {} classifications, each weighted by its share of the combinations",
            strata.len()
        ));
    }
    match &e.ppi {
        Some(p) => format!(
            "{}: classifier right {} {} · judge on {} + {} labels · {labels_alone}{method}",
            e.classification,
            pct(p.estimate),
            ci(p.ci),
            e.big_n,
            e.n
        ),
        None => format!(
            "{}: {labels_alone} on {} label(s) (the judge judged nothing unlabelled){method}",
            e.classification, e.n
        ),
    }
}

/// Table lines: per estimate a heading and its figures.
pub fn table(es: &[Estimate]) -> String {
    if es.is_empty() {
        return "nothing to estimate yet: the estimate needs a judge's verdicts and people's labels on the same classification (jury run, jury label or the workbench)".into();
    }
    let level = es.first().map_or(95.0, |e| (1.0 - e.alpha) * 100.0);
    let mut out = vec![format!(
        "the classifier's accuracy as people would judge it ({level:.0} % intervals; PPI++ = people's labels plus the judge's verdicts on every combination)"
    )];
    for e in es {
        out.push(String::new());
        out.push(format!(
            "{} · {} · {} as {}",
            crate::sanitize::one_line(&e.classification, 30),
            crate::sanitize::one_line(&e.perspective, 30),
            crate::sanitize::one_line(&e.judge, 50),
            crate::sanitize::one_line(&e.persona, 20),
        ));
        out.push(format!(
            "   {}",
            crate::sanitize::one_line(&headline(e), 300)
        ));
        let mut rest = Vec::new();
        if let Some(p) = &e.ppi {
            rest.push(format!("λ {:.2}", p.lambda));
        }
        if let Some(m) = e.ppi_method {
            rest.push(format!(
                "PPI++ interval: {}; labels alone: exact",
                m.as_str()
            ));
        }
        if e.judge_undecided > 0 {
            rest.push(format!(
                "{} undecided judge answer(s) kept: {}",
                e.judge_undecided, e.undecided_reading
            ));
        }
        if let (Some(w), None) = (e.worth_labels, e.not_valid) {
            let most = e
                .judge_errors
                .as_ref()
                .and_then(|j| j.most_worth_labels)
                .map_or(String::new(), |m| format!(" (at most {m:.2}×: 1/(1 − ρ²))"));
            rest.push(format!(
                "the judge's verdicts worth {w:.1}× the labels{most}"
            ));
        }
        if e.n > 0 {
            rest.push(if e.labels_chosen == 0 {
                format!("all {} labels recorded as a random sample", e.n)
            } else {
                format!(
                    "{} of {} labels not recorded as sampled: the interval assumes a random sample (--sampled-only uses the {} sampled)",
                    e.labels_chosen, e.n, e.labels_sampled
                )
            });
        }
        if e.labels_judge_selected > 0 {
            rest.push(format!(
                "{} of {} labels selected by the judge, counted as asked (--include-judge-selected): they bias the interval",
                e.labels_judge_selected, e.n
            ));
        }
        let l = &e.left_out;
        if l.people_undecided + l.labelled_by_others + l.chosen_by_hand > 0 {
            rest.push(format!(
                "left out: {} people-undecided, {} labelled by others, {} not sampled (read as unlabelled)",
                l.people_undecided, l.labelled_by_others, l.chosen_by_hand
            ));
        }
        if l.judge_selected > 0 {
            rest.push(format!(
                "{} labelled combination(s) read as unlabelled: their labels were selected by the judge (given in a list made of its verdicts, e.g. judge≠human first, or the active order), which biases PPI; --include-judge-selected counts them{}",
                l.judge_selected,
                if e.active.is_some() {
                    " (not the active order's: the active line weighs those by their draws)"
                } else {
                    ""
                }
            ));
        }
        if let Some(p) = e.plan.filter(|_| e.n > 0) {
            rest.push(super::plan::text(&p));
        }
        if !rest.is_empty() {
            out.push(format!("   {}", rest.join(" · ")));
        }
        if let Some(j) = &e.judge_errors {
            out.push(format!("   {}", super::judge_errors::line(j)));
        }
        if let Some(a) = &e.active {
            out.push(format!("   {}", super::active::text(a)));
        }
    }
    out.push(String::new());
    out.push(
        "Valid only if the labelled combinations are a random sample of all of them: labels a person \
chose (the disagreement-first queue, a search, a filter) can bias both intervals. A label is recorded as sampled when it was given on the next item of the \
workbench's random `sample` order (o cycles orders) with no filter or search, or imported as sampled."
            .into(),
    );
    out.join("\n")
}

/// CSV rows (one per estimate), untrusted names neutralised.
pub fn csv(es: &[Estimate]) -> String {
    let t = crate::report::csv::text;
    let f = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    let mut out = vec![
        "classification,perspective,judge,persona,n,N,alpha,human_only,human_only_lo,human_only_hi,ppi,ppi_lo,ppi_hi,lambda,worth_labels,people_undecided,judge_undecided,labelled_by_others,not_valid,labels_sampled,labels_chosen,chosen_by_hand,ppi_method,not_normal,judge_selected_left_out,true_positive_rate,true_positive_lower,true_negative_rate,true_negative_lower,corrected,corrected_lo,corrected_hi,rho,most_worth_labels,plan_more"
            .to_string(),
    ];
    for e in es {
        let h = e.human_only;
        let p = e.ppi;
        let j = e.judge_errors.as_ref();
        out.push(
            [
                t(&e.classification),
                t(&e.perspective),
                t(&e.judge),
                t(&e.persona),
                e.n.to_string(),
                e.big_n.to_string(),
                e.alpha.to_string(),
                f(h.map(|h| h.estimate)),
                f(h.map(|h| h.ci[0])),
                f(h.map(|h| h.ci[1])),
                f(p.map(|p| p.estimate)),
                f(p.map(|p| p.ci[0])),
                f(p.map(|p| p.ci[1])),
                f(p.map(|p| p.lambda)),
                f(e.worth_labels),
                e.left_out.people_undecided.to_string(),
                e.judge_undecided.to_string(),
                e.left_out.labelled_by_others.to_string(),
                t(e.not_valid.unwrap_or_default()),
                e.labels_sampled.to_string(),
                e.labels_chosen.to_string(),
                e.left_out.chosen_by_hand.to_string(),
                e.ppi_method
                    .map_or(String::new(), |m| m.as_str().to_string()),
                t(e.not_normal.unwrap_or_default()),
                e.left_out.judge_selected.to_string(),
                f(j.and_then(|j| j.true_positive_rate)),
                f(j.and_then(|j| j.true_positive_lower)),
                f(j.and_then(|j| j.true_negative_rate)),
                f(j.and_then(|j| j.true_negative_lower)),
                f(j.and_then(|j| j.corrected)),
                f(j.and_then(|j| j.corrected_ci.map(|c| c[0]))),
                f(j.and_then(|j| j.corrected_ci.map(|c| c[1]))),
                f(j.and_then(|j| j.rho)),
                f(j.and_then(|j| j.most_worth_labels)),
                e.plan.map(|p| p.more.to_string()).unwrap_or_default(),
            ]
            .join(","),
        );
    }
    out.join("\n")
}
