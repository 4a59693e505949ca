use crate::tui::app::{App, InputKind, PickerKind, Popup, QuitPrompt};
use crate::tui::input::action::{PopupAction, PopupKind};
use crate::tui::strings;
use crate::tui::strings::flat;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};

pub struct PopupView<'a> {
    pub app: &'a App,
    pub popup: &'a Popup,
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let [r] = Layout::horizontal([Constraint::Length(w.min(area.width))])
        .flex(Flex::Center)
        .areas(area);
    let [r] = Layout::vertical([Constraint::Length(h.min(area.height))])
        .flex(Flex::Center)
        .areas(r);
    r
}

impl Widget for PopupView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        match self.popup {
            Popup::Notice { title, text } => notice(self.app, area, buf, title, text),
            Popup::History { title, lines } => history(self.app, area, buf, title, lines),
            Popup::Quit(q) => {
                let (title, lines) = quit_lines(self.app, q);
                dialog(area, buf, self.app, &title, lines);
            }
            Popup::Replay { labels, path } => replay(self.app, area, buf, labels, path),
            Popup::CancelRun { tags, cursor } => {
                super::run_popups::cancel_run(self.app, area, buf, tags, Some(*cursor))
            }
            Popup::QuitWithRuns { tags } => {
                super::run_popups::cancel_run(self.app, area, buf, tags, None)
            }
            Popup::ConfirmRuns { runs, judged } => {
                super::run_popups::confirm_runs(self.app, area, buf, runs, *judged)
            }
            Popup::ConfirmLoop(ready) => {
                let (title, lines) = super::fewshot_delta::confirm(self.app, ready);
                dialog(area, buf, self.app, title, lines);
            }
            Popup::Picker {
                kind,
                options,
                cursor,
            } => picker(self.app, area, buf, *kind, options, *cursor),
            Popup::Input {
                kind,
                area: ta,
                error,
                ..
            } => input(self.app, area, buf, *kind, ta, error),
            Popup::Tags {
                key,
                persona,
                scale,
                cursor,
            } => {
                let on = crate::tui::update::tags::current(self.app, key, persona, *scale);
                tags(self.app, area, buf, &on, *cursor)
            }
        }
    }
}

/// The quit prompt's title and lines.
fn quit_lines<'a>(app: &App, q: &QuitPrompt) -> (String, Vec<Line<'a>>) {
    let t = &app.chrome.theme;
    let key = |a| app.chrome.keymap.popup_hint(PopupKind::QuitPrompt, a);
    match q {
        QuitPrompt::Saving => (
            strings::popup::QUITTING_TITLE.into(),
            vec![
                Line::styled(
                    strings::popup::saving_before_quit(app.pending_count() + app.unsaved_count()),
                    t.warning,
                ),
                Line::raw(""),
                Line::styled(strings::popup::stay(&key(PopupAction::Stay)), t.key),
            ],
        ),
        QuitPrompt::Unsaved {
            count,
            reason,
            kept,
        } => {
            let mut lines = vec![
                Line::styled(strings::popup::could_not_write(*count), t.error),
                Line::styled(format!("  {}", flat(reason, 200)), t.text),
                Line::raw(""),
            ];
            match kept {
                None => lines.push(Line::styled(strings::popup::KEEPING, t.muted)),
                Some(Ok(path)) => {
                    lines.push(Line::styled(strings::popup::KEPT_IN, t.text));
                    lines.push(Line::styled(format!("  {}", flat(path, 200)), t.muted));
                }
                Some(Err(e)) => {
                    lines.push(Line::styled(strings::popup::NOT_KEPT, t.error));
                    lines.push(Line::styled(format!("  {}", flat(e, 200)), t.muted));
                }
            }
            lines.push(Line::raw(""));
            lines.push(Line::styled(
                strings::popup::quit_keys(
                    &key(PopupAction::QuitAnyway),
                    &key(PopupAction::RetrySaving),
                    &key(PopupAction::Stay),
                ),
                t.key,
            ));
            (strings::popup::not_saved_title(*count), lines)
        }
    }
}

/// `text` in pieces at most `width` columns wide, broken after a space
/// where there is one.
fn break_at(text: &str, width: usize) -> Vec<String> {
    use unicode_width::UnicodeWidthChar;
    let mut out = Vec::new();
    let mut piece = String::new();
    let mut w = 0;
    // Where `piece` may be cut: the byte after its last space, and the width before it.
    let mut cut: Option<(usize, usize)> = None;
    for c in text.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw > width && !piece.is_empty() {
            match cut.filter(|(at, _)| *at < piece.len()) {
                Some((at, before)) => {
                    let rest = piece.split_off(at);
                    out.push(std::mem::replace(&mut piece, rest));
                    w -= before;
                }
                None => {
                    out.push(std::mem::take(&mut piece));
                    w = 0;
                }
            }
            cut = None;
        }
        piece.push(c);
        w += cw;
        if c == ' ' {
            cut = Some((piece.len(), w));
        }
    }
    out.push(piece);
    out
}

