//! Each group's confusion matrix and both sides' distributions, as cards
//! laid out to be compared: per comparison, the groups against the same
//! right side on the same scale (e.g. every judge against alice on Likert)
//! share a row, and with a few judges each has its own column, so a reader
//! compares across a row and down a column. Side names are in HTML (they
//! wrap, never cut); the SVGs hold values and marks only and shrink to
//! their card.

use super::super::GroupFigures;
use super::super::figure_text;
use super::super::pairs::Comparison;
use super::figures::{by_value, names};
use super::{LEFT, RIGHT, esc};
use crate::domain::Value;

/// Groups drawn as charts; the tables list every group (a report split by
/// thousands of classifications stays a file a browser opens).
const MAX_CHARTS: usize = 120;

/// The widest a character of an 11 px label may be (DejaVu Sans, the
/// fallback of `system-ui` on many Linux systems, draws digits and capitals
/// near 8 px): labels are given this much room so none is cut.
const CHAR: usize = 8;

/// Up to this many first sides get a column each (four cards of ~270 px fit
/// a 1200 px page); more flow in rows.
const MAX_COLUMNS: usize = 4;

/// Which groups get a chart (`groups[i]` ↔ `[i]`): those with pairs, the
/// first [`MAX_CHARTS`] of them.
pub(super) fn charted(groups: &[GroupFigures]) -> Vec<bool> {
    let mut left = MAX_CHARTS;
    groups
        .iter()
        .map(|g| {
            let drawn = g.figures.n > 0 && left > 0;
            if drawn {
                left -= 1;
            }
            drawn
        })
        .collect()
}

pub(super) fn charts(h: &mut String, groups: &[GroupFigures], charted: &[bool]) {
    let drawn = charted.iter().filter(|c| **c).count();
    if drawn == 0 {
        return;
    }
    h.push_str("<h2 id=\"charts\">Confusion matrices and distributions</h2>\n<p class=\"note\">In each card the matrix's rows are the first side (blue) and its columns the second (orange), the diagonal (agreement) in green; the bars are each side's share of every value, on the same 0–100 % scale in every card.</p>\n");
    for c in Comparison::ALL {
        let mut cards: Vec<(usize, &GroupFigures)> = groups
            .iter()
            .enumerate()
            .filter(|(i, g)| g.comparison == c && charted[*i])
            .collect();
        if cards.is_empty() {
            continue;
        }
        // Against the same side on the same scale, next to each other.
        let row = |g: &GroupFigures| (by_value(g).to_string(), g.right.clone(), g.scale_name());
        cards.sort_by_key(|(i, g)| (row(g), *i));
        h.push_str(&format!("<h3>{}</h3>\n", names(c).0));
        let rows: Vec<&[(usize, &GroupFigures)]> =
            cards.chunk_by(|a, b| row(a.1) == row(b.1)).collect();
        // A few first sides (judges): a column each, so a judge's cards sit
        // under each other and a row compares them side by side.
        let mut lefts: Vec<&str> = cards.iter().map(|(_, g)| g.left.as_str()).collect();
        lefts.sort_unstable();
        lefts.dedup();
        let columns = (2..=MAX_COLUMNS).contains(&lefts.len()) && rows.iter().any(|r| r.len() > 1);
        if rows.iter().any(|r| r.len() > 1) {
            for r in rows {
                let (by, right, scale) = row(r[0].1);
                let by = if by.is_empty() {
                    by
                } else {
                    format!("{by} · ")
                };
                h.push_str(&format!(
                    "<p class=\"row-head\">{}against {} · {}</p>\n",
                    esc(&by),
                    esc(&right),
                    esc(&scale)
                ));
                if columns {
                    h.push_str(&format!(
                        "<div class=\"grid\" style=\"grid-template-columns:repeat({},minmax(0,1fr))\">\n",
                        lefts.len()
                    ));
                } else {
                    h.push_str("<div class=\"grid\">\n");
                }
                for (i, g) in r {
                    let column = lefts
                        .binary_search(&g.left.as_str())
                        .ok()
                        .filter(|_| columns);
                    card(h, *i, g, column);
                }
                h.push_str("</div>\n");
            }
        } else {
            // Nothing shares a row: one grid, so the cards still sit side by side.
            h.push_str("<div class=\"grid\">\n");
            for (i, g) in &cards {
                card(h, *i, g, None);
            }
            h.push_str("</div>\n");
        }
    }
    let total = groups.iter().filter(|g| g.figures.n > 0).count();
    if total > drawn {
        h.push_str(&format!(
            "<p class=\"note\">{} more group(s) are in the tables above without charts.</p>\n",
            total - drawn
        ));
    }
}

