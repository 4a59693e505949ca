//! The agreement view: every comparison `jury report` makes, with n, raw
//! agreement beside its chance-corrected twin and the base rates; for the
//! selected group its confusion matrix and both sides' distributions.

use crate::report::GroupFigures;
use crate::report::pairs::Comparison;
use crate::report::rank::Ranking;
use crate::tui::app::{AgreementRow, AgreementState, App, FiguresState};
use crate::tui::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Bar, BarChart, BarGroup, Block, Paragraph, Widget, Wrap};

pub struct AgreementView<'a> {
    pub app: &'a App,
    pub state: &'a AgreementState,
}

impl Widget for AgreementView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let t = &self.app.chrome.theme;
        let side = match self.state.side {
            None => "all pairs".to_string(),
            Some(s) => format!("{} side of the held-out split only", s.as_str()),
        };
        let on = match &self.state.items {
            Some(items) => format!(
                "on {} listed items ({}) · ",
                items.len(),
                self.app.list.filter.name()
            ),
            None => "on every item · ".to_string(),
        };
        let block = Block::bordered()
            .title(format!(
                " agreement · {on}{side} (j/k select a group, tab cells, enter items, {} all/test/train, esc back) ",
                self.app
                    .chrome
                    .keymap
                    .hint(crate::tui::input::action::Action::CycleSplit)
            ))
            .border_style(t.border_focused)
            .title_style(t.title);
        let inner = block.inner(area);
        block.render(area, buf);
        let inner = super::fewshot_delta::take_rows(self.app, self.state, inner, buf);
        let inner = estimate_rows(&self.state.estimates, inner, buf, t);
        let inner = ranking_rows(&self.state.ranking, inner, buf, t);
        let groups = match &self.state.figures {
            FiguresState::Ready(g) if !g.is_empty() => g,
            FiguresState::Ready(_) => {
                let mut lines = vec![Line::styled(
                    "nothing to compare yet: judge some items and label some rows",
                    t.muted,
                )];
                lines.extend(quick_lines(&self.state.quick, t));
                lines.push(Line::styled(progress_line(self.state), t.text));
                Paragraph::new(lines).render(inner, buf);
                return;
            }
            FiguresState::Computing | FiguresState::Error(_) => {
                let note = match &self.state.figures {
                    FiguresState::Error(e) => format!("the figures could not be computed: {e}"),
                    _ => "computing the figures (kappa, alpha, bootstrap intervals)…".into(),
                };
                let mut lines = vec![Line::styled(note, t.muted), Line::raw("")];
                lines.extend(quick_lines(&self.state.quick, t));
                lines.push(Line::styled(progress_line(self.state), t.text));
                Paragraph::new(lines).render(inner, buf);
                return;
            }
        };
        let [table, detail] =
            Layout::vertical([Constraint::Percentage(55), Constraint::Min(8)]).areas(inner);
        let mut notes = vec![progress_line(self.state)];
        notes.extend(self.state.notes.iter().cloned());
        render_table(groups, self.state.cursor, &notes, table, buf, t);
        if let Some(g) = groups.get(self.state.cursor) {
            let [matrix, figures, chart] = Layout::horizontal([
                Constraint::Percentage(34),
                Constraint::Percentage(33),
                Constraint::Percentage(33),
            ])
            .areas(detail);
            render_matrix(g, self.state.cell, matrix, buf, t);
            render_figures(g, figures, buf, t);
            render_distributions(g, chart, buf, t);
        }
    }
}

/// The classifier's accuracy, one line per classification, at the very top;
/// returns the area left below.
fn estimate_rows(lines: &[String], area: Rect, buf: &mut Buffer, t: &Theme) -> Rect {
    if lines.is_empty() {
        return area;
    }
    // A short screen keeps its rows for the groups: one line, and how many
    // more `jury estimate` gives.
    let room = if area.height < 30 {
        1
    } else {
        usize::from(area.height / 4).max(1)
    };
    let mut shown: Vec<Line> = lines
        .iter()
        .take(room)
        .map(|l| Line::styled(crate::tui::strings::flat(l, 300), t.title))
        .collect();
    if lines.len() > room {
        let last = shown.len() - 1;
        shown[last] = Line::styled(
            format!(
                "+{} more (jury estimate) · {}",
                lines.len() - last - 1,
                crate::tui::strings::flat(&lines[last], 200)
            ),
            t.title,
        );
    }
    let [top, rest] =
        Layout::vertical([Constraint::Length(shown.len() as u16), Constraint::Min(0)]).areas(area);
    Paragraph::new(shown).render(top, buf);
    rest
}

