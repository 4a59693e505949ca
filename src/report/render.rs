//! The report written out: the table for a terminal (and `--wide`),
//! Markdown, CSV and JSON (HTML is `html.rs`).

use super::pairs::Comparison;
use super::{GroupFigures, Report, ReportFormat, csv, html};
use crate::analytics;
use crate::domain::Side;
use serde_json::{Map, json};

impl Report {
    /// Says which side of the split the figures cover (nothing for all pairs).
    fn split_line(&self) -> String {
        let side = match self.side {
            Some(side) => format!(
                "on the {} side of the held-out split only (self-consistency counts retests only; no position bias)\n",
                side.as_str()
            ),
            None => String::new(),
        };
        // Once people's disagreements are adjudicated, the report says
        // where the judge-vs-reference figures' reference came from.
        match &self.reference {
            Some(r) => format!("{side}{}\n", r.describe()),
            None => side,
        }
    }

    /// "warning: people agree less than ..." lines, a blank line after
    /// (nothing when people agree enough).
    fn warning_lines(&self) -> String {
        let lines = self.low_human_agreement();
        if lines.is_empty() {
            return String::new();
        }
        let mut t = String::new();
        for l in lines {
            for part in super::people::wrap(&format!("warning: {l}"), 118, 0, 9) {
                t.push_str(&part);
                t.push('\n');
            }
        }
        t.push('\n');
        t
    }

    /// The rankings as table lines, a blank line after (nothing when there
    /// is nothing to rank).
    fn ranking_lines(&self) -> String {
        let lines = super::rank::table(&self.rankings);
        if lines.is_empty() {
            return String::new();
        }
        // The table starts each ranking with a blank line: not the report.
        let mut t = lines[1..].join("\n");
        t.push_str("\n\n");
        t
    }

    /// `jury report --rank`: the rankings alone (JSON: their array; other
    /// formats: the table lines).
    pub fn render_ranking(&self, format: ReportFormat) -> serde_json::Result<String> {
        if format == ReportFormat::Json {
            return serde_json::to_string_pretty(&self.rankings);
        }
        if self.rankings.is_empty() {
            return Ok(format!(
                "{}nothing to rank yet: a ranking needs two judge configurations (modes, personas, models or prompt sets) with verdicts on combinations people labelled",
                self.split_line()
            ));
        }
        Ok(format!(
            "{}{}",
            self.split_line(),
            self.ranking_lines().trim_end()
        ))
    }

    /// The whole report in `format`; the table carries the sections below it.
    pub fn render(&self, format: ReportFormat) -> serde_json::Result<String> {
        Ok(match format {
            ReportFormat::Json => {
                let mut v = to_json(&self.groups);
                v["self_consistency"] = json!(self.flips);
                v["prompt_versions"] = json!(self.deltas);
                v["prompt_version_changes"] = json!(self.changes);
                v["ranking"] = json!(self.rankings);
                v["position_bias"] = json!(self.positions);
                v["split"] = json!(self.side.map(Side::as_str));
                v["reference"] = json!(self.reference);
                v["people_agreement"] = json!(self.people);
                v["min_human_agreement"] = json!(self.min_human_agreement);
                v["low_human_agreement"] = json!(self.low_human_agreement());
                serde_json::to_string_pretty(&v)?
            }
            ReportFormat::Csv => to_csv(&self.groups),
            // Without the store: no provenance or disagreement table
            // (`jury report` adds them, see `page::Page::gather`).
            ReportFormat::Html => html::to_html(self, None),
            ReportFormat::Md => {
                // The table, then the ranking and the sections below it (the
                // paired prompt-version comparisons among them) as the text
                // report writes them, in a block that keeps their layout.
                let mut t = self.split_line();
                for w in self.low_human_agreement() {
                    t.push_str(&format!("> **Warning:** {w}\n\n"));
                }
                t.push_str(&to_table(&self.groups, true));
                t.push_str(&tag_lines(&self.groups, true));
                let mut below: Vec<String> = self
                    .ranking_lines()
                    .lines()
                    .map(str::to_string)
                    .chain(self.notes())
                    .collect();
                // Each section opens with a blank line: one between two.
                below.dedup_by(|a, b| a.trim().is_empty() && b.trim().is_empty());
                if below.iter().any(|l| !l.trim().is_empty()) {
                    t.push_str("\n\n```text\n");
                    t.push_str(below.join("\n").trim());
                    t.push_str("\n```");
                }
                t
            }
            ReportFormat::Table => {
                let mut t = self.split_line();
                t.push_str(&self.warning_lines());
                t.push_str(&self.ranking_lines());
                t.push_str(&to_blocks(&self.groups));
                for l in self.notes() {
                    t.push('\n');
                    t.push_str(&l);
                }
                t
            }
            ReportFormat::TableWide => {
                let mut t = self.split_line();
                t.push_str(&to_table(&self.groups, false));
                t.push_str(&tag_lines(&self.groups, false));
                // Below the table, whose first line is its header.
                let warnings = self.warning_lines();
                if !warnings.is_empty() {
                    t.push_str("\n\n");
                    t.push_str(warnings.trim_end());
                }
                for l in self.notes() {
                    t.push('\n');
                    t.push_str(&l);
                }
                t
            }
        })
    }
}

