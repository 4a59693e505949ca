//! `jury report --format html`: one self-contained page to share (inline
//! CSS and SVG, no script, no font or file fetched) that opens offline in
//! any browser. It opens with the answers — which judge configuration agrees
//! best, how accurate the classifier is, which verdicts can stand without a
//! person — then the figures behind them (every group with its intervals,
//! base rates, the classifier's accuracy, EvalGen figures and the human
//! ceiling; charts laid out side by side to compare; self-consistency,
//! position bias, prompt versions), the verdicts people disagree with, and
//! where it all comes from.
//!
//! Everything from the store is untrusted text: every string goes through
//! [`esc`] or [`esc_text`]. The layout cannot run off a page: tables have a
//! fixed layout at the page's width and wrap their cells, charts shrink to
//! their card.

mod answers;
mod charts;
mod evidence;
mod figures;
mod more;
mod people;

use super::page::Page;
use super::{GroupBy, Report, figure_text};
use crate::analytics::Figure;

const CSS: &str = "*{box-sizing:border-box}\
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1160px;color:#1d2230;padding:1.2em 20px 3em;overflow-wrap:break-word}\
h1{font-size:1.6em;margin:0 0 .2em}h2{margin-top:2em;border-bottom:1px solid #ccd;padding-bottom:.2em}\
h3{font-size:1.1em;margin:1.6em 0 .3em}\
nav ul{display:flex;flex-wrap:wrap;gap:.2em 1.4em;padding:0;margin:.6em 0;list-style:none}\
a{color:#2a4fb0}.note{color:#555}code{font-size:13px}\
table{border-collapse:collapse;margin:.6em 0;font-size:13px;width:100%;table-layout:fixed}\
td,th{border:1px solid #dde;padding:3px 6px;text-align:right;vertical-align:top;overflow-wrap:anywhere}\
th{background:#f1f3f8;font-weight:600;font-size:12px}.l{text-align:left}\
.ci{display:block;color:#667;font-size:12px}\
.text{white-space:pre-wrap;text-align:left;margin:.2em 0 0}td>div+div{margin-top:.5em}\
tr.differs td:first-child{border-left:4px solid #c95040}\
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,340px),1fr));gap:14px;margin:.3em 0 1.2em}\
.row-head{margin:.8em 0 0;font-weight:600}\
.card{border:1px solid #e3e6ef;border-radius:6px;padding:.6em;min-width:0}\
.card h4{margin:0;font-size:13px;overflow-wrap:anywhere}.card p{margin:.2em 0;font-size:12px;overflow-wrap:anywhere}\
.charts{display:flex;flex-wrap:wrap;gap:6px 14px;align-items:flex-end;margin:.4em 0}\
.sw{display:inline-block;width:10px;height:10px;margin:0 4px 0 0;vertical-align:-1px}\
.sw.left{background:#4a6fd0}.sw.right{background:#e0a030}\
svg{max-width:100%;height:auto;display:block}svg text{font:11px system-ui,sans-serif}\
.wide{overflow-x:auto}.wide table{table-layout:auto;min-width:56em}.wide td,.wide th{overflow-wrap:normal}";

/// The left and right sides' colours in every chart and legend.
const LEFT: &str = "#4a6fd0";
const RIGHT: &str = "#e0a030";

/// HTML text on one line: markup characters escaped, control characters
/// neutralised (names, ids and groups come from imported files).
fn esc(s: &str) -> String {
    escape_html(&crate::sanitize::one_line(s, 300))
}

/// A longer text (a judge's reasoning, a note) with its line breaks kept
/// (shown by `white-space: pre-wrap`), escaped as [`esc`].
fn esc_text(s: &str, max: usize) -> String {
    escape_html(&crate::sanitize::for_display(s, max))
}

