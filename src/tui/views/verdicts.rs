use super::{focused_block, label_on_scale, value_style};
use crate::sanitize;
use crate::tui::app::protocol_rows::ProtoRow;
use crate::tui::app::{App, MAX_VERDICT_CHARS, Pane, RowKey, disagrees};
use crate::tui::layout::wrapped_rows;
use crate::tui::strings::{self, flat};
use crate::tui::update::visible_judge;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};
use unicode_width::UnicodeWidthStr;

/// One row per classification × perspective: judge value and text (streaming
/// while it arrives), the human label beside it, a mark where they disagree.
pub struct VerdictPane<'a>(pub &'a App);

struct RowDraw<'a> {
    focused: bool,
    head: Line<'a>,
    value: Line<'a>,
    text: Vec<Line<'a>>,
    text_rows: u16,
}

impl RowDraw<'_> {
    /// Rows the head and value lines take wrapped at `width`: the
    /// classifier's value and the labels (mapped ones are long) are wrapped,
    /// never cut.
    fn head_rows(&self, width: u16) -> u16 {
        let w = usize::from(width.saturating_sub(2).max(1));
        let rows =
            wrapped_rows(&self.head.to_string(), w) + wrapped_rows(&self.value.to_string(), w);
        u16::try_from(rows).unwrap_or(u16::MAX)
    }
}

impl Widget for VerdictPane<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let app = self.0;
        let t = &app.chrome.theme;
        let title = format!(
            " verdicts · mode {} ({}){} ",
            app.choices.mode,
            app.choices.mode.scale(),
            if app.choices.blind {
                " · BLIND"
            } else if app.current_index().is_some_and(|i| app.assigned_to_me(i)) {
                " · assigned to you"
            } else {
                ""
            }
        );
        let mut block = focused_block(title, app.chrome.focus == Pane::Verdicts, app);
        // In a sample order: what the next label on the focused row is
        // worth, and how far the labels so far narrowed it.
        if let Some(line) = app.focused_worth().and_then(|w| {
            crate::tui::strings::msg::worth(&w, usize::from(area.width.saturating_sub(2)))
        }) {
            block = block.title_bottom(Line::styled(line, t.title));
        }
        let inner = block.inner(area);
        block.render(area, buf);
        let Some(item) = app.current_item() else {
            return;
        };
        let rows = app.rows();
        let proto_rows = app.proto_rows();
        // Claim rows without their claim's text stand as one line, under the rows.
        let hint = claims_hint(app);
        let hint_rows = hint.as_ref().map_or(0, |h| {
            let w = usize::from(inner.width.max(1));
            u16::try_from(wrapped_rows(&h.to_string(), w)).unwrap_or(u16::MAX)
        });
        let full = inner;
        if rows.is_empty() && proto_rows.is_empty() {
            match hint {
                Some(h) => Paragraph::new(h)
                    .wrap(Wrap { trim: true })
                    .render(full, buf),
                None => Line::styled("no classifications (or no perspective)", t.muted)
                    .render(inner, buf),
            }
            return;
        }
        // Text is drawn two columns in.
        let w = inner.width.saturating_sub(2).max(1) as usize;
        // Characters that can show in a row: only those are wrapped and drawn.
        let room = |focused: bool| (if focused { 12 } else { 3 }) * w;
        let draws: Vec<RowDraw> = rows
            .iter()
            .enumerate()
            .map(|(ri, r)| {
                let focused = ri == app.list.row;
                awag_draw(app, item, r, focused, room(focused), w)
            })
            .chain(proto_rows.iter().enumerate().map(|(pi, r)| {
                let focused = rows.len() + pi == app.list.row;
                proto_draw(app, r, focused, room(focused), w)
            }))
            .collect();
        // Each row: head, value, then its text (focused row up to 12 lines, others 3).
        let cap = |i: usize, d: &RowDraw| {
            d.head_rows(inner.width) + d.text_rows.min(if i == app.list.row { 12 } else { 3 })
        };
        // The hint takes its rows below the rows when they leave room, else
        // one (the rows come first).
        let wanted: u16 = draws.iter().enumerate().map(|(i, d)| cap(i, d)).sum();
        let hint_rows = if wanted.saturating_add(hint_rows) <= full.height {
            hint_rows
        } else {
            hint_rows.min(1)
        };
        let inner = Rect {
            height: full.height.saturating_sub(hint_rows),
            ..full
        };
        let mut first = app.list.row.min(draws.len() - 1);
        let mut used = cap(first, &draws[first]);
        while first > 0 && used + cap(first - 1, &draws[first - 1]) <= inner.height {
            first -= 1;
            used += cap(first, &draws[first]);
        }
        let mut y = inner.y;
        for (i, d) in draws.into_iter().enumerate().skip(first) {
            if y >= inner.bottom() {
                break;
            }
            let h = cap(i, &d).min(inner.bottom() - y);
            let scroll = if i == app.list.row {
                app.list.verdict_scroll
            } else {
                0
            };
            let head_h = h.min(d.head_rows(inner.width));
            if d.focused {
                Span::styled("▶ ", t.selection.patch(t.accent))
                    .render(Rect::new(inner.x, y, 2, 1), buf);
            }
            // Two columns in, wrapped rows too: the marker column stays clear.
            Paragraph::new(vec![d.head, d.value])
                .wrap(Wrap { trim: true })
                .render(
                    Rect::new(inner.x + 2, y, inner.width.saturating_sub(2), head_h),
                    buf,
                );
            // The text sits indented under its row, wrapped lines too.
            let tr = Rect::new(
                inner.x + 2,
                y + head_h,
                inner.width.saturating_sub(2),
                h - head_h,
            );
            Paragraph::new(d.text)
                .wrap(Wrap { trim: false })
                .scroll((scroll, 0))
                .render(tr, buf);
            y += h;
        }
        if let Some(h) = hint {
            let area = Rect::new(full.x, y, full.width, full.bottom().saturating_sub(y));
            Paragraph::new(h)
                .wrap(Wrap { trim: true })
                .render(area, buf);
        }
    }
}