/// The tags people gave their labels on each judge group's disagreements,
/// one line per group that has any (nothing when none has).
fn tag_lines(groups: &[GroupFigures], markdown: bool) -> String {
    let lines: Vec<String> = groups
        .iter()
        .filter(|g| !g.disagreement_tags.is_empty())
        .map(|g| {
            let group = crate::sanitize::one_line(&g.group, 110);
            if markdown {
                format!("- {}: {}", group.replace('|', "\\|"), g.tags_text())
            } else {
                format!("  {group}: {}", g.tags_text())
            }
        })
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    let head = if markdown {
        "\n\n**Tags on disagreements** (why the judge was wrong, from people's labels)\n\n"
    } else {
        "\n\ntags on disagreements (why the judge was wrong, from people's labels):\n"
    };
    format!("{head}{}", lines.join("\n"))
}

/// The JSON contract (docs/design.md §5): per comparison, groups with n and figures.
pub fn to_json(groups: &[GroupFigures]) -> serde_json::Value {
    let mut root = Map::new();
    for c in Comparison::ALL {
        let list: Vec<serde_json::Value> = groups
            .iter()
            .filter(|g| g.comparison == c)
            .map(|g| {
                let mut v = serde_json::to_value(&g.figures).unwrap_or_else(|_| json!({}));
                if let Some(o) = v.as_object_mut() {
                    o.insert("group".into(), json!(g.group));
                    o.insert("scale".into(), json!(g.scale.as_str()));
                    o.insert("scale_mapped".into(), json!(g.mapped));
                    o.insert("undecided".into(), json!(g.undecided));
                    if let Some(half) = &g.agreement_undecided_half {
                        o.insert("agreement_undecided_half".into(), json!(half));
                    }
                    o.insert("left".into(), json!(g.left));
                    o.insert("right".into(), json!(g.right));
                    if let Some(e) = &g.evalgen {
                        o.insert("evalgen".into(), json!(e));
                    }
                    if let Some([l, r]) = &g.accuracy {
                        o.insert("classifier_accuracy".into(), json!({"left": l, "right": r}));
                    }
                    if let Some(c) = &g.ceiling {
                        o.insert("human_ceiling".into(), json!(c));
                    }
                    if g.comparison == Comparison::JudgeVsHuman {
                        let tags: Map<String, serde_json::Value> = g
                            .disagreement_tags
                            .iter()
                            .map(|(t, n)| (t.clone(), json!(n)))
                            .collect();
                        o.insert("disagreement_tags".into(), serde_json::Value::Object(tags));
                    }
                }
                v
            })
            .collect();
        root.insert(c.key().into(), json!(list));
    }
    serde_json::Value::Object(root)
}

fn fmt(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "–".into())
}

fn fmt_ci(f: &analytics::Figure) -> String {
    figure_text(f)
}

/// A figure as the report and the agreement view write it: "0.812
/// [0.74,0.88]", or with no interval the short reason, "0.000 (n<30)".
pub fn figure_text(f: &analytics::Figure) -> String {
    match (f.value, f.no_ci) {
        (Some(v), Some(why)) if f.ci95.is_none() => format!("{v:.3} ({})", why.short()),
        _ => value_with_ci(f.value, f.ci95),
    }
}

/// "0.812 [0.74,0.88]", or the value alone (or "–") without an interval:
/// how the report and the agreement view write a figure.
pub fn value_with_ci(value: Option<f64>, ci95: Option<[f64; 2]>) -> String {
    match (value, ci95) {
        (Some(v), Some([lo, hi])) => format!("{v:.3} [{lo:.2},{hi:.2}]"),
        (v, _) => fmt(v),
    }
}

const HEADERS: [&str; 13] = [
    "comparison",
    "group",
    "scale",
    "n",
    "agree",
    "within-1",
    "kappa",
    "w-kappa(q)",
    "alpha",
    "spearman",
    "base rate L/R",
    "accuracy L/R",
    "coverage/FFR/align",
];

