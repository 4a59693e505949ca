//! The agreement view: every comparison `jury report` makes, with n, raw
//! agreement beside its chance-corrected twin and the base rates; for the
//! selected group its confusion matrix and both sides' distributions
//! ([`super::agreement_detail`]). On a narrow screen the table's columns
//! give way by rank ([`columns::AGREEMENT`]) and a key shows the others.

use super::agreement_detail;
use crate::report::GroupFigures;
use crate::report::pairs::Comparison;
use crate::report::rank::Ranking;
use crate::tui::app::{AgreementRow, AgreementState, App, FiguresState};
use crate::tui::input::action::Action;
use crate::tui::layout::{columns, wrapped_rows};
use crate::tui::strings::{self, flat};
use crate::tui::theme::Theme;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Widget, Wrap};

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
        let t = &self.app.chrome.theme;
        let paged = columns::paged(columns::AGREEMENT, inner.width, self.app.chrome.column_page);
        let heads: Vec<&str> = paged.cols.iter().map(|c| c.head).collect();
        let mut footer = vec![Line::styled(
            strings::table::agreement_legend(&heads, groups.iter().any(|g| g.undecided > 0)),
            t.muted,
        )];
        // Said where it is true: a kappa in view marked misleading.
        if heads.contains(&"kappa") && groups.iter().any(|g| g.figures.prevalence.is_some()) {
            footer.push(Line::styled(strings::table::PREVALENCE_MARK, t.title));
        }
        footer.push(Line::styled(progress_line(self.state), t.text));
        for n in &self.state.notes {
            // Judge names come from the store: untrusted, one line each.
            let style = if n.starts_with("self-consistency") || n.starts_with("position bias") {
                t.title
            } else {
                t.text
            };
            footer.push(Line::styled(flat(n, 400), style));
        }
        let table = Table {
            groups,
            cursor: self.state.cursor,
            cols: paged.cols,
            page: paged.page,
            next: paged.next,
            columns_key: self.app.chrome.keymap.hint(Action::OtherColumns),
            footer,
        };
        let selected = groups.get(self.state.cursor);
        let detail_want = selected
            .map(|g| agreement_detail::rows_wanted(g, self.state.cell, inner.width))
            .unwrap_or(0);
        let (table_h, _) = split(inner.height, table.rows_wanted(inner.width), detail_want);
        let [top, detail] =
            Layout::vertical([Constraint::Length(table_h), Constraint::Min(0)]).areas(inner);
        table.render(top, buf, t);
        if let Some(g) = selected {
            agreement_detail::render(g, self.state.cell, detail, buf, t);
        }
    }
}

/// The group table keeps at least this many rows (header, three groups, the
/// line saying what is below, the legend) when the detail wants more.
const TABLE_LEAST: u16 = 8;

/// Rows for the table and the detail out of `height`: each what it wants
/// when both fit (the detail takes the rest), else the detail gives way
/// down to what leaves the table its least.
fn split(height: u16, table: u16, detail: u16) -> (u16, u16) {
    if table.saturating_add(detail) <= height {
        return (table, height - table);
    }
    let detail = detail.min(height.saturating_sub(TABLE_LEAST.min(table)));
    (height - detail, detail)
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
    // Wrapped, never cut: the estimate and the trust threshold are read to
    // their end (at 160 columns they ran past it). Room for a line is its
    // width over the pane's, with a margin for where the words break.
    let width = usize::from(area.width.max(1));
    let rows: usize = shown
        .iter()
        .map(|l| {
            let w = l.width();
            if w <= width {
                1
            } else {
                w.div_ceil(width.saturating_sub(12).max(1))
            }
        })
        .sum();
    let rows = u16::try_from(rows).unwrap_or(u16::MAX).min(area.height);
    let [top, rest] = Layout::vertical([Constraint::Length(rows), Constraint::Min(0)]).areas(area);
    Paragraph::new(shown)
        .wrap(Wrap { trim: true })
        .render(top, buf);
    rest
}

