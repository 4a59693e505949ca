//! The agreement view's selected group: its confusion matrix (never
//! wrapped: a matrix row is one screen row), every figure with its interval,
//! and both sides' distributions when the screen is wide enough for them.

use crate::report::GroupFigures;
use crate::tui::layout::wrapped_rows;
use crate::tui::strings::flat;
use crate::tui::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Block, Paragraph, Widget, Wrap};

/// The matrix column is at least this wide (its title and hint read).
const MATRIX_LEAST: u16 = 24;
/// The distributions are drawn only when this much is left beside the matrix
/// for them and the figures (half each): from about 160 columns.
const CHART_ROOM: u16 = 100;

/// Where the matrix, the figures and (room allowing) the chart go.
struct Columns {
    matrix: Rect,
    figures: Rect,
    chart: Option<Rect>,
}

fn columns(g: &GroupFigures, area: Rect) -> Columns {
    // A third of the screen when that is more: the title names both sides.
    let m = matrix_width(g)
        .max(MATRIX_LEAST)
        .max(area.width / 3)
        .min(area.width);
    let rest = area.width.saturating_sub(m + 1);
    if rest >= CHART_ROOM {
        let [matrix, _, figures, chart] = Layout::horizontal([
            Constraint::Length(m),
            Constraint::Length(1),
            Constraint::Length(rest / 2),
            Constraint::Min(0),
        ])
        .areas(area);
        Columns {
            matrix,
            figures,
            chart: Some(chart),
        }
    } else {
        let [matrix, _, figures] = Layout::horizontal([
            Constraint::Length(m),
            Constraint::Length(1),
            Constraint::Min(0),
        ])
        .areas(area);
        Columns {
            matrix,
            figures,
            chart: None,
        }
    }
}

/// Rows the detail of `g` wants on a screen `width` columns wide: the taller
/// of the matrix (title, header, its rows, the hint) and the figures.
pub fn rows_wanted(g: &GroupFigures, cell: Option<(usize, usize)>, width: u16) -> u16 {
    let c = columns(g, Rect::new(0, 0, width, 1));
    let w = |r: Rect| usize::from(r.width.max(1));
    let matrix = matrix_title(g, c.matrix.width).len()
        + 1
        + g.figures.k
        + wrapped_rows(matrix_hint(cell), w(c.matrix));
    let figures: usize = figure_lines(g)
        .iter()
        .map(|(l, _)| wrapped_rows(l, w(c.figures)))
        .sum();
    u16::try_from(matrix.max(figures)).unwrap_or(u16::MAX)
}

pub fn render(
    g: &GroupFigures,
    cell: Option<(usize, usize)>,
    area: Rect,
    buf: &mut Buffer,
    t: &Theme,
) {
    let c = columns(g, area);
    render_matrix(g, cell, c.matrix, buf, t);
    render_figures(g, c.figures, buf, t);
    if let Some(chart) = c.chart {
        render_distributions(g, chart, buf, t);
    }
}

/// Value names of the group's scale, in matrix order.
fn categories(g: &GroupFigures) -> Vec<String> {
    let k = g.figures.k;
    let names: Vec<String> = g.scale.values().iter().map(|v| v.as_text()).collect();
    if names.len() == k {
        names
    } else {
        (0..k).map(|i| i.to_string()).collect()
    }
}

/// A matrix takes at most this many columns with roomy cells; past it (a
/// 0–9 scale) cells shrink to what they hold.
const ROOMY_MATRIX: usize = 40;

/// A matrix cell's width: five columns, or its longest value name or its
/// largest count with the selection's brackets when wider; down to what
/// they hold when five would make the matrix too wide.
fn cell_width(g: &GroupFigures) -> usize {
    let names = categories(g)
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(1);
    let counts = g
        .figures
        .confusion_matrix
        .iter()
        .flatten()
        .map(|c| c.to_string().len() + 2)
        .max()
        .unwrap_or(3);
    let k = g.figures.k;
    let roomy = names.max(counts).max(5);
    if roomy + k * (roomy + 1) <= ROOMY_MATRIX {
        roomy
    } else {
        names.max(counts).max(3)
    }
}

