//! The estimates written out: the one line a researcher quotes, the table,
//! CSV, and the lines that head the agreement view and the HTML report.

use super::Estimate;
use std::collections::BTreeMap;

/// Per classification, the one estimate to head a view with: the judge
/// configuration with the most labelled combinations (then the most judged
/// ones) among those with a valid interval, else among all. Valid ones
/// first, then by labels; classifications nobody labelled are left out.
pub fn headlines(es: &[Estimate]) -> Vec<String> {
    let mut best: BTreeMap<&str, &Estimate> = BTreeMap::new();
    for e in es {
        let rank = |e: &Estimate| (e.not_valid.is_none() && e.ppi.is_some(), e.n, e.big_n);
        best.entry(&e.classification)
            .and_modify(|b| {
                if rank(e) > rank(b) {
                    *b = e;
                }
            })
            .or_insert(e);
    }
    let mut chosen: Vec<&Estimate> = best.into_values().filter(|e| e.n > 0).collect();
    chosen.sort_by_key(|e| (e.not_valid.is_some(), std::cmp::Reverse(e.n)));
    chosen
        .into_iter()
        .map(|e| {
            format!(
                "{} ({} as {})",
                headline(e),
                crate::sanitize::one_line(&e.judge, 40),
                crate::sanitize::one_line(&e.persona, 20)
            )
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
    let method = e.not_normal.map_or(String::new(), |why| {
        format!(" · finite-sample intervals ({why})")
    });
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
            rest.push(format!("the judge's verdicts worth {w:.1}× the labels"));
        }
        if e.n > 0 {
            rest.push(if e.labels_chosen == 0 {
                format!("all {} labels from the random sample order", e.n)
            } else {
                format!(
                    "{} of {} labels chosen by a person, not sampled: the interval assumes a random sample (--sampled-only uses the {} sampled)",
                    e.labels_chosen, e.n, e.labels_sampled
                )
            });
        }
        let l = &e.left_out;
        if l.people_undecided + l.labelled_by_others + l.chosen_by_hand > 0 {
            rest.push(format!(
                "left out: {} people-undecided, {} labelled by others, {} chosen by hand",
                l.people_undecided, l.labelled_by_others, l.chosen_by_hand
            ));
        }
        if !rest.is_empty() {
            out.push(format!("   {}", rest.join(" · ")));
        }
    }
    out.push(String::new());
    out.push(
        "Valid only if the labelled combinations are a random sample of all of them: labels a person \
chose (the disagreement-first queue, a search, a filter) can bias both intervals. Labels given in the \
workbench's random `sample` order (o cycles orders) are recorded as sampled."
            .into(),
    );
    out.join("\n")
}

/// CSV rows (one per estimate), untrusted names neutralised.
pub fn csv(es: &[Estimate]) -> String {
    let t = crate::report::csv::text;
    let f = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    let mut out = vec![
        "classification,perspective,judge,persona,n,N,alpha,human_only,human_only_lo,human_only_hi,ppi,ppi_lo,ppi_hi,lambda,worth_labels,people_undecided,judge_undecided,labelled_by_others,not_valid,labels_sampled,labels_chosen,chosen_by_hand,ppi_method,not_normal"
            .to_string(),
    ];
    for e in es {
        let h = e.human_only;
        let p = e.ppi;
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
            ]
            .join(","),
        );
    }
    out.join("\n")
}