/// The line that stands for the current item's claim rows whose claim is
/// not configured: which, and where a claim goes.
///
/// Not on a first start's first screen (while its legend shows): a new user
/// has not met claims yet, and at 80×24 the line took the room of the rows.
/// Under 120 columns it is one short line.
fn claims_hint(app: &App) -> Option<Line<'static>> {
    if app.chrome.legend.is_some() {
        return None;
    }
    let hidden = app.hidden_claims();
    if hidden.is_empty() {
        return None;
    }
    let ids: Vec<String> = hidden.iter().map(|id| flat(id, 40)).collect();
    if app.chrome.size.0 < 120 {
        return Some(Line::styled(
            strings::claim::hidden_short(&ids),
            app.chrome.theme.muted,
        ));
    }
    let file = match &app.data.claims_file {
        Some(f) => flat(&f.display().to_string(), 200),
        None => strings::claim::IN_CONFIG_DIR.to_string(),
    };
    Some(Line::styled(
        strings::claim::hidden(&ids, &file),
        app.chrome.theme.muted,
    ))
}

/// The held-out split's side of this (item, classification), when the
/// workspace has a split: a `test` row is one a few-shot set must never
/// learn from.
fn split_tag(app: &App, key: &crate::domain::ComboKey) -> Option<Span<'static>> {
    let t = &app.chrome.theme;
    let side = app
        .data
        .split
        .as_ref()?
        .side_of(&key.item_id, &key.classification_id);
    Some(Span::styled(
        format!("  {}", side.as_str()),
        match side {
            crate::domain::Side::Test => t.accent,
            crate::domain::Side::Train => t.muted,
        },
    ))
}