/// Columns the matrix takes: the row names, then a cell per value.
fn matrix_width(g: &GroupFigures) -> u16 {
    let w = cell_width(g);
    u16::try_from(w + g.figures.k * (w + 1)).unwrap_or(u16::MAX)
}

/// Which side the rows and the columns are: one line when it fits in
/// `width`, else one line each.
fn matrix_title(g: &GroupFigures, width: u16) -> Vec<String> {
    let (left, right) = (flat(&g.left, 60), flat(&g.right, 60));
    let one = format!("confusion: rows {left} · columns {right}");
    if unicode_width::UnicodeWidthStr::width(one.as_str()) <= usize::from(width) {
        vec![one]
    } else {
        vec![format!("rows {left}"), format!("columns {right}")]
    }
}

fn matrix_hint(cell: Option<(usize, usize)>) -> &'static str {
    match cell {
        Some(_) => "enter lists the items of this cell · tab back to the groups",
        None => "tab: into the matrix (arrows pick a cell) · enter lists the group's items",
    }
}

fn render_matrix(
    g: &GroupFigures,
    cell: Option<(usize, usize)>,
    area: Rect,
    buf: &mut Buffer,
    t: &Theme,
) {
    let cats = categories(g);
    let f = &g.figures;
    let w = cell_width(g);
    let mut lines: Vec<Line> = matrix_title(g, area.width)
        .into_iter()
        .map(|l| Line::styled(l, t.title))
        .collect();
    lines.push(Line::styled(
        format!(
            "{:>w$} {}",
            "",
            cats.iter()
                .map(|c| format!("{c:>w$}"))
                .collect::<Vec<_>>()
                .join(" ")
        ),
        t.muted,
    ));
    for (i, row) in f.confusion_matrix.iter().enumerate() {
        let mut spans = vec![Span::styled(format!("{:>w$}", cats[i]), t.text)];
        for (j, c) in row.iter().enumerate() {
            spans.push(Span::raw(" "));
            // Brackets as well as the colour: the selection reads on any theme.
            let (text, style) = if cell == Some((i, j)) {
                (format!("{:>w$}", format!("[{c}]")), t.selection)
            } else {
                (format!("{c:>w$}"), t.text)
            };
            spans.push(Span::styled(text, style));
        }
        lines.push(Line::from(spans));
    }
    // The matrix is cut, never wrapped: a wrapped row would read as two.
    let rows = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .min(area.height);
    let [top, rest] = Layout::vertical([Constraint::Length(rows), Constraint::Min(0)]).areas(area);
    Paragraph::new(lines).render(top, buf);
    Paragraph::new(Line::styled(matrix_hint(cell), t.muted))
        .wrap(Wrap { trim: true })
        .render(rest, buf);
}