fn share(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2}")).unwrap_or_else(|| "–".into())
}

fn row(g: &GroupFigures) -> [String; 13] {
    let f = &g.figures;
    [
        g.comparison.key().to_string(),
        crate::sanitize::one_line(&g.group, 60),
        g.scale_name(),
        if g.undecided > 0 {
            format!("{} (+{} undecided)", f.n, g.undecided)
        } else {
            f.n.to_string()
        },
        fmt_ci(&f.percent_agreement),
        fmt_ci(&f.within_one),
        fmt_ci(&f.cohen_kappa),
        fmt_ci(&f.weighted_kappa_quadratic),
        fmt_ci(&f.krippendorff_alpha),
        fmt_ci(&f.spearman),
        format!(
            "{}/{}",
            share(f.base_rate.first.mode_share),
            share(f.base_rate.second.mode_share)
        ),
        match &g.accuracy {
            Some([l, r]) => format!("{}/{}", share(l.accuracy), share(r.accuracy)),
            None => "–".into(),
        },
        match &g.evalgen {
            Some(e) => format!(
                "{}/{}/{}",
                share(e.coverage),
                share(e.false_failure_rate),
                share(e.alignment)
            ),
            None => "–".into(),
        },
    ]
}

fn to_table(groups: &[GroupFigures], markdown: bool) -> String {
    if groups.is_empty() {
        return "nothing to compare yet: judge some items and label some (jury run, jury label or the workbench)".into();
    }
    let rows: Vec<[String; 13]> = groups.iter().map(row).collect();
    let mut widths = HEADERS.map(|h| h.chars().count());
    for r in &rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        if markdown {
            format!("| {} |", padded.join(" | "))
        } else {
            padded.join("  ")
        }
    };
    let mut out = vec![line(&HEADERS.map(String::from))];
    if markdown {
        out.push(format!(
            "|{}|",
            widths
                .iter()
                .map(|w| "-".repeat(w + 2))
                .collect::<Vec<_>>()
                .join("|")
        ));
    }
    out.extend(rows.iter().map(|r| line(r)));
    if !markdown {
        out.push(String::new());
        out.push("agree is raw agreement and within-1 the share at most one step apart; kappa and alpha correct agreement for chance.\n\
base rate L/R is each side's share of its most common value (a rater that always gives it scores that raw agreement with zero kappa).\n\
accuracy L/R is the classifier's accuracy as each side reads it (AGREE share); coverage/FFR/align treat \"the classifier was wrong\" as positive, the human as reference.\n\
[a,b] is a 95 % interval: exact (Clopper–Pearson) for shares (agree, within-1), a seeded bootstrap for kappa, alpha and Spearman from 30 pairs on where both sides varied;\n\
otherwise the figure shows why it has none: (n<30), (one value): a side never varied, (no spread): every resample gave the same value.\n\
n counts pairs, undecided pairs (Likert 3 against AGREE/DISAGREE) are left out and counted.".into());
    }
    out.join("\n")
}

/// Columns a figures line may take before the next figure goes on a new line.
const NARROW: usize = 100;

