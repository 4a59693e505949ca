//! The long texts the search's `text:`, `why:` and `note:` terms read, lower
//! case, one per item: the item's body, the judge's reasoning on the rows in
//! view, everyone's notes. Each is made on the first keystroke of a term
//! that reads it and kept current item by item, so a keystroke runs one
//! substring search per item instead of lower-casing 100 000 bodies again.

use super::query::{Field, Query, Term};
use super::workspace::{RowCtx, Workspace};
use crate::domain::{Mode, Verdict};
use memchr::memmem::Finder;

#[derive(Default)]
pub struct TextCache {
    bodies: Option<Vec<Box<str>>>,
    notes: Option<Vec<Box<str>>>,
    /// Made for one configuration in view and mode.
    why: Option<(RowCtx, Mode, Vec<Box<str>>)>,
    /// One searcher per word of the query's terms (built once per keystroke).
    finders: Vec<(String, Finder<'static>)>,
}

impl TextCache {
    /// Makes the texts the query's terms read (a `why:` one again when the
    /// configuration in view or the mode changed) and their searchers.
    pub fn prepare(&mut self, data: &Workspace, query: &Query, mode: Mode) {
        self.finders.clear();
        for t in &query.terms {
            let Term::Text { field, word } = t.positive() else {
                continue;
            };
            if !self.finders.iter().any(|(w, _)| w == word) {
                let f = Finder::new(word.as_bytes()).into_owned();
                self.finders.push((word.clone(), f));
            }
            match field {
                Field::Body if self.bodies.is_none() => {
                    self.bodies = Some(every_item(data, |i| lower(&data.items[i].text)));
                }
                Field::Note if self.notes.is_none() => {
                    self.notes = Some(every_item(data, |i| notes_of(data, i)));
                }
                Field::Why
                    if self
                        .why
                        .as_ref()
                        .is_none_or(|(ctx, m, _)| *ctx != data.rows_for || *m != mode) =>
                {
                    let texts = every_item(data, |i| reasoning_of(data, i, mode));
                    self.why = Some((data.rows_for.clone(), mode, texts));
                }
                _ => {}
            }
        }
    }

    /// Whether item `i`'s `field` holds `word` (prepared for this query).
    pub fn holds(&self, field: Field, i: usize, word: &str) -> bool {
        let texts = match field {
            Field::Body => self.bodies.as_deref(),
            Field::Note => self.notes.as_deref(),
            Field::Why => self.why.as_ref().map(|(_, _, t)| t.as_slice()),
        };
        let (Some(text), Some((_, finder))) = (
            texts.and_then(|t| t.get(i)),
            self.finders.iter().find(|(w, _)| w == word),
        ) else {
            return false;
        };
        finder.find(text.as_bytes()).is_some()
    }

    /// Item `i`'s labels or verdicts changed.
    pub fn item_changed(&mut self, data: &Workspace, i: usize) {
        if let Some(slot) = self.notes.as_mut().and_then(|n| n.get_mut(i)) {
            *slot = notes_of(data, i);
        }
        if let Some((ctx, mode, texts)) = &mut self.why
            && *ctx == data.rows_for
            && let Some(slot) = texts.get_mut(i)
        {
            *slot = reasoning_of(data, i, *mode);
        }
    }
}

/// `text` for every item, both halves of the items at once.
fn every_item(data: &Workspace, text: impl Fn(usize) -> Box<str> + Sync) -> Vec<Box<str>> {
    let n = data.items.len();
    let part = |range: std::ops::Range<usize>| -> Vec<Box<str>> { range.map(&text).collect() };
    let (mut first, second) = crate::par::join(|| part(0..n / 2), || part(n / 2..n));
    first.extend(second);
    first
}

fn lower(s: &str) -> Box<str> {
    if s.is_ascii() {
        s.to_ascii_lowercase().into_boxed_str()
    } else {
        s.to_lowercase().into_boxed_str()
    }
}

/// Every note on item `i`, anyone's, one a line: labels' notes and the
/// notes of "come back later" marks ("ask Kenton…"), which are where the
/// open questions are ("" without notes: no allocation for the many items
/// that have none). A search word holds no whitespace, so it never matches
/// across two notes.
fn notes_of(data: &Workspace, i: usize) -> Box<str> {
    let id = &*data.items[i].id;
    let labels = data.labels.get(id).into_iter().flatten();
    let marks = data.row_marks.get(id).into_iter().flatten();
    let notes: Vec<&str> = labels
        .map(|e| e.label.note.as_str())
        .chain(marks.map(|m| m.note.as_str()))
        .filter(|n| !n.is_empty())
        .collect();
    lower(&notes.join("\n"))
}

/// The judge's text on the rows item `i` shows in `mode`, one a line.
fn reasoning_of(data: &Workspace, i: usize, mode: Mode) -> Box<str> {
    let texts: Vec<&str> = shown_verdicts(data, i, mode)
        .into_iter()
        .map(|v| v.text.as_str())
        .collect();
    lower(&texts.join("\n"))
}

/// Item `i`'s latest verdict per combination among those its rows show:
/// AwAg rows follow the persona, mode and perspectives in view; the other
/// judge styles' rows (no mode) are shown whatever they are.
pub fn shown_verdicts(data: &Workspace, i: usize, mode: Mode) -> Vec<&Verdict> {
    let mut latest: Vec<&Verdict> = Vec::new();
    let persona = data.persona_of(i);
    for v in data.verdicts.get(&*data.items[i].id).into_iter().flatten() {
        let shown = v.mode.is_none()
            || (v.mode == Some(mode)
                && v.persona_id == persona
                && data.rows_for.perspectives.contains(&v.key.perspective_id));
        if !shown {
            continue;
        }
        match latest.iter_mut().find(|l| l.key == v.key) {
            Some(l) if (&l.created_at, l.run_id) < (&v.created_at, v.run_id) => *l = v,
            Some(_) => {}
            None => latest.push(v),
        }
    }
    latest
}
