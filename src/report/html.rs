//! `jury report --format html`: one self-contained file (inline CSS and SVG,
//! no script, no network) that opens in any browser offline — every
//! comparison with its figures and intervals, a confusion matrix and the two
//! sides' distributions per group, self-consistency, position bias and
//! prompt-version deltas.

use super::paired::{ci_or_reason, value_and_ci};
use super::{GroupFigures, Report, figure_text};
use crate::analytics::Figure;
use crate::domain::Value;

/// Groups drawn as charts; the table lists every group (a report split by
/// thousands of classifications stays a file a browser opens).
const MAX_CHARTS: usize = 120;

const CSS: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#1d2230;padding:0 1em}\
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ccd;padding-bottom:.2em}\
table{border-collapse:collapse;margin:.6em 0;font-size:13px}td,th{border:1px solid #dde;padding:3px 7px;text-align:right}\
th{background:#f1f3f8}td{white-space:nowrap}td:first-child,th:first-child{text-align:left}.note{color:#555}\
.card{display:inline-block;vertical-align:top;margin:0 1.2em 1.4em 0;padding:.6em;border:1px solid #e3e6ef;border-radius:6px}\
.card h3{font-size:13px;margin:0 0 .4em;max-width:560px;overflow-wrap:anywhere}svg text{font:11px system-ui,sans-serif}";

/// HTML text: markup characters escaped, control characters neutralised
/// (names and groups come from imported files).
fn esc(s: &str) -> String {
    let s = crate::sanitize::one_line(s, 300);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn fig(f: &Figure) -> String {
    esc(&figure_text(f))
}

fn opt(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{v:.3}"))
}

/// The whole report as one HTML document.
pub fn to_html(report: &Report) -> String {
    let mut h = String::with_capacity(64 * 1024);
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">");
    h.push_str("<title>jury report</title><style>");
    h.push_str(CSS);
    h.push_str("</style></head><body>\n<h1>jury report</h1>\n");
    if let Some(side) = report.side {
        h.push_str(&format!(
            "<p class=\"note\" id=\"split\">On the <b>{}</b> side of the held-out split only.</p>\n",
            side.as_str()
        ));
    }
    if !report.estimates.is_empty() {
        h.push_str("<h2>How accurate is the classifier</h2>\n<ul id=\"estimates\">\n");
        for line in &report.estimates {
            h.push_str(&format!("<li>{}</li>\n", esc(line)));
        }
        h.push_str("</ul>\n<p class=\"note\">95 % intervals: PPI++ from people's labels plus the judge's verdicts on every combination (valid when the labelled combinations are a random sample), beside the labels alone. <code>jury estimate</code> gives every judge configuration.</p>\n");
    }
    if !report.trust.is_empty() {
        h.push_str("<h2>Which verdicts can stand without a person</h2>\n<ul id=\"trust\">\n");
        for line in &report.trust {
            h.push_str(&format!("<li>{}</li>\n", esc(line)));
        }
        h.push_str("</ul>\n<p class=\"note\">Clopper–Pearson bounds with fixed-sequence testing (Jung et al. 2025) at α = δ = 0.1, from at least 30 labelled combinations with the judge's confidence; valid when the labels are a random sample. <code>jury trust</code> takes other levels. Verdicts below the threshold need a person.</p>\n");
    }
    ranking(&mut h, &report.rankings);
    comparisons(&mut h, &report.groups);
    charts(&mut h, &report.groups);
    notes(&mut h, report);
    h.push_str("</body></html>\n");
    h
}

/// Which judge agrees best, first: the question the report exists for.
fn ranking(h: &mut String, rankings: &[super::rank::Ranking]) {
    if rankings.is_empty() {
        return;
    }
    h.push_str("<h2>Which judge agrees best</h2>\n<p class=\"note\">Each judge configuration read right/wrong against each person, on the units (combination × person) every configuration judged; Δ is the paired difference from the best with a paired bootstrap 95 % interval (from 30 units on); own is each one on everything it judged.</p>\n");
    let pf = |f: &Figure| esc(&value_and_ci(f));
    for r in rankings {
        h.push_str(&format!(
            "<h3>{} · {} shared unit(s)</h3>\n<table class=\"ranking\"><tr><th>#</th><th>judge</th><th>persona</th><th>agree</th><th>kappa</th><th>Δ from best</th><th>own agree</th><th>own n</th></tr>\n",
            esc(&r.scope),
            r.n_shared
        ));
        for (i, c) in r.configurations.iter().enumerate() {
            let gap = match &c.behind_best {
                None => "best".to_string(),
                Some(d) => pf(&d.delta_agree),
            };
            h.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                i + 1,
                esc(&c.judge),
                esc(&c.persona),
                pf(&c.agreement),
                pf(&c.kappa),
                gap,
                pf(&c.agreement_own),
                c.n_own
            ));
        }
        h.push_str(&format!(
            "</table>\n<p class=\"note\">Human ceiling: {}. {}</p>\n",
            esc(&r.human_ceiling.describe()),
            esc(&r.summary)
        ));
    }
}

fn comparisons(h: &mut String, groups: &[GroupFigures]) {
    h.push_str("<h2>Agreement</h2>\n");
    if groups.is_empty() {
        h.push_str("<p class=\"note\">Nothing to compare yet: no pair of verdicts or labels on the same combination.</p>\n");
        return;
    }
    h.push_str("<table id=\"figures\"><tr><th>comparison</th><th>group</th><th>scale</th><th>n</th><th>agree</th><th>kappa</th><th>w-kappa (q)</th><th>alpha</th><th>spearman</th></tr>\n");
    for g in groups {
        let f = &g.figures;
        h.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
            g.comparison.key(),
            esc(&g.group),
            esc(&g.scale_name()),
            f.n,
            fig(&f.percent_agreement),
            fig(&f.cohen_kappa),
            fig(&f.weighted_kappa_quadratic),
            fig(&f.krippendorff_alpha),
            fig(&f.spearman)
        ));
    }
    h.push_str("</table>\n<p class=\"note\">Brackets are 95 % intervals: Wilson for agreement; a seeded bootstrap for kappa, alpha and Spearman from 30 pairs on where both sides varied, else the reason there is none (n&lt;30, one value, no spread). Kappa and alpha correct agreement for chance.</p>\n");
}

