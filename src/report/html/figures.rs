//! The figures behind the answers: per comparison, every group with n and
//! its agreement figures; for judge vs human also each side's base rate,
//! the classifier's accuracy as each side reads it, the EvalGen figures and
//! the human ceiling. Every column has its share of the page's width and
//! cells wrap, so a table never runs off the page however long the names.

use super::super::GroupFigures;
use super::super::pairs::Comparison;
use super::{GroupBy, by_name, esc, fig, share_ci, th};

/// How a comparison's section is titled and what its two sides are.
pub(super) fn names(c: Comparison) -> (&'static str, &'static str, &'static str) {
    match c {
        Comparison::JudgeVsHuman => ("Judge vs human", "judge", "person"),
        Comparison::HumanVsHuman => ("Human vs human", "person", "person"),
        Comparison::ModeVsMode => ("Mode vs mode", "judge", "judge"),
        Comparison::PersonaVsPersona => ("Persona vs persona", "persona", "persona"),
        Comparison::ModelVsModel => ("Model vs model", "judge", "judge"),
        Comparison::PromptVsPrompt => ("Prompt set vs prompt set", "prompt set", "prompt set"),
        Comparison::RunVsRun => ("Run vs run (test-retest)", "run", "run"),
        Comparison::JudgeVsReference => (
            "Judge vs reference (adjudicated, else people's majority)",
            "judge",
            "reference",
        ),
    }
}

/// The `--by` value a group's name starts with ("" without `--by`).
pub(super) fn by_value(g: &GroupFigures) -> &str {
    g.group
        .strip_suffix(&format!("{} vs {}", g.left, g.right))
        .map_or("", |s| s.trim_end_matches(" · "))
}

/// The name cells of a group's row: the `--by` value when split, and each
/// side (linked to its chart when it has one).
fn name_cells(i: usize, g: &GroupFigures, by: Option<GroupBy>, charted: &[bool]) -> String {
    let mut s = String::new();
    if by.is_some() {
        s.push_str(&format!("<td class=\"l\">{}</td>", esc(by_value(g))));
    }
    let left = if charted.get(i).copied().unwrap_or(false) {
        format!("<a href=\"#group-{i}\">{}</a>", esc(&g.left))
    } else {
        esc(&g.left)
    };
    s.push_str(&format!(
        "<td class=\"l\">{left}</td><td class=\"l\">{}</td><td class=\"l\">{}</td>",
        esc(&g.right),
        esc(&g.scale_name())
    ));
    s
}

/// The header cells matching [`name_cells`], `names` taking `width`% of
/// the table.
fn name_heads(left: &str, right: &str, by: Option<GroupBy>, width: f64) -> String {
    match by {
        Some(b) => format!(
            "{}{}{}",
            th(by_name(b), width * 0.3, true),
            th(left, width * 0.42, true),
            th(right, width * 0.28, true)
        ),
        None => format!(
            "{}{}",
            th(left, width * 0.6, true),
            th(right, width * 0.4, true)
        ),
    }
}

fn n_cell(g: &GroupFigures) -> String {
    if g.undecided > 0 {
        format!(
            "{}<span class=\"ci\">+{} undecided</span>",
            g.figures.n, g.undecided
        )
    } else {
        g.figures.n.to_string()
    }
}

/// Every comparison's groups, one table per comparison.
pub(super) fn comparisons(
    h: &mut String,
    groups: &[GroupFigures],
    by: Option<GroupBy>,
    charted: &[bool],
) {
    h.push_str("<h2 id=\"agreement\">Agreement</h2>\n");
    if groups.is_empty() {
        h.push_str("<p class=\"note\">Nothing to compare yet: no pair of verdicts or labels on the same combination.</p>\n");
        return;
    }
    h.push_str("<p class=\"note\">Brackets are 95 % intervals: exact (Clopper–Pearson) for shares (agreement, within-one, accuracy, coverage); a seeded bootstrap for kappa, alpha and Spearman from 30 pairs on where both sides varied, else the reason there is none (n&lt;30, one value, no spread). Kappa and alpha correct agreement for chance; within-one is the share at most one step apart. A scale marked (mapped) compares answers given on different scales, read as AGREE/DISAGREE; undecided pairs (Likert 3 against AGREE/DISAGREE) are left out and counted.</p>\n");
    for c in Comparison::ALL {
        let rows: Vec<(usize, &GroupFigures)> = groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.comparison == c)
            .collect();
        if rows.is_empty() {
            continue;
        }
        let (title, left, right) = names(c);
        h.push_str(&format!("<h3 id=\"{}\">{title}</h3>\n", c.key()));
        figures_table(h, c, &rows, by, charted, left, right);
        if c == Comparison::JudgeVsHuman {
            details_table(h, &rows, by, charted);
            tags_table(h, &rows, by, charted);
        }
    }
}