/// An AwAg row: the classification, the judge's value and text (streaming
/// while it arrives), this person's label and the others'.
fn awag_draw<'a>(
    app: &'a App,
    item: &crate::domain::Item,
    r: &RowKey,
    focused: bool,
    room: usize,
    w: usize,
) -> RowDraw<'a> {
    let t = &app.chrome.theme;
    let persona = app.persona_id();
    let c = &item.classifications[r.classification];
    let key = match app.combo(r) {
        Some(k) => k,
        None => {
            return RowDraw {
                focused,
                head: Line::raw(""),
                value: Line::raw(""),
                text: Vec::new(),
                text_rows: 0,
            };
        }
    };
    let mut head = vec![Span::styled(crate::tui::strings::flat(&c.id, 40), t.title)];
    if app.active_perspectives().len() > 1 {
        head.push(Span::styled(
            format!(" · {}", crate::tui::strings::flat(&r.perspective_id, 30)),
            t.muted,
        ));
    }
    head.push(Span::styled(
        format!(
            "  classifier: {}",
            crate::tui::strings::flat(c.selected_text(), 200)
        ),
        t.muted,
    ));
    head.extend(split_tag(app, &key));
    let head = if focused {
        Line::from(head).style(t.selection)
    } else {
        Line::from(head)
    };

    let verdict = app.shown_verdict(&key, persona, app.choices.mode);
    let judge = visible_judge(app, &key);
    let stream = app.runs.streams.get(&key);
    let label = app.my_label(&key, app.choices.mode.scale());
    let mut value = Vec::new();
    let text = match (stream, judge, verdict) {
        (Some(s), _, _) => {
            value.push(Span::styled(
                format!("J {} streaming", spinner(app.runs.spinner)),
                t.streaming,
            ));
            // While streaming, the newest text is what matters: show the tail.
            let shown = if s.text.is_empty() {
                "waiting for the judge…"
            } else {
                tail(&s.text, room)
            };
            lines_of(shown, t.streaming)
        }
        (None, Some(v), Some(vd)) => {
            value.push(Span::styled(format!("J {v}"), value_style(v, t)));
            value.extend(conf_span(vd, t));
            value.extend(source_span(vd, &app.data.origins, t));
            if vd.selection_mismatch {
                value.push(Span::styled(" ⚠selection", t.warning));
            }
            let cap = room + app.list.verdict_scroll as usize * w;
            lines_of(
                &sanitize::for_display(&vd.text, cap.min(MAX_VERDICT_CHARS)),
                t.judge,
            )
        }
        (None, None, Some(_)) => {
            value.push(Span::styled("J hidden", t.muted));
            lines_of("(blind review: label this row to see the judge)", t.muted)
        }
        _ => {
            value.push(Span::styled("J –", t.muted));
            Vec::new()
        }
    };
    value.push(Span::raw("   "));
    value.extend(label_on_scale(label, app.choices.mode.scale(), t));
    if let (Some(j), Some(l)) = (judge, label)
        && stream.is_none()
        && disagrees(j, l.label.value)
    {
        value.push(Span::raw(" "));
        value.push(Span::styled(" ≠ ", t.disagreement_mark));
    }
    // Blind review, and blind double-coding on an item assigned to me.
    let others = !app.others_hidden(&key, label.is_some()) || adjudicating(app);
    if others {
        value.extend(others_span(app, &key, persona, app.choices.mode.scale()));
    }
    value.extend(adjudication_span(
        app,
        &key,
        persona,
        app.choices.mode.scale(),
    ));
    value.extend(tags_and_mark(app, label, &key, persona));
    let cap = room + app.list.verdict_scroll as usize * w;
    let notes = notes_lines(app, &key, persona, others, cap);
    value.extend(note_mark(app, label, &notes, focused));
    let text = if focused {
        [notes, text].concat()
    } else {
        text
    };
    let text_rows = text_rows(&text, w);
    RowDraw {
        focused,
        head,
        value: Line::from(value),
        text,
        text_rows,
    }
}