/// Every figure of the group, as `jury report` gives them, each with its
/// style: the heading, the figures, the footnote.
fn figure_lines(g: &GroupFigures) -> Vec<(String, Role)> {
    let f = &g.figures;
    let with_ci = crate::report::value_with_ci;
    let row = |name: &str, x: &crate::analytics::Figure| {
        (
            format!("{name:<18} {}", crate::report::figure_text(x)),
            Role::Text,
        )
    };
    let undecided = if g.undecided > 0 {
        format!(" (+{} undecided)", g.undecided)
    } else {
        String::new()
    };
    let mut lines = vec![
        (format!("figures · n {}{undecided}", f.n), Role::Title),
        row("agreement", &f.percent_agreement),
    ];
    // Undecided pairs count as `jury report` counts them: out of the
    // figures below, in this one as half agreeing.
    if let Some(half) = &g.agreement_undecided_half {
        lines.push(row("agree, 3 as 0.5", half));
    }
    if f.ordinal {
        lines.push(row("within one", &f.within_one));
    }
    lines.push(row("Cohen's kappa", &f.cohen_kappa));
    lines.push(row("Gwet's AC1", &f.gwet_ac1));
    lines.push(row("PABAK", &f.pabak));
    if let Some(note) = &f.prevalence {
        lines.push((format!("kappa misleads: {note}"), Role::Title));
    }
    if f.ordinal {
        lines.push(row("kappa (quadratic)", &f.weighted_kappa_quadratic));
    }
    lines.push(row("Krippendorff α", &f.krippendorff_alpha));
    if f.ordinal {
        lines.push(row("Spearman", &f.spearman));
        lines.push(row("mean abs diff", &f.mean_abs_diff));
    }
    lines.push((
        format!(
            "base rate L/R      {} / {}",
            fig(f.base_rate.first.mode_share),
            fig(f.base_rate.second.mode_share)
        ),
        Role::Text,
    ));
    if let Some([l, r]) = &g.accuracy {
        lines.push((
            format!("accuracy (judge)   {}", with_ci(l.accuracy, l.ci95)),
            Role::Text,
        ));
        lines.push((
            format!("accuracy (human)   {}", with_ci(r.accuracy, r.ci95)),
            Role::Text,
        ));
    }
    if let Some(c) = &g.ceiling {
        let text = if c.n == 0 {
            "no two people here".to_string()
        } else {
            format!(
                "{} · {} pairs",
                crate::report::figure_text(&c.percent_agreement),
                c.n
            )
        };
        lines.push((format!("people agree       {text}"), Role::Text));
    }
    if let Some(e) = &g.evalgen {
        lines.push((
            format!(
                "\"classifier wrong\" as positive: coverage {} · false failures {} · alignment {} (n {})",
                fig(e.coverage),
                fig(e.false_failure_rate),
                fig(e.alignment),
                e.n
            ),
            Role::Muted,
        ));
    }
    lines.push((
        format!(
            "[a,b] 95 %: exact for shares, else {} resamples (n≥30)",
            f.bootstrap_resamples
        ),
        Role::Muted,
    ));
    lines
}

#[derive(Clone, Copy)]
enum Role {
    Title,
    Text,
    Muted,
}

/// Every figure of the selected group with its 95 % interval, wrapped
/// rather than cut.
fn render_figures(g: &GroupFigures, area: Rect, buf: &mut Buffer, t: &Theme) {
    let lines: Vec<Line> = figure_lines(g)
        .into_iter()
        .map(|(text, role)| {
            let style = match role {
                Role::Title => t.title,
                Role::Text => t.text,
                Role::Muted => t.muted,
            };
            Line::styled(text, style)
        })
        .collect();
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .render(area, buf);
}

/// Both sides' value distributions (the confusion matrix's margins) as bars;
/// the title names each side in its bars' colour.
fn render_distributions(g: &GroupFigures, area: Rect, buf: &mut Buffer, t: &Theme) {
    let cats = categories(g);
    let left = &g.figures.base_rate.first.counts;
    let right = &g.figures.base_rate.second.counts;
    let groups: Vec<BarGroup> = cats
        .iter()
        .enumerate()
        .map(|(i, c)| {
            BarGroup::default().label(Line::from(c.clone())).bars(&[
                Bar::default()
                    .value(left.get(i).copied().unwrap_or(0))
                    .style(t.judge),
                Bar::default()
                    .value(right.get(i).copied().unwrap_or(0))
                    .style(t.human),
            ])
        })
        .collect();
    let bar_width = ((area.width.saturating_sub(2) as usize / cats.len().max(1)).saturating_sub(2)
        / 2)
    .clamp(1, 6) as u16;
    let title = Line::from(vec![
        Span::styled(" distributions: ", t.muted),
        Span::styled("left", t.judge),
        Span::styled(" / ", t.muted),
        Span::styled("right", t.human),
        Span::styled(" ", t.muted),
    ]);
    let mut chart = BarChart::default()
        .block(Block::bordered().title(title).border_style(t.border))
        .bar_width(bar_width)
        .bar_gap(0)
        .group_gap(2);
    for bg in groups {
        chart = chart.data(bg);
    }
    chart.render(area, buf);
}

fn fig(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2}")).unwrap_or_else(|| "–".into())
}
