//! The page's opening: the answers the report exists for — which judge
//! configuration agrees best with people, how accurate the classifier is,
//! and which verdicts can stand without a person — each when the store holds
//! what it needs.

use super::super::paired::ci_or_reason;
use super::super::rank::{Ranking, Separation};
use super::{Report, esc, split_cell, th};
use crate::analytics::Figure;

pub(super) fn answers(h: &mut String, report: &Report) {
    if report.rankings.is_empty()
        && report.estimates.is_empty()
        && report.trust.is_empty()
        && report.unranked.is_empty()
    {
        h.push_str("<p class=\"note\" id=\"no-answers\">Nothing to answer yet: a ranking needs two judge configurations with verdicts on combinations people labelled, an estimate of the classifier's accuracy needs labels beside a judge's verdicts. The figures below are what the store holds.</p>\n");
    }
    ranking(h, &report.rankings);
    lines(
        h,
        "unranked",
        "Not ranked",
        &report.unranked,
        "Judge configurations with verdicts but no labelled combination under their persona: nothing to rank them on.",
    );
    lines(
        h,
        "estimates",
        "How accurate is the classifier",
        &report.estimates,
        "Per classification, the judge configuration the ranking puts first (the same one in the trust lines). 95 % intervals: PPI++ from people's labels plus the judge's verdicts on every combination (valid when the labelled combinations are a random sample; labels the judge selected are left out), beside the labels alone; with few labels, the same configuration pooled over every classification, and how many more labels would make the interval ±0.05 (an estimate). <code>jury estimate</code> gives every judge configuration.",
    );
    lines(
        h,
        "judge-errors",
        "The judge's errors against people",
        &report.estimate_details,
        "For the same configuration: how often it calls right what people call right (true-positive rate) and wrong what they call wrong (true-negative rate), with exact 95 % lower bounds; the classifier's rate corrected for those errors (Rogan–Gladen, bootstrap over labelled and unlabelled combinations; undefined when the two rates add up to 1 or less); and the most PPI can make a label worth, 1/(1 − ρ²) (Dorner, Nowak &amp; Hardt, ICLR 2025).",
    );
    lines(
        h,
        "trust",
        "Which verdicts can stand without a person",
        &report.trust,
        "Clopper–Pearson bounds with fixed-sequence testing (Jung et al. 2025) at α = δ = 0.1, from at least 30 labelled combinations with the judge's confidence; valid when the labels are a random sample. <code>jury trust</code> takes other levels. Verdicts below the threshold need a person (<code>jury trust --needs-person</code> lists them).",
    );
}

/// A section of headline lines (nothing when there are none).
fn lines(h: &mut String, id: &str, title: &str, lines: &[String], note: &str) {
    if lines.is_empty() {
        return;
    }
    h.push_str(&format!(
        "<h2 id=\"{id}\">{title}</h2>\n<ul class=\"{id}\">\n"
    ));
    for line in lines {
        h.push_str(&format!("<li>{}</li>\n", esc(line)));
    }
    h.push_str(&format!("</ul>\n<p class=\"note\">{note}</p>\n"));
}

/// A figure with two decimals and its interval (or why none) under it.
fn pf(f: &Figure) -> String {
    split_cell(&f.value.map_or("–".into(), |v| {
        format!("{v:.2}{}", ci_or_reason(f).replace(", ", ","))
    }))
}

/// Which judge agrees best, per protocol: the summary sentence, then the
/// configurations in order.
fn ranking(h: &mut String, rankings: &[Ranking]) {
    if rankings.is_empty() {
        return;
    }
    h.push_str("<h2 id=\"ranking\">Which judge agrees best</h2>\n");
    for r in rankings {
        h.push_str(&format!(
            "<h3>{} · {} shared unit(s)</h3>\n<p><b>{}</b></p>\n<table class=\"ranking\"><tr>{}{}{}{}{}{}{}{}</tr>\n",
            esc(&r.scope),
            r.n_shared,
            esc(&r.summary),
            th("#", 4.0, false),
            th("judge", 30.0, true),
            th("persona", 12.0, true),
            th("agree", 11.0, false),
            th("kappa", 11.0, false),
            th("Δ agree from the best", 14.0, false),
            th("own agree", 11.0, false),
            th("own n", 7.0, false),
        ));
        for (i, c) in r.configurations.iter().enumerate() {
            let gap = match &c.behind_best {
                None => "best".to_string(),
                Some(d) => {
                    let v = d
                        .delta_agree
                        .value
                        .map_or("–".into(), |v| format!("{v:+.2}"));
                    let verdict = match c.separation {
                        Separation::Behind => "behind",
                        Separation::NotSeparable => "not separable",
                        _ => "cannot tell",
                    };
                    format!(
                        "{}<span class=\"ci\">{} {verdict}</span>",
                        esc(&v),
                        esc(ci_or_reason(&d.delta_agree).trim())
                    )
                }
            };
            h.push_str(&format!(
                "<tr><td>{}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{gap}</td><td>{}</td><td>{}</td></tr>\n",
                i + 1,
                esc(&c.shown_judge()),
                esc(&c.persona),
                pf(&c.agreement),
                pf(&c.kappa),
                pf(&c.agreement_own),
                c.n_own
            ));
        }
        h.push_str(&format!(
            "</table>\n<p class=\"note\">Human ceiling on these combinations: {}.</p>\n",
            esc(&r.human_ceiling.describe()),
        ));
    }
    h.push_str("<p class=\"note\">Each judge configuration read right/wrong against each person, on the units (combination × person) every configuration judged; Δ is the paired difference from the best with a paired bootstrap 95 % interval (from 30 units on); own is each one on everything it judged.</p>\n");
}