/// A protocol row: what is judged, the judge's value and text (streaming
/// while it arrives), this person's label and a mark where they differ.
fn proto_draw<'a>(app: &'a App, r: &ProtoRow, focused: bool, room: usize, w: usize) -> RowDraw<'a> {
    let t = &app.chrome.theme;
    let mut head = vec![
        Span::styled(
            crate::tui::strings::flat(&r.key.classification_id, 40),
            t.title,
        ),
        Span::styled(format!(" · {} ({})", r.protocol, r.scale), t.muted),
    ];
    if r.persona_id != crate::domain::PersonaRef::NONE_ID {
        head.push(Span::styled(
            format!(" · {}", crate::tui::strings::flat(&r.persona_id, 20)),
            t.muted,
        ));
    }
    let head = if focused {
        Line::from(head).style(t.selection)
    } else {
        Line::from(head)
    };
    let label = app.proto_label(r);
    let verdict = app.proto_verdict(r);
    let judge = verdict
        .map(|v| v.value)
        .filter(|_| !app.choices.blind || label.is_some());
    let mut value = Vec::new();
    let mut text = Vec::new();
    if !r.about.is_empty() {
        text.push(Line::styled(
            crate::tui::strings::flat(&r.about, room),
            t.muted,
        ));
    }
    match (app.runs.streams.get(&r.key), judge, verdict) {
        (Some(s), _, _) => {
            value.push(Span::styled(
                format!("J {} streaming", spinner(app.runs.spinner)),
                t.streaming,
            ));
            text.extend(lines_of(tail(&s.text, room), t.streaming));
        }
        (None, Some(v), Some(vd)) => {
            value.push(Span::styled(format!("J {v}"), value_style(v, t)));
            value.extend(conf_span(vd, t));
            if vd.selection_mismatch {
                value.push(Span::styled(" ⚠inconsistent", t.warning));
            }
            text.extend(lines_of(
                &sanitize::for_display(&vd.text, room.min(MAX_VERDICT_CHARS)),
                t.judge,
            ));
        }
        (None, None, Some(_)) => {
            value.push(Span::styled("J hidden", t.muted));
            text.push(Line::styled(
                "(blind review: label this row to see the judge)",
                t.muted,
            ));
        }
        _ => value.push(Span::styled("J –", t.muted)),
    }
    value.push(Span::raw("   "));
    value.extend(label_on_scale(label, r.scale, t));
    if let (Some(j), Some(l)) = (judge, label)
        && j != l.label.value
    {
        value.push(Span::raw(" "));
        value.push(Span::styled(" ≠ ", t.disagreement_mark));
    }
    // As on an AwAg row: the others' labels, after one's own when blind.
    let others = !app.others_hidden(&r.key, label.is_some()) || adjudicating(app);
    if others {
        value.extend(others_span(app, &r.key, &r.persona_id, r.scale));
    }
    value.extend(adjudication_span(app, &r.key, &r.persona_id, r.scale));
    value.extend(tags_and_mark(app, label, &r.key, &r.persona_id));
    let notes = notes_lines(app, &r.key, &r.persona_id, others, room);
    value.extend(note_mark(app, label, &notes, focused));
    let text = if focused {
        [notes, text].concat()
    } else {
        text
    };
    let text_rows = text_rows(&text, w);
    RowDraw {
        focused,
        head,
        value: Line::from(value),
        text,
        text_rows,
    }
}

/// The mark of a row with a note: on the focused row `✎` (the notes follow
/// in full); on another one's own note on one line, else `✎`.
fn note_mark(
    app: &App,
    mine: Option<&crate::tui::app::LabelEntry>,
    notes: &[Line],
    focused: bool,
) -> Option<Span<'static>> {
    let t = &app.chrome.theme;
    if notes.is_empty() {
        return None;
    }
    match mine.filter(|l| !focused && !l.label.note.is_empty()) {
        Some(l) => Some(Span::styled(
            format!("  ✎ {}", flat(&l.label.note, 60)),
            t.human,
        )),
        None => Some(Span::styled("  ✎", t.human)),
    }
}

/// Every note on the row (one's own first, the others' when `others`), in
/// full as far as `cap` characters each, escapes made visible: `✎ who: note`.
fn notes_lines(
    app: &App,
    key: &crate::domain::ComboKey,
    persona: &str,
    others: bool,
    cap: usize,
) -> Vec<Line<'static>> {
    let t = &app.chrome.theme;
    let mut labels: Vec<&crate::domain::Label> = app
        .data
        .labels
        .get(&key.item_id)
        .into_iter()
        .flatten()
        .map(|e| &e.label)
        .filter(|l| l.key == *key && l.persona_id == persona && !l.note.is_empty())
        .filter(|l| others || l.who == app.data.who)
        .collect();
    // Stable: one's own notes first, the others' in the order they came.
    labels.sort_by_key(|l| l.who != app.data.who);
    let mut out = Vec::new();
    for l in labels {
        let note = sanitize::for_display(&l.note, cap.min(MAX_VERDICT_CHARS));
        for (n, line) in note.split('\n').enumerate() {
            let text = if n == 0 {
                format!("✎ {}: {line}", flat(&l.who, 24))
            } else {
                line.to_string()
            };
            out.push(Line::styled(text, t.human));
        }
    }
    out
}

/// How sure the judge was of its value (`conf 0.82`), when known.
fn conf_span(vd: &crate::domain::Verdict, t: &crate::tui::theme::Theme) -> Option<Span<'static>> {
    vd.confidence
        .map(|c| Span::styled(format!(" conf {:.2}", c.value), t.muted))
}

/// Where an imported verdict came from (`· their-tool, from theirs.csv`):
/// its run's origin, another tool's judge rather than one of jury's runs.
fn source_span(
    vd: &crate::domain::Verdict,
    origins: &std::collections::HashMap<i64, crate::domain::ImportOrigin>,
    t: &crate::tui::theme::Theme,
) -> Option<Span<'static>> {
    let origin = origins.get(&vd.run_id)?;
    Some(Span::styled(
        crate::tui::strings::verdict::from_source(
            &crate::tui::strings::flat(&vd.model, 30),
            &crate::tui::strings::flat(origin.file_name(), 40),
        ),
        t.muted,
    ))
}