/// Which judge agrees best, one line per configuration, at the top of the
/// view (`jury report --rank` in short); returns the area left below.
fn ranking_rows(rankings: &[Ranking], area: Rect, buf: &mut Buffer, t: &Theme) -> Rect {
    if rankings.is_empty() {
        return area;
    }
    let g = crate::report::paired::value_and_ci;
    let name = |c: &crate::report::rank::Ranked| format!("{} as {}", c.shown_judge(), c.persona);
    // The names as wide as the screen leaves them (the prompt set and the
    // persona are at their end): the figures and the gap take ~67 columns.
    let longest = rankings
        .iter()
        .flat_map(|r| &r.configurations)
        .map(|c| name(c).chars().count())
        .max()
        .unwrap_or(0);
    let w = longest
        .min(usize::from(area.width).saturating_sub(67))
        .max(24);
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
                    " {}. {:<w$} agree {:<20} {}",
                    i + 1,
                    crate::tui::strings::flat(&name(c), w),
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

/// A figure that cannot pass 1 in [`columns::FIGURE_WIDTH`] columns:
/// `.26 [.12,.40]`, `-.33 [-.70,-.05]`, or without an interval the short
/// reason, `.26 (n<30)` (the detail below gives every figure as the report
/// writes it).
fn short_figure(f: &crate::analytics::Figure) -> String {
    let x = |v: f64| {
        let s = format!("{v:.2}");
        match s.strip_prefix("0.") {
            Some(rest) => format!(".{rest}"),
            None => s.replacen("-0.", "-.", 1),
        }
    };
    // A bound at ±1 as "1": "-1.00 [-1.00,-.85]" would not fit.
    let bound = |v: f64| match x(v).as_str() {
        "1.00" => "1".to_string(),
        "-1.00" => "-1".to_string(),
        s => s.to_string(),
    };
    let Some(v) = f.value else {
        return "–".into();
    };
    match (f.ci95, f.no_ci) {
        (Some([lo, hi]), _) => format!("{} [{},{}]", x(v), bound(lo), bound(hi)),
        (None, Some(crate::analytics::NoInterval::FewOffDominant)) => {
            format!("{} (dominant)", x(v))
        }
        (None, Some(why)) => format!("{} ({})", x(v), why.short()),
        (None, None) => x(v),
    }
}

fn short(c: Comparison) -> &'static str {
    match c {
        Comparison::JudgeVsHuman => "judge·human",
        Comparison::HumanVsHuman => "human·human",
        // Eleven columns at most (the table's comparison column).
        Comparison::ModeVsMode => "2 modes",
        Comparison::PersonaVsPersona => "2 personas",
        Comparison::ModelVsModel => "2 models",
        Comparison::PromptVsPrompt => "2 prompts",
        Comparison::RunVsRun => "2 runs",
        Comparison::JudgeVsReference => "judge·ref",
    }
}

/// The group table: a header, the groups around the cursor (the columns
/// the width holds), a line saying what is above, below and a key away,
/// then the legend and the notes, wrapped.
struct Table<'a> {
    groups: &'a [GroupFigures],
    cursor: usize,
    cols: Vec<columns::Column>,
    /// The set of columns in view and how many sets there are.
    page: (usize, usize),
    /// The columns the key shows next.
    next: Vec<&'static str>,
    columns_key: String,
    footer: Vec<Line<'a>>,
}