/// Judge vs human: per group, the tags people gave their labels where the
/// judge disagreed with them (only when some label carries a tag).
fn tags_table(
    h: &mut String,
    rows: &[(usize, &GroupFigures)],
    by: Option<GroupBy>,
    charted: &[bool],
) {
    if rows.iter().all(|(_, g)| g.disagreement_tags.is_empty()) {
        return;
    }
    h.push_str(&format!(
        "<h4>Tags on disagreements</h4>\n<table class=\"figures\" id=\"disagreement-tags\"><tr>{}{}</tr>\n",
        name_heads("judge", "person", by, 30.0),
        th("tags on disagreeing pairs (pairs carrying each)", 40.0, true),
    ));
    for (i, g) in rows {
        let tags = if g.disagreement_tags.is_empty() {
            "–".to_string()
        } else {
            super::esc(&g.tags_text())
        };
        h.push_str(&format!(
            "<tr>{}<td>{tags}</td></tr>\n",
            name_cells(*i, g, by, charted)
        ));
    }
    h.push_str("</table>\n<p class=\"note\">A person's label may carry tags saying why the judge was wrong (config.toml <code>tags</code>); each count is the group's pairs where judge and person disagree and the person's label carries the tag.</p>\n");
}

fn figures_table(
    h: &mut String,
    c: Comparison,
    rows: &[(usize, &GroupFigures)],
    by: Option<GroupBy>,
    charted: &[bool],
    left: &str,
    right: &str,
) {
    // Ordinal columns only where some group is on an ordinal scale.
    let ordinal = rows.iter().any(|(_, g)| g.figures.ordinal);
    let figures = if ordinal { 8.0 } else { 5.0 };
    let names = if ordinal { 36.0 } else { 48.0 };
    let w = (100.0 - names - 10.0 - 7.5) / figures;
    h.push_str(&format!(
        "<table class=\"figures\" id=\"figures-{}\"><tr>{}{}{}{}",
        c.key(),
        name_heads(left, right, by, names),
        th("scale", 10.0, true),
        th("n", 7.5, false),
        th("agree", w, false)
    ));
    if ordinal {
        h.push_str(&th("within-1", w, false));
    }
    h.push_str(&th("kappa", w, false));
    h.push_str(&th("AC1", w, false));
    h.push_str(&th("PABAK", w, false));
    if ordinal {
        h.push_str(&th("w-kappa (q)", w, false));
    }
    h.push_str(&th("alpha", w, false));
    if ordinal {
        h.push_str(&th("spearman", w, false));
    }
    h.push_str("</tr>\n");
    for (i, g) in rows {
        let f = &g.figures;
        h.push_str(&format!(
            "<tr>{}<td>{}</td><td>{}</td>",
            name_cells(*i, g, by, charted),
            n_cell(g),
            fig(&f.percent_agreement)
        ));
        let cell = |x| format!("<td>{x}</td>");
        if ordinal {
            h.push_str(&cell(fig(&f.within_one)));
        }
        h.push_str(&cell(fig(&f.cohen_kappa)));
        h.push_str(&cell(fig(&f.gwet_ac1)));
        h.push_str(&cell(fig(&f.pabak)));
        if ordinal {
            h.push_str(&cell(fig(&f.weighted_kappa_quadratic)));
        }
        h.push_str(&cell(fig(&f.krippendorff_alpha)));
        if ordinal {
            h.push_str(&cell(fig(&f.spearman)));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
    // Where one value dominates, why kappa misleads (AC1 and PABAK beside it).
    for (_, g) in rows {
        if let Some(note) = &g.figures.prevalence {
            h.push_str(&format!(
                "<p class=\"note\">{}: {}</p>\n",
                esc(&g.group),
                esc(note)
            ));
        }
    }
}

/// A side's base rate: the share of its most common value, and that value.
fn base_rate(g: &GroupFigures, m: &crate::analytics::Marginal) -> String {
    match (m.mode_share, m.mode) {
        (Some(s), Some(v)) => {
            let value = g
                .scale
                .values()
                .get(v as usize)
                .map_or(String::new(), |v| v.as_text());
            format!("{s:.2}<span class=\"ci\">mostly {}</span>", esc(&value))
        }
        _ => "–".into(),
    }
}

/// Judge vs human: base rates, the classifier's accuracy as each side reads
/// it, EvalGen with "the classifier was wrong" as positive (the person as
/// reference), and the human ceiling on the group's combinations.
fn details_table(
    h: &mut String,
    rows: &[(usize, &GroupFigures)],
    by: Option<GroupBy>,
    charted: &[bool],
) {
    h.push_str(&format!(
        "<h4>Base rates, the classifier's accuracy, EvalGen and the human ceiling</h4>\n<div class=\"wide\"><table class=\"figures\" id=\"judge-details\"><tr>{}{}{}{}{}{}{}{}{}{}{}</tr>\n",
        name_heads("judge", "person", by, 20.0),
        th("scale", 8.0, true),
        th("base rate judge", 8.0, false),
        th("base rate person", 8.0, false),
        th("accuracy judge", 8.0, false),
        th("accuracy person", 8.0, false),
        th("coverage", 8.0, false),
        th("false failure rate", 8.0, false),
        th("alignment", 8.0, false),
        th("human ceiling agree", 9.0, false),
        th("human ceiling α", 7.0, false),
    ));
    for (i, g) in rows {
        let br = &g.figures.base_rate;
        let acc = |k: usize| match &g.accuracy {
            Some(a) => share_ci(a[k].accuracy, a[k].ci95),
            None => "–".into(),
        };
        let (coverage, ffr, align) = match &g.evalgen {
            Some(e) => (
                share_ci(e.coverage, e.coverage_ci95),
                share_ci(e.false_failure_rate, e.false_failure_rate_ci95),
                share_ci(e.alignment, None),
            ),
            None => ("–".into(), "–".into(), "–".into()),
        };
        let (ceiling_agree, ceiling_kappa) = match &g.ceiling {
            Some(c) if c.n > 0 => (
                format!(
                    "{}<span class=\"ci\">{} pair(s) of {} people</span>",
                    fig(&c.percent_agreement),
                    c.n,
                    c.people
                ),
                // α over all the people is the ceiling; the pairs' kappa under it.
                format!(
                    "{}<span class=\"ci\">kappa {}</span>",
                    fig(&c.krippendorff_alpha),
                    super::opt(c.cohen_kappa.value)
                ),
            ),
            Some(_) => ("no two people".into(), "–".into()),
            None => ("–".into(), "–".into()),
        };
        h.push_str(&format!(
            "<tr>{}<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{coverage}</td><td>{ffr}</td><td>{align}</td><td>{ceiling_agree}</td><td>{ceiling_kappa}</td></tr>\n",
            name_cells(*i, g, by, charted),
            base_rate(g, &br.first),
            base_rate(g, &br.second),
            acc(0),
            acc(1),
        ));
    }
    h.push_str("</table></div>\n<p class=\"note\">Base rate: each side's share of its most common value (a rater that always gives it scores that raw agreement with zero kappa). Accuracy: the classifier's accuracy as each side reads it (the AGREE share of its decided readings). Coverage, false failure rate and alignment (EvalGen) treat “the classifier was wrong” as the positive class and the person as reference. The human ceiling is Krippendorff's α over every person who labelled the group's combinations, all at once (ordinal on ordinal scales, nominal on AGREE/DISAGREE); beside it every pair of two of them, pooled (agreement, and kappa under α): a judge cannot be shown to agree with people better than they agree with each other.</p>\n");
}
