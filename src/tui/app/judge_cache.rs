//! What the judge said, per item, for the search's `judge:cls=value` terms:
//! read from every item's verdicts once per (classification, mode, persona,
//! perspectives) and kept current item by item, so a keystroke compares one
//! value per item instead of walking 100 000 items' verdicts (~90 ms).

use super::query::{Query, Term};
use super::workspace::{RowCtx, Workspace};
use crate::domain::{Mode, Value};

/// At most this many (classification, mode) tables are kept.
const MAX_ENTRIES: usize = 4;

struct Entry {
    cls: String,
    mode: Mode,
    ctx: RowCtx,
    /// Item `i`, perspective `p` of `ctx`: at `i * ctx.perspectives.len() + p`.
    values: Vec<Option<Value>>,
}

#[derive(Default)]
pub struct JudgeCache {
    entries: Vec<Entry>,
}

impl JudgeCache {
    /// Builds the tables the query's `judge:` terms (`-judge:` too) need under `mode`
    /// (dropping those made for another persona or perspective).
    pub fn prepare(&mut self, data: &Workspace, query: &Query, mode: Mode) {
        self.entries.retain(|e| e.ctx == data.rows_for);
        for t in &query.terms {
            let Term::Judge { cls, .. } = t.positive() else {
                continue;
            };
            if self.entry(cls, mode).is_some() {
                continue;
            }
            if self.entries.len() >= MAX_ENTRIES {
                self.entries.remove(0);
            }
            let np = data.rows_for.perspectives.len();
            let n = data.items.len();
            let part = |range: std::ops::Range<usize>| -> Vec<Option<Value>> {
                let mut out = Vec::with_capacity(range.len() * np);
                for i in range {
                    for p in &data.rows_for.perspectives {
                        out.push(latest(data, i, cls, p, mode));
                    }
                }
                out
            };
            // Both halves at once: this reads every item's verdicts.
            let (mut values, second) = crate::par::join(|| part(0..n / 2), || part(n / 2..n));
            values.extend(second);
            self.entries.push(Entry {
                cls: cls.clone(),
                mode,
                ctx: data.rows_for.clone(),
                values,
            });
        }
    }

    fn entry(&self, cls: &str, mode: Mode) -> Option<&Entry> {
        self.entries.iter().find(|e| e.cls == cls && e.mode == mode)
    }

    /// Whether the judge's value on `cls` for item `i`, from a shown
    /// perspective, is one of `values` (the table must be prepared).
    pub fn says(&self, cls: &str, mode: Mode, i: usize, values: &[Value]) -> bool {
        let Some(e) = self.entry(cls, mode) else {
            return false;
        };
        let np = e.ctx.perspectives.len();
        e.values
            .get(i * np..(i + 1) * np)
            .is_some_and(|vs| vs.iter().flatten().any(|v| values.contains(v)))
    }

    /// Item `i`'s verdicts changed.
    pub fn item_changed(&mut self, data: &Workspace, i: usize) {
        for e in &mut self.entries {
            for (p, persp) in e.ctx.perspectives.iter().enumerate() {
                let at = i * e.ctx.perspectives.len() + p;
                if let Some(slot) = e.values.get_mut(at) {
                    *slot = latest(data, i, &e.cls, persp, e.mode);
                }
            }
        }
    }
}

/// The judge's latest value on (item `i`, `cls`, perspective `p`) for the
/// item's persona in view (its owner in owner mode) in `mode`.
fn latest(data: &Workspace, i: usize, cls: &str, p: &str, mode: Mode) -> Option<Value> {
    let vs = data.verdicts.get(&*data.items[i].id)?;
    let persona = data.persona_of(i);
    vs.iter()
        .filter(|v| {
            v.mode == Some(mode)
                && v.key.classification_id == cls
                && v.key.perspective_id == p
                && v.persona_id == persona
        })
        .max_by(|a, b| (&a.created_at, a.run_id).cmp(&(&b.created_at, b.run_id)))
        .map(|v| v.value)
}