fn charts(h: &mut String, groups: &[GroupFigures]) {
    let drawn: Vec<&GroupFigures> = groups.iter().filter(|g| g.figures.n > 0).collect();
    if drawn.is_empty() {
        return;
    }
    h.push_str("<h2>Confusion matrices and distributions</h2>\n");
    for (i, g) in drawn.iter().take(MAX_CHARTS).enumerate() {
        let labels: Vec<String> = g.scale.values().into_iter().map(label).collect();
        h.push_str(&format!(
            "<div class=\"card\" id=\"group-{i}\"><h3>{} · {} · {}</h3>",
            g.comparison.key(),
            esc(&g.group),
            esc(&g.scale_name())
        ));
        h.push_str(&confusion_svg(
            &g.figures.confusion_matrix,
            &labels,
            &g.left,
            &g.right,
        ));
        h.push_str(&distribution_svg(
            &g.figures.confusion_matrix,
            &labels,
            &g.left,
            &g.right,
        ));
        h.push_str("</div>\n");
    }
    if drawn.len() > MAX_CHARTS {
        h.push_str(&format!(
            "<p class=\"note\">{} more group(s) are in the table above without charts.</p>\n",
            drawn.len() - MAX_CHARTS
        ));
    }
}

fn label(v: Value) -> String {
    v.as_text()
}

/// A k×k heatmap: rows the left side, columns the right, each cell's count.
fn confusion_svg(m: &[Vec<u64>], labels: &[String], left: &str, right: &str) -> String {
    let k = m.len().max(1);
    // Wide enough for the longest value name under its column.
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1);
    let cell = if k > 6 {
        26
    } else {
        (7 * longest + 10).clamp(38, 80)
    };
    let x0 = (7 * longest + 16).max(40);
    let y0 = 40;
    let (w, hgt) = (x0 + cell * k + 10, y0 + cell * k + 30);
    let max = m.iter().flatten().copied().max().unwrap_or(0).max(1);
    let mut s = format!(
        "<svg class=\"confusion\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{hgt}\" viewBox=\"0 0 {w} {hgt}\" role=\"img\"><title>confusion matrix: {} (rows) vs {} (columns)</title>",
        esc(left),
        esc(right)
    );
    s.push_str(&format!(
        "<text x=\"{x0}\" y=\"14\">{} →</text><text x=\"4\" y=\"{}\">{} ↓</text>",
        esc(&short(right)),
        y0 - 6,
        esc(&short(left))
    ));
    for (r, row) in m.iter().enumerate() {
        let y = y0 + r * cell;
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            x0 - 4,
            y + cell / 2 + 4,
            esc(labels.get(r).map_or("", String::as_str))
        ));
        for (c, &n) in row.iter().enumerate() {
            let x = x0 + c * cell;
            // Darker with the count; the diagonal (agreement) in green.
            let a = 0.08 + 0.85 * (n as f64 / max as f64);
            let hue = if r == c { "34,139,84" } else { "201,80,64" };
            s.push_str(&format!(
                "<rect x=\"{x}\" y=\"{y}\" width=\"{cell}\" height=\"{cell}\" fill=\"rgba({hue},{a:.2})\" stroke=\"#fff\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{n}</text>",
                x + cell / 2,
                y + cell / 2 + 4
            ));
        }
    }
    for (c, l) in labels.iter().enumerate().take(k) {
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            x0 + c * cell + cell / 2,
            y0 + cell * k + 16,
            esc(l)
        ));
    }
    s.push_str("</svg>");
    s
}