/// The table for a terminal: each group a heading line (comparison, group,
/// scale, n) and its figures wrapped under it, so it reads at 80–120
/// columns whatever the names (`--wide` gives one row per group).
fn to_blocks(groups: &[GroupFigures]) -> String {
    if groups.is_empty() {
        return "nothing to compare yet: judge some items and label some (jury run, jury label or the workbench)".into();
    }
    let mut out = Vec::new();
    for g in groups {
        let f = &g.figures;
        let n = if g.undecided > 0 {
            format!("n {} (+{} undecided)", f.n, g.undecided)
        } else {
            format!("n {}", f.n)
        };
        let name = format!(
            "{} · {}",
            g.comparison.key(),
            crate::sanitize::one_line(&g.group, 110)
        );
        let rest = format!("{} · {n}", g.scale_name());
        if name.chars().count() + 3 + rest.chars().count() <= 120 {
            out.push(format!("{name} · {rest}"));
        } else {
            out.push(name);
            out.push(format!("   {rest}"));
        }
        let mut cells: Vec<String> = vec![format!("agree {}", fmt_ci(&f.percent_agreement))];
        if let Some(half) = &g.agreement_undecided_half {
            cells.push(format!("agree with 3 as 0.5 {}", fmt_ci(half)));
        }
        if f.ordinal {
            cells.push(format!("within-1 {}", fmt_ci(&f.within_one)));
        }
        cells.push(format!("kappa {}", fmt_ci(&f.cohen_kappa)));
        cells.push(format!("AC1 {}", fmt_ci(&f.gwet_ac1)));
        cells.push(format!("PABAK {}", fmt_ci(&f.pabak)));
        if f.ordinal {
            cells.push(format!(
                "w-kappa(q) {}",
                fmt_ci(&f.weighted_kappa_quadratic)
            ));
        }
        cells.push(format!("alpha {}", fmt_ci(&f.krippendorff_alpha)));
        if f.ordinal {
            cells.push(format!("spearman {}", fmt_ci(&f.spearman)));
        }
        cells.push(format!(
            "base rate L/R {}/{}",
            share(f.base_rate.first.mode_share),
            share(f.base_rate.second.mode_share)
        ));
        if let Some([l, r]) = &g.accuracy {
            cells.push(format!(
                "accuracy L/R {}/{}",
                share(l.accuracy),
                share(r.accuracy)
            ));
        }
        if let Some(e) = &g.evalgen {
            cells.push(format!(
                "coverage/FFR/align {}/{}/{}",
                share(e.coverage),
                share(e.false_failure_rate),
                share(e.alignment)
            ));
        }
        if let Some(c) = &g.ceiling {
            cells.push(format!("ceiling: {}", c.describe()));
        }
        if !g.disagreement_tags.is_empty() {
            cells.push(format!("tags on disagreements: {}", g.tags_text()));
        }
        let mut line = String::from("   ");
        for c in cells {
            if line.chars().count() + 2 + c.chars().count() > NARROW && !line.trim().is_empty() {
                out.push(std::mem::replace(&mut line, String::from("   ")));
            }
            line.push_str("  ");
            line.push_str(&c);
        }
        out.push(line);
        if let Some(note) = &f.prevalence {
            out.push(format!("   {note}"));
        }
    }
    out.push(String::new());
    out.push(
        "AC1 (Gwet) and PABAK correct for chance without letting one dominant value drive it to 0."
            .into(),
    );
    out.push("agree is raw agreement and within-1 the share at most one step apart; kappa and alpha correct\n\
agreement for chance. base rate L/R is each side's share of its most common value (a rater that\n\
always gives it scores that raw agreement with zero kappa). accuracy L/R is the classifier's\n\
accuracy as each side reads it (AGREE share); coverage/FFR/align treat \"the classifier was wrong\"\n\
as positive, the human as reference. [a,b] is a 95 % interval: exact (Clopper–Pearson) for shares (agree, within-1,
accuracy, coverage), a seeded bootstrap for kappa, alpha and Spearman from 30 pairs on where both
sides varied; otherwise the figure shows why it has none: (n<30), (one value): a side never
varied, (no spread): every resample gave the same value. n counts pairs,\n\
undecided pairs (Likert 3 against AGREE/DISAGREE) are left out of the figures and counted;\n\
\"agree with 3 as 0.5\" keeps them, an undecided answer half agreeing with a decided one. A scale marked\n\
(mapped) compares answers given on different scales, read as AGREE/DISAGREE. --wide: one row\n\
per group.".into());
    out.join("\n")
}

