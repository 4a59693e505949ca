//! People's agreement with each other on the page: the warning where they
//! agree less than `min_human_agreement`, and per classification Fleiss' κ
//! and Krippendorff's α over all of them beside each pair.

use super::super::people::metric_name;
use super::{Report, esc, esc_text, fig, opt, th};

/// The warnings, at the top of the page (nothing when people agree enough).
pub(super) fn warnings(h: &mut String, report: &Report) {
    for w in report.low_human_agreement() {
        h.push_str(&format!(
            "<p class=\"note\" id=\"low-human-agreement\"><b>Warning:</b> {}</p>\n",
            esc_text(&w, 1000)
        ));
    }
}

/// The table, one row per classification and one per pair of people.
pub(super) fn table(h: &mut String, report: &Report) {
    if report.people.is_empty() {
        return;
    }
    h.push_str(&format!(
        "<h2 id=\"people\">People's agreement with each other</h2>\n<table id=\"people-agreement\"><tr>{}{}{}{}{}{}</tr>\n",
        th("classification · people", 34.0, true),
        th("Fleiss κ", 14.0, false),
        th("Krippendorff α", 14.0, false),
        th("agree (pairs)", 10.0, false),
        th("units", 8.0, false),
        th("people", 8.0, false),
    ));
    for p in &report.people {
        h.push_str(&format!(
            "<tr><td class=\"l\">{} ({}, α {})</td><td>{}</td><td>{}</td><td></td><td>{} ({} with 2+)</td><td>{}</td></tr>\n",
            esc(&p.classification),
            p.scale,
            metric_name(p.all.metric),
            fig(&p.all.fleiss_kappa),
            fig(&p.all.krippendorff_alpha),
            p.all.units,
            p.all.pairable_units,
            p.people.len()
        ));
        for q in &p.pairs {
            h.push_str(&format!(
                "<tr><td class=\"l\">&nbsp;&nbsp;{} – {}</td><td></td><td>{}</td><td>{}</td><td>{}</td><td>2</td></tr>\n",
                esc(&q.left),
                esc(&q.right),
                opt(q.krippendorff_alpha),
                opt(q.percent_agreement),
                q.n
            ));
        }
    }
    h.push_str(&format!(
        "</table>\n<p class=\"note\">Every person who labelled a classification, missing labels allowed (a unit is a combination under a persona). Fleiss' κ is generalised to a varying number of people per unit (as irrCAC's <code>fleiss</code>), unweighted; Krippendorff's α is ordinal on ordinal scales and nominal on AGREE/DISAGREE; intervals are a seeded bootstrap over units. The human ceiling beside a judge is this α on the judge's combinations. jury warns below α {}.</p>\n",
        report.min_human_agreement
    ));
}
