//! The sections under the agreement figures, as the text report has them:
//! self-consistency, position bias, prompt versions and their changes.

use super::super::paired::ci_or_reason;
use super::{Report, esc, fig, opt, share_ci, th};
use crate::analytics::Figure;

pub(super) fn notes(h: &mut String, report: &Report) {
    consistency(h, report);
    position(h, report);
    versions(h, report);
    changes(h, report);
}

fn consistency(h: &mut String, report: &Report) {
    if report.flips.is_empty() {
        return;
    }
    h.push_str(&format!(
        "<h2 id=\"self-consistency\">Self-consistency</h2>\n<table id=\"consistency\"><tr>{}{}{}{}{}{}{}</tr>\n",
        th("judge", 34.0, true),
        th("retest pairs", 11.0, false),
        th("changed", 11.0, false),
        th("flip rate", 11.0, false),
        th("double-checked", 11.0, false),
        th("revised", 11.0, false),
        th("revision rate", 11.0, false),
    ));
    for f in &report.flips {
        h.push_str(&format!(
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            esc(&f.judge),
            f.retest_pairs,
            f.retest_changed,
            share_ci(f.retest_flip_rate, f.retest_flip_ci),
            f.double_checked,
            f.double_check_flipped,
            share_ci(f.double_check_flip_rate, f.double_check_flip_ci)
        ));
    }
    h.push_str("</table>\n<p class=\"note\">How often a judge's value changed between two runs of the same configuration on the same combination, and how often the double check revised it.</p>\n");
}

fn position(h: &mut String, report: &Report) {
    if report.positions.is_empty() {
        return;
    }
    h.push_str(&format!(
        "<h2 id=\"position-bias\">Position bias</h2>\n<table id=\"position\"><tr>{}{}{}{}{}{}{}{}</tr>\n",
        th("judge", 28.0, true),
        th("placed verdicts", 9.0, false),
        th("first third", 9.0, false),
        th("middle third", 9.0, false),
        th("last third", 9.0, false),
        th("moved combinations", 10.0, false),
        th("changed", 11.0, false),
        th("late − early", 15.0, false),
    ));
    for p in &report.positions {
        let third = |i: usize| {
            let t = &p.by_third[i];
            match t.mean_score {
                Some(m) => format!("{m:.2}<span class=\"ci\">n {}</span>", t.n),
                None => "–".into(),
            }
        };
        let changed = match p.changed_share {
            Some(s) => format!(
                "{s:.2}<span class=\"ci\">{} of {}</span>",
                p.changed, p.moved_combinations
            ),
            None => "–".into(),
        };
        let shift = match (p.mean_shift_late_minus_early, p.ci95) {
            (Some(m), Some([lo, hi])) => {
                format!("{m:+.2}<span class=\"ci\">[{lo:+.2},{hi:+.2}]</span>")
            }
            (Some(m), None) if p.moved_combinations < 30 => {
                format!("{m:+.2}<span class=\"ci\">(n&lt;30)</span>")
            }
            (Some(m), None) => format!("{m:+.2}<span class=\"ci\">(no spread)</span>"),
            _ => "–<span class=\"ci\">no item moved</span>".into(),
        };
        h.push_str(&format!(
            "<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{changed}</td><td>{shift}</td></tr>\n",
            esc(&p.judge),
            p.placed_verdicts,
            third(0),
            third(1),
            third(2),
            p.moved_combinations,
        ));
    }
    h.push_str("</table>\n<p class=\"note\">Mean score (higher favours the classifier) by where the item stood in its request. Repeat a mode 1 run with other <code>--shuffle-seed</code> values to move items; an interval of late − early that excludes 0 means the verdict depends on where the item stood.</p>\n");
}

fn versions(h: &mut String, report: &Report) {
    if report.deltas.is_empty() {
        return;
    }
    h.push_str(&format!(
        "<h2 id=\"prompt-versions-head\">Prompt versions</h2>\n<p class=\"note\">Each version's agreement on what it judged; Δ from the previous version on the combinations both judged (paired).</p>\n<table id=\"prompt-versions\"><tr>{}{}{}{}{}{}{}{}</tr>\n",
        th("judge vs person", 24.0, true),
        th("classification", 13.0, true),
        th("prompt version", 13.0, true),
        th("n", 6.0, false),
        th("agree", 11.0, false),
        th("kappa", 11.0, false),
        th("paired n", 8.0, false),
        th("Δ agree", 14.0, false),
    ));
    for d in &report.deltas {
        for v in &d.versions {
            let (paired_n, delta) = match &v.change {
                None => (String::new(), String::new()),
                Some(c) if c.n == 0 => ("0".into(), "no shared combination".into()),
                Some(c) => (
                    c.n.to_string(),
                    format!(
                        "{}{}",
                        opt(c.delta_agree.value),
                        ci_or_reason(&c.delta_agree)
                    ),
                ),
            };
            h.push_str(&format!(
                "<tr><td class=\"l\">{} vs {}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                esc(&d.judge),
                esc(&d.person),
                esc(&d.classification),
                esc(&super::super::prompt_names::shown_version(
                    &v.prompts,
                    v.prompt_version.as_deref()
                )),
                v.n,
                fig(&v.percent_agreement),
                fig(&v.cohen_kappa),
                paired_n,
                esc(&delta)
            ));
        }
    }
    h.push_str("</table>\n");
}

fn changes(h: &mut String, report: &Report) {
    if report.changes.is_empty() {
        return;
    }
    let pf = |f: &Figure| esc(&format!("{}{}", opt(f.value), ci_or_reason(f)));
    h.push_str(&format!(
        "<h2 id=\"prompt-changes-head\">Prompt version changes</h2>\n<p class=\"note\">On the combinations both versions judged; paired bootstrap 95 % intervals from 30 combinations on.</p>\n<table id=\"prompt-changes\"><tr>{}{}{}{}{}{}{}</tr>\n",
        th("judge vs person", 24.0, true),
        th("scale", 10.0, true),
        th("from → to", 16.0, true),
        th("n", 6.0, false),
        th("kappa", 14.0, false),
        th("Δ kappa", 15.0, false),
        th("Δ agree", 15.0, false),
    ));
    for c in &report.changes {
        let p = &c.paired;
        h.push_str(&format!(
            "<tr><td class=\"l\">{} vs {}</td><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{} → {}</td><td>{}</td><td>{}</td></tr>\n",
            esc(&c.judge),
            esc(&c.person),
            esc(&c.scale),
            esc(&c.versions_text()),
            p.n,
            opt(p.kappa_from.value),
            pf(&p.kappa_to),
            pf(&p.delta_kappa),
            pf(&p.delta_agree)
        ));
    }
    h.push_str("</table>\n");
}