impl Table<'_> {
    fn footer_rows(&self, width: u16) -> u16 {
        let w = usize::from(width.max(1));
        let rows: usize = self
            .footer
            .iter()
            .map(|l| wrapped_rows(&l.to_string(), w))
            .sum();
        u16::try_from(rows).unwrap_or(u16::MAX)
    }

    /// Rows to show every group, the legend and the notes.
    fn rows_wanted(&self, width: u16) -> u16 {
        let status = u16::from(self.page.1 > 1);
        let groups = u16::try_from(self.groups.len()).unwrap_or(u16::MAX);
        (1 + groups + status).saturating_add(self.footer_rows(width))
    }

    fn render(self, area: Rect, buf: &mut Buffer, t: &Theme) {
        let footer_rows = self.footer_rows(area.width);
        let n = self.groups.len();
        // Header, the groups, the status line; the legend and notes below
        // take what is left.
        let room = usize::from(area.height.saturating_sub(1));
        let all_fit = n + usize::from(self.page.1 > 1) + usize::from(footer_rows) <= room;
        // Short of room the groups keep half the table (at least three),
        // and the legend and notes below give way first.
        let rows = if all_fit {
            n
        } else {
            room.saturating_sub(1 + usize::from(footer_rows))
                .max(room / 2)
                .max(3)
                .min(n)
        };
        let first = self.cursor.saturating_sub(rows.saturating_sub(1));
        let mut lines = vec![Line::styled(columns::header(&self.cols), t.title)];
        for (i, g) in self.groups.iter().enumerate().skip(first).take(rows) {
            let style = if i == self.cursor {
                t.selection
            } else {
                t.text
            };
            // The sides cut in the middle: rows for different people
            // must not read the same.
            let sides_w = self
                .cols
                .iter()
                .find(|c| c.head == "sides")
                .map(|c| c.width);
            lines.push(Line::styled(
                columns::row(&self.cols, |head| match (head, sides_w) {
                    ("sides", Some(w)) => columns::elide_middle(&group_cell(g, head), w),
                    _ => group_cell(g, head),
                }),
                style,
            ));
        }
        let below = n.saturating_sub(first + rows);
        let status = strings::table::status(
            first,
            below,
            &self.columns_key,
            self.page,
            &self.next,
            strings::table::AGREEMENT_FIRST,
        );
        if let Some(s) = status {
            lines.push(Line::styled(s, t.muted));
        }
        let top_rows = u16::try_from(lines.len())
            .unwrap_or(u16::MAX)
            .min(area.height);
        let [top, rest] =
            Layout::vertical([Constraint::Length(top_rows), Constraint::Min(0)]).areas(area);
        // Rows are cut, never wrapped: a wrapped row would read as two groups.
        Paragraph::new(lines).render(top, buf);
        Paragraph::new(self.footer)
            .wrap(Wrap { trim: false })
            .render(rest, buf);
    }
}

/// A group's cell under the column `head` (see [`columns::AGREEMENT`]).
fn group_cell(g: &GroupFigures, head: &str) -> String {
    let f = &g.figures;
    match head {
        "comparison" => short(g.comparison).into(),
        "sides" => flat(&format!("{} vs {}", g.left, g.right), 60),
        "scale" => g.scale.as_str().into(),
        "n" if g.undecided > 0 => format!("{}+{}", f.n, g.undecided),
        "n" => f.n.to_string(),
        "agree" => fig(f.percent_agreement.value),
        // The report's "agree with 3 as 0.5": every pair, undecided ones
        // half agreeing; only where some were undecided.
        "3 as .5" => match &g.agreement_undecided_half {
            Some(h) => fig(h.value),
            None => "–".into(),
        },
        // A misleading kappa is marked; the others keep the mark's column
        // so that the figures stay aligned.
        "kappa" => format!(
            "{}{}",
            short_figure(&f.cohen_kappa),
            if f.prevalence.is_some() { "!" } else { " " }
        ),
        "AC1" => short_figure(&f.gwet_ac1),
        "PABAK" => short_figure(&f.pabak),
        "alpha" => fig(f.krippendorff_alpha.value),
        "base L/R" => format!(
            "{}/{}",
            fig(f.base_rate.first.mode_share),
            fig(f.base_rate.second.mode_share)
        ),
        "acc L/R" => match &g.accuracy {
            Some([l, r]) => format!("{}/{}", fig(l.accuracy), fig(r.accuracy)),
            None => "–".into(),
        },
        // The one human ceiling (report::Ceiling): every pair of people on
        // the combinations this judge was measured on.
        "people agree" => match &g.ceiling {
            Some(c) if c.n > 0 => format!("{} (n {})", fig(c.percent_agreement.value), c.n),
            _ => "–".into(),
        },
        _ => String::new(),
    }
}

/// The counts the screen can give at once, while the figures are computed:
/// undecided pairs counted, and in "3 as .5" half agreeing, as the figures
/// below will count them.
fn quick_lines<'a>(rows: &[AgreementRow], t: &Theme) -> Vec<Line<'a>> {
    let mut lines = vec![Line::styled(
        format!(
            "{:<28} {:>6} {:>8} {:>10} {:>8}",
            "judge vs you, per classification", "n", "agree", "undecided", "3 as .5"
        ),
        t.title,
    )];
    for r in rows {
        let half = if r.undecided > 0 && r.half_n > 0 {
            format!("{:.2}", r.half_credit / r.half_n as f64)
        } else {
            "–".into()
        };
        lines.push(Line::styled(
            format!(
                "{:<28} {:>6} {:>8} {:>10} {:>8}",
                crate::tui::strings::flat(&r.classification, 28),
                r.n,
                r.agree,
                r.undecided,
                half
            ),
            t.text,
        ));
    }
    lines
}