/// One group's card; `column` places it in its judge's column (0-based).
fn card(h: &mut String, i: usize, g: &GroupFigures, column: Option<usize>) {
    let labels: Vec<String> = g.scale.values().into_iter().map(Value::as_text).collect();
    let by = by_value(g);
    h.push_str(&format!(
        "<div class=\"card\" id=\"group-{i}\"{}><h4>{}{}</h4><p>vs {} · {} · n {} · agree {}</p>",
        column.map_or(String::new(), |c| format!(
            " style=\"grid-column:{}\"",
            c + 1
        )),
        if by.is_empty() {
            String::new()
        } else {
            format!("{} · ", esc(by))
        },
        esc(&g.left),
        esc(&g.right),
        esc(&g.scale_name()),
        g.figures.n,
        esc(&figure_text(&g.figures.percent_agreement))
    ));
    h.push_str("<div class=\"charts\">");
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
    h.push_str(&format!(
        "</div><p><span class=\"sw left\"></span>{} (rows) · <span class=\"sw right\"></span>{} (columns)</p></div>\n",
        esc(&g.left),
        esc(&g.right)
    ));
}

/// A k×k heatmap: rows the left side, columns the right, each cell's count.
fn confusion_svg(m: &[Vec<u64>], labels: &[String], left: &str, right: &str) -> String {
    let k = m.len().max(1);
    // Wide enough for the longest value name under its column and the
    // largest count in a cell.
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1);
    let max = m.iter().flatten().copied().max().unwrap_or(0).max(1);
    let digits = max.to_string().len();
    let cell = if k > 6 {
        26
    } else {
        (CHAR * longest + 10).clamp(34, 76)
    }
    .max(CHAR * digits + 6);
    let x0 = (CHAR * longest + 12).max(20);
    let y0 = 4;
    let (w, hgt) = (x0 + cell * k + 4, y0 + cell * k + 20);
    let mut s = format!(
        "<svg class=\"confusion\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{hgt}\" viewBox=\"0 0 {w} {hgt}\" role=\"img\"><title>confusion matrix: {} (rows) vs {} (columns)</title>",
        esc(left),
        esc(right)
    );
    for (r, row) in m.iter().enumerate() {
        let y = y0 + r * cell;
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"{LEFT}\">{}</text>",
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
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#a06a10\">{}</text>",
            x0 + c * cell + cell / 2,
            y0 + cell * k + 15,
            esc(l)
        ));
    }
    s.push_str("</svg>");
    s
}

/// Both sides' value distributions (the matrix's row and column sums) as
/// paired bars, each value's share of n on a fixed 0–100 % track, so cards
/// compare at a glance.
fn distribution_svg(m: &[Vec<u64>], labels: &[String], left: &str, right: &str) -> String {
    let k = m.len();
    let rows: Vec<u64> = m.iter().map(|r| r.iter().sum()).collect();
    let cols: Vec<u64> = (0..k).map(|c| m.iter().map(|r| r[c]).sum()).collect();
    let n = rows.iter().sum::<u64>().max(1) as f64;
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(1);
    let bar = if k > 6 { 9usize } else { 12 };
    let slot = (2 * bar + 6).max(CHAR * longest + 6);
    // Room for "100%" left of the bars.
    let (x0, top, plot) = (4 * CHAR + 8, 6usize, 100usize);
    let w = x0 + k * slot + 4;
    let hgt = top + plot + 20;
    let mut s = format!(
        "<svg class=\"distribution\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{hgt}\" viewBox=\"0 0 {w} {hgt}\" role=\"img\"><title>value distributions: {} and {}</title>",
        esc(left),
        esc(right)
    );
    s.push_str(&format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#667\">100%</text><text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#667\">0</text>",
        x0 - 4,
        top + 8,
        x0 - 4,
        top + plot
    ));
    for c in 0..k {
        let x = x0 + c * slot + (slot - 2 * bar) / 2;
        // The track: where 100 % would reach.
        s.push_str(&format!(
            "<rect x=\"{x}\" y=\"{top}\" width=\"{}\" height=\"{plot}\" fill=\"#eef0f6\"/>",
            2 * bar
        ));
        for (j, (count, colour)) in [(rows[c], LEFT), (cols[c], RIGHT)].iter().enumerate() {
            let share = *count as f64 / n;
            let bh = (share * plot as f64).round() as usize;
            s.push_str(&format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{bar}\" height=\"{bh}\" fill=\"{colour}\"><title>{count} ({:.0} %)</title></rect>",
                x + j * bar,
                top + plot - bh,
                share * 100.0
            ));
        }
        s.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            x + bar,
            top + plot + 15,
            esc(labels.get(c).map_or("", String::as_str))
        ));
    }
    s.push_str("</svg>");
    s
}