/// Both sides' value distributions (the matrix's row and column sums) as
/// paired bars.
fn distribution_svg(m: &[Vec<u64>], labels: &[String], left: &str, right: &str) -> String {
    let k = m.len();
    let rows: Vec<u64> = m.iter().map(|r| r.iter().sum()).collect();
    let cols: Vec<u64> = (0..k).map(|c| m.iter().map(|r| r[c]).sum()).collect();
    let max = rows.iter().chain(&cols).copied().max().unwrap_or(0).max(1);
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1);
    let (bar, top, plot) = (12usize, 30usize, 110usize);
    let gap = (7 * longest + 4).saturating_sub(2 * bar).max(10);
    let w = 40 + k * (2 * bar + gap) + 10;
    let hgt = top + plot + 34;
    let mut s = format!(
        "<svg class=\"distribution\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{hgt}\" viewBox=\"0 0 {w} {hgt}\" role=\"img\"><title>value distributions: {} and {}</title>",
        esc(left),
        esc(right)
    );
    s.push_str(&format!(
        "<rect x=\"40\" y=\"6\" width=\"10\" height=\"10\" fill=\"#4a6fd0\"/><text x=\"54\" y=\"15\">{}</text><rect x=\"40\" y=\"19\" width=\"10\" height=\"10\" fill=\"#e0a030\"/><text x=\"54\" y=\"28\">{}</text>",
        esc(&short(left)),
        esc(&short(right))
    ));
    for c in 0..k {
        let x = 40 + c * (2 * bar + gap);
        for (j, (n, colour)) in [(rows[c], "#4a6fd0"), (cols[c], "#e0a030")]
            .iter()
            .enumerate()
        {
            let bh = (*n as f64 / max as f64 * plot as f64).round() as usize;
            s.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{bar}\" height=\"{bh}\" fill=\"{colour}\"><title>{n}</title></rect>",
                x + j * bar,
                top + plot + 4 - bh
            ));
        }
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            x + bar,
            top + plot + 20,
            esc(labels.get(c).map_or("", String::as_str))
        ));
    }
    s.push_str("</svg>");
    s
}

/// A side's name cut for a chart legend (the table has it whole).
fn short(s: &str) -> String {
    crate::sanitize::one_line(s, 40)
}

fn notes(h: &mut String, report: &Report) {
    if !report.flips.is_empty() {
        h.push_str("<h2>Self-consistency</h2>\n<table id=\"consistency\"><tr><th>judge</th><th>retest pairs</th><th>changed</th><th>flip rate</th><th>double-checked</th><th>revised</th><th>revision rate</th></tr>\n");
        for f in &report.flips {
            h.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                esc(&f.judge),
                f.retest_pairs,
                f.retest_changed,
                opt(f.retest_flip_rate),
                f.double_checked,
                f.double_check_flipped,
                opt(f.double_check_flip_rate)
            ));
        }
        h.push_str("</table>\n");
    }
    if !report.positions.is_empty() {
        h.push_str("<h2>Position bias</h2>\n<table id=\"position\"><tr><th>judge</th><th>placed verdicts</th><th>moved combinations</th><th>changed</th><th>changed share</th><th>mean shift (late − early)</th></tr>\n");
        for p in &report.positions {
            h.push_str(&format!(
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                esc(&p.judge),
                p.placed_verdicts,
                p.moved_combinations,
                p.changed,
                opt(p.changed_share),
                opt(p.mean_shift_late_minus_early)
            ));
        }
        h.push_str("</table>\n");
    }
    if !report.deltas.is_empty() {
        h.push_str("<h2>Prompt versions</h2>\n<p class=\"note\">Each version's agreement on what it judged; Δ from the previous version on the combinations both judged (paired).</p>\n<table id=\"prompt-versions\"><tr><th>judge vs person</th><th>classification</th><th>prompt version</th><th>n</th><th>agree</th><th>kappa</th><th>paired n</th><th>Δ agree</th></tr>\n");
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
                    "<tr><td>{} vs {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                    esc(&d.judge),
                    esc(&d.person),
                    esc(&d.classification),
                    esc(&v.prompts),
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
    if !report.changes.is_empty() {
        let pf = |f: &Figure| esc(&format!("{}{}", opt(f.value), ci_or_reason(f)));
        h.push_str("<h2>Prompt version changes</h2>\n<p class=\"note\">On the combinations both versions judged; paired bootstrap 95 % intervals from 30 combinations on.</p>\n<table id=\"prompt-changes\"><tr><th>judge vs person</th><th>scale</th><th>from → to</th><th>n</th><th>kappa</th><th>Δ kappa</th><th>Δ agree</th></tr>\n");
        for c in &report.changes {
            let p = &c.paired;
            h.push_str(&format!(
                "<tr><td>{} vs {}</td><td>{}</td><td>{} → {}</td><td>{}</td><td>{} → {}</td><td>{}</td><td>{}</td></tr>\n",
                esc(&c.judge),
                esc(&c.person),
                esc(&c.scale),
                esc(&c.from),
                esc(&c.to),
                p.n,
                opt(p.kappa_from.value),
                pf(&p.kappa_to),
                pf(&p.delta_kappa),
                pf(&p.delta_agree)
            ));
        }
        h.push_str("</table>\n");
    }
}