/// Which judge agrees best, one line per configuration, at the top of the
/// view (`jury report --rank` in short); returns the area left below.
fn ranking_rows(rankings: &[Ranking], area: Rect, buf: &mut Buffer, t: &Theme) -> Rect {
    if rankings.is_empty() {
        return area;
    }
    let g = crate::report::paired::value_and_ci;
    let mut lines = Vec::new();
    for r in rankings {
        lines.push(Line::styled(
            format!(
                "which judge agrees best · {} · {} unit(s) all judged · human ceiling: {}",
                crate::tui::strings::flat(&r.scope, 30),
                r.n_shared,
                r.human_ceiling.describe()
            ),
            t.title,
        ));
        for (i, c) in r.configurations.iter().enumerate() {
            let gap = c.gap_text();
            lines.push(Line::styled(
                format!(
                    " {}. {:<48} agree {:<20} {}",
                    i + 1,
                    crate::tui::strings::flat(&format!("{} as {}", c.judge, c.persona), 48),
                    g(&c.agreement),
                    gap
                ),
                t.text,
            ));
        }
        lines.push(Line::styled(
            crate::tui::strings::flat(&r.summary, 300),
            t.muted,
        ));
    }
    if area.height < 30 {
        // A short screen: the heading and the plain-words answer of each.
        lines = rankings
            .iter()
            .map(|r| {
                Line::styled(
                    format!(
                        "which judge agrees best · {}: {}",
                        crate::tui::strings::flat(&r.scope, 20),
                        crate::tui::strings::flat(&r.summary, 200)
                    ),
                    t.title,
                )
            })
            .collect();
    }
    let rows = (lines.len() as u16).min(area.height / 3);
    let [top, rest] = Layout::vertical([Constraint::Length(rows), Constraint::Min(0)]).areas(area);
    Paragraph::new(lines).render(top, buf);
    rest
}

/// Per annotator: how many of the judged or labelled items listed they labelled.
fn progress_line(state: &AgreementState) -> String {
    let (people, of) = &state.progress;
    let each: Vec<String> = people
        .iter()
        .map(|(who, n)| format!("{} {n}/{of}", crate::tui::strings::flat(who, 24)))
        .collect();
    if each.is_empty() {
        format!(
            "labelled (every shown row) of the {of} judged or labelled items listed: nobody yet"
        )
    } else {
        format!(
            "labelled (every shown row) of the {of} judged or labelled items listed: {}",
            each.join(" · ")
        )
    }
}

fn fig(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2}")).unwrap_or_else(|| "–".into())
}

fn short(c: Comparison) -> &'static str {
    match c {
        Comparison::JudgeVsHuman => "judge·human",
        Comparison::HumanVsHuman => "human·human",
        Comparison::ModeVsMode => "mode·mode",
        Comparison::PersonaVsPersona => "persona·persona",
        Comparison::ModelVsModel => "model·model",
        Comparison::PromptVsPrompt => "prompt·prompt",
        Comparison::RunVsRun => "run·run",
    }
}

