use super::focused_block;
use crate::tui::app::{App, Pane, mark};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

/// "37/200 labelled by me": listed items whose every shown row has this
/// person's label (the status bar shows it too).
pub fn progress(app: &App) -> String {
    if let Some((done, of)) = app.assigned_progress() {
        return crate::tui::strings::msg::assigned_progress(done, of);
    }
    match app.list.queue_progress() {
        Some((done, of)) => crate::tui::strings::msg::queue_progress(done, of),
        None => crate::tui::strings::msg::progress(app.list.labelled, app.list.filtered.len()),
    }
}

/// The drill from the agreement view, the search terms and free text as
/// read, and how many terms were left out.
fn search_title(app: &App) -> String {
    let q = &app.list.query;
    let mut parts: Vec<String> = Vec::new();
    if let Some(d) = &app.list.drill {
        parts.push(crate::tui::strings::flat(&d.label, 60));
    }
    parts.extend(
        q.terms
            .iter()
            .map(|t| crate::tui::strings::flat(&t.describe(), 30)),
    );
    if !q.text.is_empty() {
        parts.push(format!("/{}", crate::tui::strings::flat(&q.text, 20)));
    }
    if !q.errors.is_empty() {
        parts.push(format!(
            "⚠ {}",
            crate::tui::strings::query::ignored(q.errors.len())
        ));
    }
    parts.iter().map(|p| format!("· {p} ")).collect()
}

/// The item list: draws only the visible window of the filtered index.
pub struct ListPane<'a>(pub &'a App);

impl Widget for ListPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.chrome.theme;
        // Top border: how many and which coarse filter and order; bottom
        // border: the progress and what narrows the list (a narrow pane
        // keeps both readable).
        let mut title = format!(
            " items {}/{} · {} ",
            app.list.filtered.len(),
            app.data.items.len(),
            app.list.filter.name(),
        );
        if app.list.order != crate::tui::app::queue::Order::File {
            title.push_str(&format!("· {} ", app.list.order.name()));
        }
        // The progress in full when the border has room for what narrows
        // the list too, else in short.
        let narrows = search_title(app);
        let mut bottom = format!(" {} {narrows}", progress(app));
        if unicode_width::UnicodeWidthStr::width(bottom.as_str()) + 2 > area.width as usize {
            let short = match app.list.queue_progress() {
                _ if app.assigned_progress().is_some() => {
                    let (done, of) = app.assigned_progress().unwrap_or_default();
                    crate::tui::strings::msg::assigned_progress_short(done, of)
                }
                Some((done, of)) => crate::tui::strings::msg::queue_progress_short(done, of),
                None => crate::tui::strings::msg::progress_short(
                    app.list.labelled,
                    app.list.filtered.len(),
                ),
            };
            bottom = format!(" {short} {narrows}");
        }
        let block = focused_block(title, app.chrome.focus == Pane::List, app)
            .title_bottom(Line::styled(bottom, t.title));
        let inner = block.inner(area);
        block.render(area, buf);
        if app.list.filtered.is_empty() {
            Line::styled(
                if app.data.items.is_empty() {
                    "no items: jury import FILE"
                } else {
                    "nothing matches"
                },
                t.muted,
            )
            .render(inner, buf);
            return;
        }
        let end = (app.list.list_offset + inner.height as usize).min(app.list.filtered.len());
        for (row, pos) in (app.list.list_offset..end).enumerate() {
            let i = app.list.filtered[pos] as usize;
            let it = &app.data.items[i];
            // Blind review: the judge's disagreement with a label is the
            // judge's answer, so the mark goes too; on an item assigned to
            // me, the others' labels do not mark it (blind double-coding).
            let m = app.shown_marks(i);
            let selected = pos == app.list.cursor;
            let flag = |bit: u8, on: &'static str| if m & bit != 0 { on } else { " " };
            let w = inner.width as usize;
            let mut spans = vec![
                Span::styled(flag(mark::JUDGED, "J"), t.judge),
                // A row I marked to come back to, on an item no one labelled.
                if m & (mark::LABELLED | mark::MARKED) == mark::MARKED {
                    Span::styled("?", t.warning)
                } else {
                    Span::styled(flag(mark::LABELLED, "H"), t.human)
                },
                Span::styled(
                    flag(mark::DISAGREE, "≠"),
                    if m & mark::DISAGREE != 0 {
                        t.disagreement_mark
                    } else {
                        t.muted
                    },
                ),
                Span::styled(
                    if m & (mark::INSTRUCTS | mark::HIDDEN) != 0 {
                        "!"
                    } else {
                        " "
                    },
                    t.warning,
                ),
                // Someone wrote a note on a label of the item.
                Span::styled(if app.shown_note(i) { "✎" } else { " " }, t.human),
                Span::styled(crate::tui::strings::flat(&it.id, 16), t.muted),
                Span::raw(" "),
            ];
            let used: usize = spans.iter().map(|s| s.width()).sum();
            // Chat messages have no title: show the start of the text instead.
            let (title, style) = if it.title.trim().is_empty() {
                (&it.text, t.muted)
            } else {
                (&it.title, t.text)
            };
            spans.push(Span::styled(
                crate::tui::strings::flat(title, w.saturating_sub(used)),
                style,
            ));
            let line = Line::from(spans);
            let r = Rect::new(inner.x, inner.y + row as u16, inner.width, 1);
            let line = if selected {
                line.style(t.selection)
            } else {
                line
            };
            if selected {
                buf.set_style(r, t.selection);
            }
            line.render(r, buf);
        }
    }
}