/// How wide a dialog is at most.
const DIALOG_WIDTH: u16 = 90;

/// A bordered, centred box that fits its lines (long ones are broken at
/// the box's width, so the height is known and the last line never cut).
pub(super) fn dialog(area: Rect, buf: &mut Buffer, app: &App, title: &str, lines: Vec<Line<'_>>) {
    let t = &app.chrome.theme;
    let w = DIALOG_WIDTH.min(area.width);
    let inner = w.saturating_sub(2).max(1) as usize;
    let mut rows: Vec<Line> = Vec::new();
    for line in lines {
        let style = line.spans.first().map(|s| s.style).unwrap_or_default();
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        for piece in break_at(&text, inner) {
            rows.push(Line::styled(piece, style));
        }
    }
    let r = centered(area, w, rows.len() as u16 + 2);
    Clear.render(r, buf);
    Paragraph::new(rows)
        .block(
            Block::bordered()
                .title(title.to_string())
                .border_style(t.warning)
                .title_style(t.warning),
        )
        .style(t.text)
        .render(r, buf);
}

/// A row's label history, as many lines as fit once wrapped at the
/// dialog's width (a long note takes several rows), then the closing hint.
fn history(app: &App, area: Rect, buf: &mut Buffer, title: &str, lines: &[String]) {
    let t = &app.chrome.theme;
    let room = area.height.saturating_sub(6) as usize;
    let inner = usize::from(DIALOG_WIDTH.min(area.width).saturating_sub(2).max(1));
    let mut used = 0;
    let shown = lines
        .iter()
        .take_while(|l| {
            used += break_at(l, inner).len();
            used <= room
        })
        .count();
    let mut out: Vec<Line> = lines[..shown]
        .iter()
        .map(|l| Line::styled(l.clone(), t.text))
        .collect();
    if lines.len() > shown {
        out.push(Line::styled(
            strings::popup::and_more(lines.len() - shown),
            t.muted,
        ));
    }
    out.push(Line::raw(""));
    out.push(Line::styled(strings::popup::PRESS_ANY_KEY, t.muted));
    dialog(area, buf, app, &format!(" {title} "), out);
}

/// A notice: its lines (a command stays on one row where the screen
/// allows: the popup is as wide as its longest line), then "press any key".
fn notice(app: &App, area: Rect, buf: &mut Buffer, title: &str, text: &str) {
    let t = &app.chrome.theme;
    let longest = text
        .lines()
        .map(unicode_width::UnicodeWidthStr::width)
        .max()
        .unwrap_or(0);
    let w = u16::try_from(longest + 2)
        .unwrap_or(u16::MAX)
        .clamp(70, 100);
    let inner = usize::from(w.min(area.width).saturating_sub(2));
    let rows: usize = text
        .lines()
        .map(|l| crate::tui::layout::wrapped_rows(l, inner))
        .sum();
    let h = u16::try_from(rows + 4).unwrap_or(u16::MAX);
    let r = centered(area, w, h);
    Clear.render(r, buf);
    let mut lines: Vec<Line> = text
        .lines()
        .map(|l| Line::styled(l.to_string(), t.text))
        .collect();
    lines.push(Line::raw(""));
    lines.push(Line::styled(strings::popup::PRESS_ANY_KEY, t.muted));
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(
            Block::bordered()
                .title(format!(" {title} "))
                .border_style(t.error)
                .title_style(t.error),
        )
        .style(t.text)
        .render(r, buf);
}

fn replay(app: &App, area: Rect, buf: &mut Buffer, labels: &[crate::domain::Label], path: &str) {
    let t = &app.chrome.theme;
    let mut lines = vec![
        Line::styled(strings::popup::replay_intro(labels.len()), t.text),
        Line::styled(format!("  {}", flat(path, 200)), t.muted),
        Line::raw(""),
    ];
    for l in labels.iter().take(5) {
        lines.push(Line::styled(
            format!(
                "  {} · {} · {} · {} = {}",
                flat(&l.key.item_id, 30),
                flat(&l.key.classification_id, 30),
                flat(&l.persona_id, 20),
                flat(&l.who, 20),
                l.value.as_text()
            ),
            t.human,
        ));
    }
    if labels.len() > 5 {
        lines.push(Line::styled(
            strings::popup::and_more(labels.len() - 5),
            t.muted,
        ));
    }
    lines.push(Line::raw(""));
    let key = |a| app.chrome.keymap.popup_hint(PopupKind::Replay, a);
    lines.push(Line::styled(
        strings::popup::replay_keys(
            &key(PopupAction::Replay),
            &key(PopupAction::Keep),
            &key(PopupAction::Discard),
        ),
        t.key,
    ));
    dialog(area, buf, app, strings::popup::REPLAY_TITLE, lines);
}