fn render_table(
    groups: &[GroupFigures],
    cursor: usize,
    notes: &[String],
    area: Rect,
    buf: &mut Buffer,
    t: &Theme,
) {
    let header = format!(
        "{:<16} {:<44} {:<9} {:>6} {:>6} {:>6} {:>6} {:>9} {:>9} {:>16}",
        "comparison",
        "sides",
        "scale",
        "n",
        "agree",
        "kappa",
        "alpha",
        "base L/R",
        "acc L/R",
        "people agree"
    );
    let mut lines = vec![Line::styled(header, t.title)];
    // Header and legend, then the notes below them; groups get the rest.
    let rows = (area.height as usize)
        .saturating_sub(2 + notes.len())
        .max(3);
    let first = cursor.saturating_sub(rows.saturating_sub(1));
    for (i, g) in groups.iter().enumerate().skip(first).take(rows) {
        let f = &g.figures;
        let n = if g.undecided > 0 {
            format!("{}+{}", f.n, g.undecided)
        } else {
            f.n.to_string()
        };
        let acc = match &g.accuracy {
            Some([l, r]) => format!("{}/{}", fig(l.accuracy), fig(r.accuracy)),
            None => "–".into(),
        };
        // The one human ceiling (report::Ceiling): every pair of people on
        // the combinations this judge was measured on.
        let ceil = match &g.ceiling {
            Some(c) if c.n > 0 => format!("{} (n {})", fig(c.percent_agreement.value), c.n),
            _ => "–".into(),
        };
        let text = format!(
            "{:<16} {:<44} {:<9} {:>6} {:>6} {:>6} {:>6} {:>9} {:>9} {:>16}",
            short(g.comparison),
            crate::tui::strings::flat(&format!("{} vs {}", g.left, g.right), 44),
            g.scale.as_str(),
            n,
            fig(f.percent_agreement.value),
            fig(f.cohen_kappa.value),
            fig(f.krippendorff_alpha.value),
            format!(
                "{}/{}",
                fig(f.base_rate.first.mode_share),
                fig(f.base_rate.second.mode_share)
            ),
            acc,
            ceil
        );
        let style = if i == cursor { t.selection } else { t.text };
        lines.push(Line::styled(text, style));
    }
    lines.push(Line::styled(
        "agree is raw agreement; kappa and alpha correct it for chance; base rate = each side's share of its most common value; acc = the classifier's accuracy as each side reads it",
        t.muted,
    ));
    for n in notes {
        // Judge names come from the store: untrusted, one line each.
        let style = if n.starts_with("self-consistency") || n.starts_with("position bias") {
            t.title
        } else {
            t.text
        };
        lines.push(Line::styled(crate::tui::strings::flat(n, 400), style));
    }
    Paragraph::new(lines).render(area, buf);
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

fn render_matrix(
    g: &GroupFigures,
    cell: Option<(usize, usize)>,
    area: Rect,
    buf: &mut Buffer,
    t: &Theme,
) {
    let cats = categories(g);
    let f = &g.figures;
    let w = cats
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(1)
        .max(5);
    let mut lines = vec![
        Line::styled(
            format!(
                "confusion: rows {} · columns {}",
                crate::tui::strings::flat(&g.left, 24),
                crate::tui::strings::flat(&g.right, 24)
            ),
            t.title,
        ),
        Line::styled(
            format!(
                "{:>w$} {}",
                "",
                cats.iter()
                    .map(|c| format!("{c:>w$}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            t.muted,
        ),
    ];
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
    lines.push(Line::styled(
        match cell {
            Some(_) => "enter lists the items of this cell · tab back to the groups",
            None => "tab: into the matrix (arrows pick a cell) · enter lists the group's items",
        },
        t.muted,
    ));
    if let Some(e) = &g.evalgen {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            format!(
                "\"classifier wrong\" as positive: coverage {} · false failures {} · alignment {} (n {})",
                fig(e.coverage),
                fig(e.false_failure_rate),
                fig(e.alignment),
                e.n
            ),
            t.muted,
        ));
    }
    // Wrapped (the EvalGen line is long) without trimming, which would
    // strip the padding that right-aligns the matrix.
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .render(area, buf);
}

/// Every figure of the selected group with its 95 % interval, as `jury report` gives them.
fn render_figures(g: &GroupFigures, area: Rect, buf: &mut Buffer, t: &Theme) {
    let f = &g.figures;
    let with_ci = crate::report::value_with_ci;
    let row = |name: &str, x: &crate::analytics::Figure| {
        Line::styled(
            format!("{name:<18} {}", crate::report::figure_text(x)),
            t.text,
        )
    };
    let mut lines = vec![
        Line::styled(
            format!(
                "figures · n {}{}",
                f.n,
                if g.undecided > 0 {
                    format!(" (+{} undecided)", g.undecided)
                } else {
                    String::new()
                }
            ),
            t.title,
        ),
        row("agreement", &f.percent_agreement),
    ];
    if f.ordinal {
        lines.push(row("within one", &f.within_one));
    }
    lines.push(row("Cohen's kappa", &f.cohen_kappa));
    if f.ordinal {
        lines.push(row("kappa (quadratic)", &f.weighted_kappa_quadratic));
    }
    lines.push(row("Krippendorff α", &f.krippendorff_alpha));
    if f.ordinal {
        lines.push(row("Spearman", &f.spearman));
        lines.push(row("mean abs diff", &f.mean_abs_diff));
    }
    lines.push(Line::styled(
        format!(
            "base rate L/R      {} / {}",
            fig(f.base_rate.first.mode_share),
            fig(f.base_rate.second.mode_share)
        ),
        t.text,
    ));
    if let Some([l, r]) = &g.accuracy {
        lines.push(Line::styled(
            format!("accuracy (judge)   {}", with_ci(l.accuracy, l.ci95)),
            t.text,
        ));
        lines.push(Line::styled(
            format!("accuracy (human)   {}", with_ci(r.accuracy, r.ci95)),
            t.text,
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
        lines.push(Line::styled(format!("people agree       {text}"), t.text));
    }
    lines.push(Line::styled(
        format!(
            "[a,b] 95 %: Wilson for shares, else {} resamples (n≥30)",
            f.bootstrap_resamples
        ),
        t.muted,
    ));
    Paragraph::new(lines).render(area, buf);
}

/// Both sides' value distributions (the confusion matrix's margins) as bars.
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
    let mut chart = BarChart::default()
        .block(
            Block::bordered()
                .title(" distribution: left (judge colour) / right (human colour) ")
                .border_style(t.border)
                .title_style(t.muted),
        )
        .bar_width(bar_width)
        .bar_gap(0)
        .group_gap(2);
    for bg in groups {
        chart = chart.data(bg);
    }
    chart.render(area, buf);
}

/// The counts the screen can give at once, while the figures are computed.
fn quick_lines<'a>(rows: &[AgreementRow], t: &Theme) -> Vec<Line<'a>> {
    let mut lines = vec![Line::styled(
        format!(
            "{:<28} {:>6} {:>8} {:>10}",
            "judge vs you, per classification", "n", "agree", "undecided"
        ),
        t.title,
    )];
    for r in rows {
        lines.push(Line::styled(
            format!(
                "{:<28} {:>6} {:>8} {:>10}",
                crate::tui::strings::flat(&r.classification, 28),
                r.n,
                r.agree,
                r.undecided
            ),
            t.text,
        ));
    }
    lines
}