/// The last `n` characters of `s`.
fn tail(s: &str, n: usize) -> &str {
    match s.char_indices().rev().nth(n) {
        Some((i, c)) => &s[i + c.len_utf8()..],
        None => s,
    }
}

fn lines_of(s: &str, style: ratatui::style::Style) -> Vec<Line<'static>> {
    s.split('\n')
        .map(|l| Line::styled(l.to_string(), style))
        .collect()
}

fn text_rows(lines: &[Line], w: usize) -> u16 {
    let n: usize = lines
        .iter()
        .map(|l| {
            UnicodeWidthStr::width(l.spans.first().map(|s| s.content.as_ref()).unwrap_or(""))
                .div_ceil(w)
                .max(1)
        })
        .sum();
    n.min(200) as u16
}

pub fn spinner(n: u8) -> &'static str {
    const F: [&str; 8] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧"];
    F[(n as usize) % F.len()]
}

/// Other people's labels on the same combination and persona; one on
/// another scale than the row's names its scale (`bob likert 1`).
fn others_span<'a>(
    app: &App,
    key: &crate::domain::ComboKey,
    persona: &str,
    row: crate::domain::Scale,
) -> Option<Span<'a>> {
    let others: Vec<String> = app
        .data
        .labels
        .get(&key.item_id)
        .into_iter()
        .flatten()
        .filter(|e| {
            e.label.key == *key && e.label.persona_id == persona && e.label.who != app.data.who
        })
        .take(4)
        .map(|e| {
            let v = e.label.value;
            // Cut in the middle: names that share a start (team roles such
            // as `study7_dana`, `study7_eli`) stay told apart by their end.
            let who = crate::tui::layout::columns::elide_middle(
                &crate::tui::strings::flat(&e.label.who, 200),
                12,
            );
            if v.scale() == row {
                format!("{who} {v}")
            } else {
                format!("{who} {} {v}", v.scale())
            }
        })
        .collect();
    (!others.is_empty()).then(|| {
        Span::styled(
            format!("  others: {}", others.join(" · ")),
            app.chrome.theme.muted,
        )
    })
}

/// The adjudication queue is listed: the adjudicator sees every person's
/// label and note, blind review or not (the judge stays hidden).
fn adjudicating(app: &App) -> bool {
    app.list.filter == crate::tui::app::Filter::Adjudicate
}

/// The row's reference label (`⚖ ref 4 (dana)`), or, in the adjudication
/// queue, `⚖ to adjudicate` where people disagree and no one adjudicated yet.
fn adjudication_span(
    app: &App,
    key: &crate::domain::ComboKey,
    persona: &str,
    scale: crate::domain::Scale,
) -> Option<Span<'static>> {
    let t = &app.chrome.theme;
    match app.data.adjudication(key, persona, scale) {
        Some(a) => Some(Span::styled(
            strings::adjudicate::reference(&a.value.as_text(), &flat(&a.who, 12)),
            t.human,
        )),
        // Said in the queue only: a labeller sees the others' labels anyway.
        None => (adjudicating(app) && app.data.row_disputed(key, persona, scale))
            .then(|| Span::styled(strings::adjudicate::DISPUTED, t.warning)),
    }
}

/// My label's tags (`#persona-misread`) and my "come back later" mark on
/// the row (`? unsure: the note`).
fn tags_and_mark(
    app: &App,
    label: Option<&crate::tui::app::LabelEntry>,
    key: &crate::domain::ComboKey,
    persona: &str,
) -> Vec<Span<'static>> {
    let t = &app.chrome.theme;
    let mut out = Vec::new();
    for tag in label.iter().flat_map(|l| &l.label.tags) {
        out.push(Span::styled(
            format!("  #{}", crate::tui::strings::flat(tag, 30)),
            t.warning,
        ));
    }
    if let Some(m) = app.my_mark(key, persona) {
        let note = if m.note.is_empty() {
            String::new()
        } else {
            format!(": {}", crate::tui::strings::flat(&m.note, 50))
        };
        out.push(Span::styled(
            format!("  ? {}{note}", m.mark.as_str()),
            t.warning,
        ));
    }
    out
}