/// The tag picker: the configured set, each with its toggle.
fn tags(app: &App, area: Rect, buf: &mut Buffer, on: &[String], cursor: usize) {
    let key = |a| app.chrome.keymap.popup_hint(PopupKind::Picker, a);
    let title = strings::marks::picker_title(&key(PopupAction::Pick), &key(PopupAction::Close));
    let rows: Vec<String> = app
        .data
        .tag_set
        .iter()
        .map(|tag| {
            let mark = if on.contains(tag) { "[x]" } else { "[ ]" };
            format!("{mark} {}", crate::tui::strings::flat(tag, 50))
        })
        .collect();
    choice_list(app, area, buf, title, &rows, cursor);
}

fn picker(
    app: &App,
    area: Rect,
    buf: &mut Buffer,
    kind: PickerKind,
    options: &[String],
    cursor: usize,
) {
    let key = |a| app.chrome.keymap.popup_hint(PopupKind::Picker, a);
    let title = strings::popup::picker_title(
        match kind {
            PickerKind::Persona => "persona",
            PickerKind::Perspective => "perspective",
        },
        &key(PopupAction::Pick),
        &key(PopupAction::Close),
    );
    let rows: Vec<String> = options
        .iter()
        .map(|o| crate::tui::strings::flat(o, 56))
        .collect();
    choice_list(app, area, buf, title, &rows, cursor);
}

/// A centred list of `rows` (already made safe to show) under `title`,
/// scrolled to keep `cursor` in sight and highlighting it: the pickers.
fn choice_list(
    app: &App,
    area: Rect,
    buf: &mut Buffer,
    title: String,
    rows: &[String],
    cursor: usize,
) {
    let t = &app.chrome.theme;
    let h = (rows.len() as u16 + 2)
        .min(area.height.saturating_sub(4))
        .max(3);
    let r = centered(area, 60, h);
    Clear.render(r, buf);
    let block = Block::bordered()
        .title(title)
        .border_style(t.border_focused)
        .title_style(t.title);
    let inner = block.inner(r);
    block.render(r, buf);
    let first = cursor.saturating_sub(inner.height.saturating_sub(1) as usize);
    for (row, (i, text)) in rows
        .iter()
        .enumerate()
        .skip(first)
        .take(inner.height as usize)
        .enumerate()
    {
        let style = if i == cursor { t.selection } else { t.text };
        let lr = Rect::new(inner.x, inner.y + row as u16, inner.width, 1);
        if i == cursor {
            buf.set_style(lr, t.selection);
        }
        Line::styled(format!(" {text}"), style).render(lr, buf);
    }
}

fn input(
    app: &App,
    area: Rect,
    buf: &mut Buffer,
    kind: InputKind,
    ta: &ratatui_textarea::TextArea<'static>,
    error: &Option<String>,
) {
    let t = &app.chrome.theme;
    let keys = match kind {
        InputKind::Persona => PopupKind::PersonaEditor,
        _ => PopupKind::Editor,
    };
    let key = |a| app.chrome.keymap.popup_hint(keys, a);
    let (submit, close) = (key(PopupAction::Submit), key(PopupAction::Close));
    let (title, h, w) = match kind {
        // The field, then every term it reads (wrapped at 80 columns).
        InputKind::Search => (strings::popup::search_title(&submit, &close), 5, 100),
        InputKind::Note => (
            strings::popup::note_title(&submit, &close),
            2 + ta.lines().len().clamp(1, 8) as u16,
            80,
        ),
        InputKind::MarkNote(m) => (
            strings::marks::note_title(m.as_str(), &submit, &close),
            2 + ta.lines().len().clamp(1, 8) as u16,
            80,
        ),
        InputKind::Persona => (
            strings::popup::persona_title(&submit, &close),
            area.height.saturating_sub(4),
            100,
        ),
    };
    let h = h + if error.is_some() { 1 } else { 0 };
    let r = centered(area, w, h);
    Clear.render(r, buf);
    let block = Block::bordered()
        .title(title)
        .border_style(t.border_focused)
        .title_style(t.title);
    let inner = block.inner(r);
    block.render(r, buf);
    let mut text_area = inner;
    if let Some(e) = error {
        Line::styled(crate::tui::strings::flat(e, 200), t.error)
            .render(Rect::new(inner.x, inner.y, inner.width, 1), buf);
        text_area = Rect::new(
            inner.x,
            inner.y + 1,
            inner.width,
            inner.height.saturating_sub(1),
        );
    }
    if kind == InputKind::Search && text_area.height > 1 {
        let hint = Rect::new(
            text_area.x,
            text_area.y + 1,
            text_area.width,
            text_area.height - 1,
        );
        ratatui::widgets::Paragraph::new(strings::popup::SEARCH_TERMS_LINE)
            .style(t.muted)
            .wrap(ratatui::widgets::Wrap { trim: true })
            .render(hint, buf);
        text_area.height = 1;
    }
    ta.render(text_area, buf);
}