fn to_csv(groups: &[GroupFigures]) -> String {
    // Group and side names are persona, classification and model names
    // from the store: untrusted text, treated as `jury export` treats it.
    let esc = csv::text;
    let mut out = vec!["comparison,group,left,right,scale,n,undecided,percent_agreement,percent_agreement_lo,percent_agreement_hi,within_one,cohen_kappa,cohen_kappa_lo,cohen_kappa_hi,weighted_kappa_quadratic,krippendorff_alpha,spearman,mean_abs_diff,base_rate_left,base_rate_right,accuracy_left,accuracy_right,coverage,false_failure_rate,alignment,scale_mapped,cohen_kappa_no_ci,human_ceiling_agreement,human_ceiling_n".to_string()];
    for g in groups {
        let f = &g.figures;
        let ci =
            |x: &analytics::Figure, i: usize| x.ci95.map(|c| c[i].to_string()).unwrap_or_default();
        let v = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
        let acc = |i: usize| g.accuracy.as_ref().and_then(|a| a[i].accuracy);
        let eg = |pick: fn(&analytics::EvalGen) -> Option<f64>| g.evalgen.as_ref().and_then(pick);
        let cells = [
            g.comparison.key().to_string(),
            esc(&g.group),
            esc(&g.left),
            esc(&g.right),
            g.scale.as_str().to_string(),
            f.n.to_string(),
            g.undecided.to_string(),
            v(f.percent_agreement.value),
            ci(&f.percent_agreement, 0),
            ci(&f.percent_agreement, 1),
            v(f.within_one.value),
            v(f.cohen_kappa.value),
            ci(&f.cohen_kappa, 0),
            ci(&f.cohen_kappa, 1),
            v(f.weighted_kappa_quadratic.value),
            v(f.krippendorff_alpha.value),
            v(f.spearman.value),
            v(f.mean_abs_diff.value),
            v(f.base_rate.first.mode_share),
            v(f.base_rate.second.mode_share),
            v(acc(0)),
            v(acc(1)),
            v(eg(|e| e.coverage)),
            v(eg(|e| e.false_failure_rate)),
            v(eg(|e| e.alignment)),
            g.mapped.to_string(),
            f.cohen_kappa
                .no_ci
                .map(|w| w.short().to_string())
                .unwrap_or_default(),
            v(g.ceiling.as_ref().and_then(|c| c.percent_agreement.value)),
            g.ceiling
                .as_ref()
                .map(|c| c.n.to_string())
                .unwrap_or_default(),
        ];
        out.push(cells.join(","));
    }
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::super::pairs::{Pair, PairContext};
    use super::super::{compute_from, prompt_change, prompt_versions, rank};
    use super::*;
    use crate::domain::{Agreement, ComboKey, Mode, Protocol, Value};
    use std::collections::BTreeMap;
    use std::sync::Arc;

    fn pair(judge: &str, mode: Mode, item: usize, judge_ok: bool, human_ok: bool) -> Pair {
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
                mode: Some(mode),
                model: Arc::from("m"),
                run: None,
            },
            left: Arc::from(judge),
            right: Arc::from("alice"),
            a: ag(judge_ok),
            b: ag(human_ok),
        }
    }

    /// Modes 2 and 3 on 40 items; mode 2's second prompt version on 10 of them.
    fn report() -> Report {
        let mut ps = Vec::new();
        for i in 0..40 {
            let truth = i % 3 != 0;
            ps.push(pair(
                "awag mode 3 · m",
                Mode::Three,
                i,
                truth ^ (i % 4 == 0),
                truth,
            ));
            ps.push(pair(
                "awag mode 2 · m · prompts aaaa",
                Mode::Two,
                i,
                truth,
                truth,
            ));
            if i < 10 {
                ps.push(pair(
                    "awag mode 2 · m · prompts bbbb",
                    Mode::Two,
                    i,
                    !truth,
                    truth,
                ));
            }
        }
        let pairs = BTreeMap::from([(Comparison::JudgeVsHuman, ps)]);
        let order = |h: &str| i64::from(h != "aaaa");
        Report {
            groups: compute_from(&pairs, None, Some(100), 1),
            flips: Vec::new(),
            deltas: prompt_versions::deltas(&pairs, &order, 100, 1),
            positions: Vec::new(),
            changes: prompt_change::changes(&pairs, &order, 100, 1),
            rankings: rank::rankings(&pairs, None, 100, 1),
            estimates: Vec::new(),
            estimate_details: Vec::new(),
            unranked: Vec::new(),
            trust: Vec::new(),
            side: None,
            items: None,
            by: None,
            reference: None,
            people: Vec::new(),
            min_human_agreement: 0.667,
            pairs,
        }
    }

    /// Markdown is a report too: it carries the ranking and the paired
    /// prompt-version comparisons the table has, not the groups alone.
    #[test]
    fn markdown_carries_the_ranking_and_the_paired_prompt_changes() {
        let r = report();
        assert!(!r.rankings.is_empty() && !r.changes.is_empty());
        let md = r.render(ReportFormat::Md).unwrap();
        assert!(md.contains("which judge agrees best"), "{md}");
        assert!(md.contains("prompt version changes"), "{md}");
        assert!(md.contains("Δ on 10 paired"), "{md}");
        assert!(
            !md.contains("\n\n\n"),
            "one blank line between sections: {md}"
        );
    }

    /// `--wide` names the intervals it shows as the table does: exact for
    /// shares, a bootstrap only for the rest.
    #[test]
    fn the_wide_table_says_which_intervals_it_shows() {
        let wide = report().render(ReportFormat::TableWide).unwrap();
        assert!(
            wide.contains("exact (Clopper–Pearson) for shares"),
            "{wide}"
        );
        assert!(
            !wide.contains("[a,b] is a seeded bootstrap 95 % interval;"),
            "{wide}"
        );
    }
}