fn escape_html(s: &str) -> String {
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

/// A figure in a cell: its value, and under it the interval or the reason
/// there is none ("0.812" / "[0.74,0.88]").
fn fig(f: &Figure) -> String {
    split_cell(&figure_text(f))
}

/// "value rest" as a value with the rest on a line under it.
fn split_cell(t: &str) -> String {
    match t.split_once(' ') {
        Some((v, rest)) => format!("{}<span class=\"ci\">{}</span>", esc(v), esc(rest)),
        None => esc(t),
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or("–".into(), |v| format!("{v:.3}"))
}

/// A share with its interval under it, e.g. "0.60" / "[0.23,0.88]".
fn share_ci(v: Option<f64>, ci: Option<[f64; 2]>) -> String {
    match (v, ci) {
        (Some(v), Some([lo, hi])) => {
            format!("{v:.2}<span class=\"ci\">[{lo:.2},{hi:.2}]</span>")
        }
        (Some(v), None) => format!("{v:.2}"),
        _ => "–".into(),
    }
}

/// A header cell with its share of the table's width (fixed layout: the
/// first row sets the columns).
fn th(label: &str, width: f64, left: bool) -> String {
    format!(
        "<th{} style=\"width:{width:.1}%\">{label}</th>",
        if left { " class=\"l\"" } else { "" }
    )
}

fn by_name(by: GroupBy) -> &'static str {
    match by {
        GroupBy::Classification => "classification",
        GroupBy::Persona => "persona",
        GroupBy::Mode => "mode",
        GroupBy::Model => "model",
        GroupBy::Perspective => "perspective",
    }
}

/// The whole report as one HTML document; `page` adds the verdicts people
/// disagree with and the provenance (read from the store by
/// [`Page::gather`]).
pub fn to_html(report: &Report, page: Option<&Page>) -> String {
    let mut h = String::with_capacity(64 * 1024);
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">");
    h.push_str("<title>jury report</title><style>");
    h.push_str(CSS);
    h.push_str("</style></head><body>\n<header><h1>jury report</h1>\n");
    if let Some(p) = page {
        let v = &p.provenance;
        h.push_str(&format!(
            "<p class=\"note\">Made {} by jury {} from <code>{}</code> · <a href=\"#provenance\">where the figures come from</a></p>\n",
            esc(&v.made_at),
            esc(&v.version),
            esc(&v.store)
        ));
    }
    if let Some(side) = report.side {
        h.push_str(&format!(
            "<p class=\"note\" id=\"split\">On the <b>{}</b> side of the held-out split only.</p>\n",
            side.as_str()
        ));
    }
    nav(&mut h, report, page);
    h.push_str("</header>\n<main>\n");
    people::warnings(&mut h, report);
    h.push_str("<section id=\"answers\">\n");
    answers::answers(&mut h, report);
    h.push_str("</section>\n<section id=\"figures-behind\">\n");
    let charted = charts::charted(&report.groups);
    figures::comparisons(&mut h, &report.groups, report.by, &charted);
    charts::charts(&mut h, &report.groups, &charted);
    people::table(&mut h, report);
    more::notes(&mut h, report);
    h.push_str("</section>\n");
    if let Some(p) = page {
        evidence::disagreements(&mut h, &p.disagreements);
        evidence::provenance(&mut h, &p.provenance, report);
    }
    h.push_str("</main></body></html>\n");
    h
}

/// Links to the page's sections, in order.
fn nav(h: &mut String, report: &Report, page: Option<&Page>) {
    let mut links: Vec<(&str, &str)> = Vec::new();
    if !report.rankings.is_empty() {
        links.push(("ranking", "which judge agrees best"));
    }
    if !report.estimates.is_empty() {
        links.push(("estimates", "how accurate the classifier is"));
    }
    if !report.trust.is_empty() {
        links.push(("trust", "which verdicts can stand alone"));
    }
    links.push(("agreement", "agreement"));
    if report.groups.iter().any(|g| g.figures.n > 0) {
        links.push(("charts", "charts"));
    }
    if !report.people.is_empty() {
        links.push(("people", "people's agreement"));
    }
    if page.is_some() {
        links.push(("disagreements", "where judge and people disagree"));
        links.push(("provenance", "provenance"));
    }
    h.push_str("<nav><ul>");
    for (id, text) in links {
        h.push_str(&format!("<li><a href=\"#{id}\">{text}</a></li>"));
    }
    h.push_str("</ul></nav>\n");
}
