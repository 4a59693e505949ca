//! The workspace data: items (as compact rows), personas, perspectives,
//! verdicts and labels as the store held them, kept current by the engine's
//! and the label writer's answers; and each item's marks derived from them.

use crate::domain::{ComboKey, Item, Label, Mode, Persona, Perspective, Value, Verdict};
use crate::sanitize;
use crate::tui::app::items::{InstructionMemo, Interner, ItemRow};
use crate::tui::app::protocol_rows::ProtoRow;
use std::collections::HashMap;

/// List marks, one byte per item.
pub mod mark {
    pub const JUDGED: u8 = 1;
    pub const LABELLED: u8 = 2;
    pub const DISAGREE: u8 = 4;
    /// The item text looks like it tries to instruct the judge.
    pub const INSTRUCTS: u8 = 8;
    /// The item holds control, bidi or invisible characters.
    pub const HIDDEN: u8 = 16;
    /// Every row the item shows under the current persona and perspective
    /// has a label from the current annotator (see [`super::RowCtx`]).
    pub const DONE: u8 = 32;
    /// A verdict of the item cannot stand without a person and no one has
    /// labelled its combination (see [`super::Workspace::escalations`]).
    pub const NEEDS_PERSON: u8 = 64;
    /// The current annotator marked a row of the item `unsure` or `skip`
    /// (to come back to; a mark is never a label).
    pub const MARKED: u8 = 128;
}

/// The judge configuration in view, which every mark and filter that
/// depends on it reads: the persona (per item when each item's owner is
/// the choice), the active perspectives and the mode. "Every row shown"
/// (the progress mark), the `≠` mark, the judge≠human filter and `judge:`
/// terms all read the rows as the item pane would draw them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowCtx {
    /// Index of the persona fixed in the picker (also for items without an
    /// owner when `by_owner`).
    pub persona: usize,
    /// Each item is judged and labelled as its owner.
    pub by_owner: bool,
    pub perspectives: Vec<String>,
    /// The mode whose verdicts the rows show (the AwAg rows; the other
    /// protocols' rows have no mode).
    pub mode: Mode,
}

/// How much of an item's text the item pane shows.
pub const MAX_ITEM_CHARS: usize = 20_000;

/// Everything loaded from the store at start.
#[derive(Debug, Default, Clone)]
pub struct Loaded {
    pub items: Vec<Item>,
    pub personas: Vec<Persona>,
    pub perspectives: Vec<Perspective>,
    pub verdicts: Vec<Verdict>,
    pub labels: Vec<Label>,
    /// The workspace's held-out split (`jury split`), if one was made.
    pub split: Option<crate::store::Split>,
    /// Every row's current "come back later" mark, every person's.
    pub marks: Vec<crate::domain::RowMark>,
    /// The standing adjudications (reference labels where people disagreed).
    pub adjudications: Vec<crate::domain::Adjudication>,
    /// Where each imported run came from, by run id (the verdict pane
    /// names it beside the imported verdict).
    pub origins: HashMap<i64, crate::domain::ImportOrigin>,
}

/// Whether a label reached the disk.
#[derive(Debug, Clone, PartialEq)]
pub enum SaveState {
    Saved,
    /// Sent to the writer as request `u64`.
    Pending(u64),
    /// The store refused it; kept here so it can be retried.
    Unsaved(String),
}

#[derive(Debug, Clone, PartialEq)]
pub struct LabelEntry {
    pub label: Label,
    pub state: SaveState,
}

impl Workspace {
    /// On a store whose items have no owner: the persona the labels and
    /// verdicts are under (the most of them; the first on a tie), so the
    /// workbench does not open on the first persona alphabetically while
    /// every label is under another. None when nothing is labelled or judged.
    pub fn persona_in_use(&self) -> Option<usize> {
        let mut count = vec![0usize; self.personas.len()];
        let by_id: HashMap<&str, usize> = self
            .personas
            .iter()
            .enumerate()
            .map(|(i, p)| (p.id.as_str(), i))
            .collect();
        let used = (self.labels.values().flatten().map(|e| &e.label.persona_id))
            .chain(self.verdicts.values().flatten().map(|v| &v.persona_id));
        for id in used {
            if let Some(&i) = by_id.get(id.as_str()) {
                count[i] += 1;
            }
        }
        let best = *count.iter().max()?;
        (best > 0).then(|| count.iter().position(|&c| c == best))?
    }
}

pub struct Workspace {
    pub items: Vec<ItemRow>,
    pub marks: Vec<u8>,
    pub index_of: HashMap<String, u32>,
    pub personas: Vec<Persona>,
    pub perspectives: Vec<Perspective>,
    /// Verdicts per item id (their raw JSON dropped to save memory).
    pub verdicts: HashMap<String, Vec<Verdict>>,
    /// Labels per item id, every person's.
    pub labels: HashMap<String, Vec<LabelEntry>>,
    /// Current "come back later" marks per item id, every person's (never
    /// labels: nothing that counts labels reads them).
    pub row_marks: HashMap<String, Vec<crate::domain::RowMark>>,
    /// Who labels in this session.
    pub who: String,
    /// The next request id for the label writer.
    pub next_req: u64,
    /// Labels from the recovery file are being written: the file is removed
    /// once every label is saved.
    pub replaying: bool,
    /// The label writer cannot reach the store (why): labels it refuses
    /// go to the recovery file at once, and are saved on their own when it
    /// answers again (see [`crate::tui::update::away`]).
    pub store_away: Option<String>,
    /// The labels handed to the store again when it came back: removed
    /// from the recovery file once all are saved.
    pub back_replay: Vec<Label>,
    /// Marks (`Effect::SaveMark`) the store refused while it was away,
    /// handed over again when it is back.
    pub marks_away: Vec<crate::tui::msg::Effect>,
    /// The held-out split: each verdict row says its side.
    pub split: Option<crate::store::Split>,
    /// Some item belongs to a persona: the persona picker offers "each
    /// item's owner" and it is the default.
    pub has_owners: bool,
    /// What judging each proposition claim asks (see [`crate::tui::app::claims`]).
    pub claims: crate::tui::app::claims::Claims,
    /// Where `claims.toml` is read from (the config directory's), to say
    /// where a claim goes; `None` when there is no config directory.
    pub claims_file: Option<std::path::PathBuf>,
    /// The tags a label may carry (config `tags`; the default set until
    /// [`crate::tui::build_app`] sets it).
    pub tag_set: Vec<String>,
    /// This session's label changes, oldest first: what `u` walks back.
    pub undo: Vec<UndoStep>,
    /// This session's mark changes, oldest first, each with the length of
    /// `undo` when it was made: `u` takes a mark back when no label change
    /// came after it.
    pub mark_undo: Vec<(usize, MarkStep)>,
    /// Retractions handed to the writer, by request: put back if refused.
    pub undo_pending: HashMap<u64, UndoStep>,
    /// The rows [`mark::DONE`] is computed for (kept equal to the choices
    /// by [`super::App::refresh_all_marks`]).
    pub rows_for: RowCtx,
    /// Every classification id the items hold, with its values (the
    /// search's `urgency=not` terms are checked against them).
    pub cls_values: std::collections::BTreeMap<String, Vec<String>>,
    /// Per item id, the (persona, combination) of its verdicts that need a
    /// person (`report::trust::escalation_queue`); `None` until the "needs a
    /// person" filter first asks, and again after a run wrote verdicts.
    pub escalations: Option<HashMap<String, Vec<(String, ComboKey)>>>,
    /// Whether the queue came from a trusted judge's verdicts (some
    /// headline configuration has a threshold): only then did the judge
    /// choose what is in it (`Escalations::trusted`).
    pub escalations_trusted: bool,
    /// The queue was asked for and has not arrived yet.
    pub escalations_asked: bool,
    /// The active order and the sample orders' "next label" widths
    /// (`None` until the list first shows a sample order).
    pub active: super::active::ActiveState,
    /// The standing adjudications per item id (see [`super::adjudication`]).
    pub adjudications: HashMap<String, Vec<crate::domain::Adjudication>>,
    /// `=` was pressed: the next value key gives the focused row's
    /// reference label instead of one's own.
    pub adjudicate_next: bool,
    /// This session's adjudications, oldest first, for `u`.
    pub adjudication_undo: Vec<super::adjudication::AdjudicationStep>,
    /// What `jury assign` gave this person, and the leases (see [`super::team`]).
    pub team: super::team::Team,
    /// Where each imported run came from, by run id.
    pub origins: HashMap<i64, crate::domain::ImportOrigin>,
    /// Where the store's label and mark histories stood when last read, so
    /// others' changes are taken as they come (see [`super::live`]).
    pub live: super::live::Live,
}

/// One label change of this session: the label before it (`None`: there
/// was none) and after it.
/// One mark change of this session: the row's mark before it (`None`:
/// unmarked) and the place it was made on.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkStep {
    pub slot: crate::store::MarkSlot,
    pub before: Option<crate::domain::RowMark>,
    /// What was set (for the message of its undo).
    pub after: crate::domain::RowMark,
}

#[derive(Debug, Clone, PartialEq)]
pub struct UndoStep {
    pub before: Option<Label>,
    pub after: Label,
}

impl Workspace {
    /// Builds the data from items as they come (a streaming store read never
    /// holds every full `Item` at once); `data.items` is ignored.
    pub fn new(items: impl IntoIterator<Item = Item>, data: Loaded, who: &str) -> Workspace {
        let mut interner = Interner::default();
        let rows: Vec<ItemRow> = items.into_iter().map(|it| interner.row(it)).collect();
        drop(interner);
        let n = rows.len();
        let has_owners = rows.iter().any(|r| r.owner.is_some());
        let mut cls_values = std::collections::BTreeMap::new();
        let mut seen_meta = std::collections::HashSet::new();
        for it in &rows {
            for c in it.classifications.iter() {
                // Shared metas: each distinct classification is read once.
                if seen_meta.insert(std::sync::Arc::as_ptr(&c.meta) as usize) {
                    let vals: &mut Vec<String> = cls_values.entry(c.meta.id.clone()).or_default();
                    for v in &c.meta.available {
                        if !vals.contains(v) {
                            vals.push(v.clone());
                        }
                    }
                }
            }
        }
        // The rows the choices start with (`Choices::default`, each item's
        // owner when items have owners): the first persona, the first
        // perspective.
        let defaults = super::Choices::default();
        let rows_for = RowCtx {
            persona: defaults.persona,
            by_owner: has_owners,
            perspectives: data
                .perspectives
                .first()
                .map(|p| p.id.clone())
                .into_iter()
                .collect(),
            mode: defaults.mode,
        };
        let mut ws = Workspace {
            has_owners,
            index_of: rows
                .iter()
                .enumerate()
                .map(|(i, it)| (it.id.to_string(), i as u32))
                .collect(),
            marks: vec![0; n],
            items: rows,
            personas: data.personas,
            perspectives: data.perspectives,
            verdicts: HashMap::new(),
            labels: HashMap::new(),
            row_marks: HashMap::new(),
            who: who.to_string(),
            next_req: 1,
            replaying: false,
            store_away: None,
            back_replay: Vec::new(),
            marks_away: Vec::new(),
            split: data.split,
            claims: Default::default(),
            claims_file: None,
            tag_set: crate::config::DEFAULT_TAGS
                .iter()
                .map(|t| t.to_string())
                .collect(),
            undo: Vec::new(),
            mark_undo: Vec::new(),
            undo_pending: HashMap::new(),
            rows_for,
            cls_values,
            escalations: None,
            escalations_trusted: false,
            escalations_asked: false,
            active: Default::default(),
            adjudications: HashMap::new(),
            adjudicate_next: false,
            adjudication_undo: Vec::new(),
            team: super::team::Team::default(),
            origins: data.origins,
            live: super::live::Live::default(),
        };
        for a in data.adjudications {
            ws.adjudications
                .entry(a.key.item_id.clone())
                .or_default()
                .push(a);
        }
        for mut v in data.verdicts {
            crate::tui::app::queue::compact_raw(&mut v);
            ws.verdicts
                .entry(v.key.item_id.clone())
                .or_default()
                .push(v);
        }
        for l in data.labels {
            ws.labels
                .entry(l.key.item_id.clone())
                .or_default()
                .push(LabelEntry {
                    label: l,
                    state: SaveState::Saved,
                });
        }
        for m in data.marks {
            ws.row_marks
                .entry(m.key.item_id.clone())
                .or_default()
                .push(m);
        }
        let mut memo = InstructionMemo::default();
        for i in 0..n {
            let it = &ws.items[i];
            let mut m = 0;
            if it.looks_like_instructions(&mut memo) {
                m |= mark::INSTRUCTS;
            }
            if sanitize::has_hidden_controls(&it.title) || has_hidden_prefix(&it.text) {
                m |= mark::HIDDEN;
            }
            ws.marks[i] = m;
            ws.refresh_marks(i);
        }
        ws
    }

    /// A request id for the label writer or a store read whose answer must
    /// be told from an earlier one's (the agreement view's).
    pub fn take_req(&mut self) -> u64 {
        let req = self.next_req;
        self.next_req += 1;
        req
    }

    /// The one answer to "which persona is this item judged and labelled
    /// as": its owner when each item's owner is the choice (`by_owner`) and
    /// the owner is a persona of the workspace, else the fixed persona.
    /// The item pane, the status bar, runs, labels, marks, progress,
    /// `judge:` terms and `L` all ask it.
    pub fn persona_for(
        &self,
        fixed: usize,
        by_owner: bool,
        owner: Option<&str>,
    ) -> Option<&Persona> {
        if by_owner
            && let Some(owner) = owner
            && let Some(p) = self.personas.iter().find(|p| p.id == owner)
        {
            return Some(p);
        }
        self.personas.get(fixed)
    }

    /// The persona item `i` is read as under the rows in view
    /// ([`Self::rows_for`]); "" without personas.
    pub fn persona_of(&self, i: usize) -> &str {
        self.persona_for(
            self.rows_for.persona,
            self.rows_for.by_owner,
            self.items[i].owner.as_deref(),
        )
        .map_or("", |p| p.id.as_str())
    }

    /// The latest verdict for a combination, persona and mode.
    pub fn verdict(&self, key: &ComboKey, persona: &str, mode: Mode) -> Option<&Verdict> {
        self.verdicts
            .get(&key.item_id)?
            .iter()
            .filter(|v| v.key == *key && v.persona_id == persona && v.mode == Some(mode))
            .max_by(|a, b| (&a.created_at, a.run_id).cmp(&(&b.created_at, b.run_id)))
    }

    /// The latest verdict on a protocol row.
    pub fn proto_verdict(&self, r: &ProtoRow) -> Option<&Verdict> {
        self.verdicts
            .get(&r.key.item_id)?
            .iter()
            .filter(|v| v.key == r.key && v.persona_id == r.persona_id && v.protocol == r.protocol)
            .max_by(|a, b| (&a.created_at, a.run_id).cmp(&(&b.created_at, b.run_id)))
    }

    /// This person's label on a protocol row (on the row's scale).
    pub fn proto_label(&self, r: &ProtoRow) -> Option<&LabelEntry> {
        self.labels.get(&r.key.item_id)?.iter().find(|e| {
            e.label.key == r.key
                && e.label.persona_id == r.persona_id
                && e.label.who == self.who
                && e.label.value.scale() == r.scale
        })
    }

    /// This person's label for a combination and persona: the one on
    /// `prefer`'s scale, else one on another scale.
    pub fn my_label(
        &self,
        key: &ComboKey,
        persona: &str,
        prefer: crate::domain::Scale,
    ) -> Option<&LabelEntry> {
        let mine: Vec<&LabelEntry> = self
            .labels
            .get(&key.item_id)?
            .iter()
            .filter(|e| {
                e.label.key == *key && e.label.persona_id == persona && e.label.who == self.who
            })
            .collect();
        mine.iter()
            .find(|e| e.label.value.scale() == prefer)
            .or_else(|| {
                mine.iter()
                    .max_by(|a, b| a.label.created_at.cmp(&b.label.created_at))
            })
            .copied()
    }

    /// The current annotator's mark on a row, if any.
    pub fn my_mark(&self, key: &ComboKey, persona: &str) -> Option<&crate::domain::RowMark> {
        self.row_marks
            .get(&key.item_id)?
            .iter()
            .find(|m| m.key == *key && m.persona_id == persona && m.who == self.who)
    }

    /// Sets (or, `None`, clears) a row's mark as this session holds it.
    pub fn put_mark(
        &mut self,
        slot: &crate::store::MarkSlot,
        mark: Option<crate::domain::RowMark>,
    ) {
        let ms = self.row_marks.entry(slot.key.item_id.clone()).or_default();
        ms.retain(|m| crate::store::MarkSlot::of(m) != *slot);
        ms.extend(mark);
    }

    /// Whether anyone's label on item `i` carries a note (the list's `✎`;
    /// read for the rows on screen only).
    pub fn has_note(&self, i: usize) -> bool {
        self.labels
            .get(&*self.items[i].id)
            .is_some_and(|ls| ls.iter().any(|e| !e.label.note.is_empty()))
    }

    pub fn unsaved_count(&self) -> usize {
        self.labels
            .values()
            .flatten()
            .filter(|e| matches!(e.state, SaveState::Unsaved(_)))
            .count()
    }

    /// Labels handed to the writer and not yet answered.
    pub fn pending_count(&self) -> usize {
        self.labels
            .values()
            .flatten()
            .filter(|e| matches!(e.state, SaveState::Pending(_)))
            .count()
    }

    /// Every label not (yet) on disk, as it would be written.
    pub fn unsaved_labels(&self) -> Vec<Label> {
        self.labels
            .values()
            .flatten()
            .filter(|e| e.state != SaveState::Saved)
            .map(|e| e.label.clone())
            .collect()
    }

    /// Recomputes the judged / labelled / disagreement marks of item `i`.
    pub fn refresh_marks(&mut self, i: usize) {
        let id: &str = &self.items[i].id;
        let mut m = self.marks[i] & (mark::INSTRUCTS | mark::HIDDEN);
        if self.labelled_by(i, &self.who) {
            m |= mark::DONE;
        }
        let verdicts = self.verdicts.get(id);
        if verdicts.is_some_and(|v| !v.is_empty()) {
            m |= mark::JUDGED;
        }
        if self.needs_a_person(id) {
            m |= mark::NEEDS_PERSON;
        }
        if self
            .row_marks
            .get(id)
            .is_some_and(|ms| ms.iter().any(|r| r.who == self.who))
        {
            m |= mark::MARKED;
        }
        if let Some(labels) = self.labels.get(id).filter(|l| !l.is_empty()) {
            m |= mark::LABELLED;
            if verdicts.is_some() && self.disagrees_in_view(i, labels) {
                m |= mark::DISAGREE;
            }
        }
        self.marks[i] = m;
    }

    /// Whether a verdict of item `id` is in the escalation queue and still
    /// has no label from anyone (a label given in this session takes it out).
    fn needs_a_person(&self, id: &str) -> bool {
        let Some(queue) = self.escalations.as_ref().and_then(|e| e.get(id)) else {
            return false;
        };
        let labels = self.labels.get(id).map_or(&[][..], Vec::as_slice);
        queue.iter().any(|(persona, key)| {
            !labels
                .iter()
                .any(|e| e.label.key == *key && e.label.persona_id == *persona)
        })
    }

    /// Whether a row item `i` shows under the judge configuration in view
    /// has a person's label the judge's verdict on that row disagrees with:
    /// an AwAg row of a shown perspective, read as the item's persona, in
    /// the mode shown (the verdict the row shows, [`Self::verdict`]); a
    /// row of another protocol (shown in every mode) against its own latest
    /// verdict. A verdict of another mode, persona or protocol never marks.
    fn disagrees_in_view(&self, i: usize, labels: &[LabelEntry]) -> bool {
        let persona = self.persona_of(i);
        let ctx = &self.rows_for;
        labels.iter().any(|e| {
            let l = &e.label;
            let judge = match crate::tui::app::protocol_rows::label_protocol(&l.key.perspective_id)
            {
                Some(protocol) => self
                    .verdicts
                    .get(&l.key.item_id)
                    .into_iter()
                    .flatten()
                    .filter(|v| {
                        v.protocol == protocol && v.key == l.key && v.persona_id == l.persona_id
                    })
                    .max_by(|a, b| (&a.created_at, a.run_id).cmp(&(&b.created_at, b.run_id))),
                None if l.persona_id == persona
                    && ctx.perspectives.contains(&l.key.perspective_id) =>
                {
                    self.verdict(&l.key, persona, ctx.mode)
                }
                None => None,
            };
            judge.is_some_and(|v| disagrees(v.value, l.value))
        })
    }

    /// Whether `who` labelled every row item `i` shows under [`Self::rows_for`]:
    /// each classification from each active perspective, on any scale. An
    /// item without classifications (a protocol input) counts once `who`
    /// labelled any of its rows.
    pub fn labelled_by(&self, i: usize, who: &str) -> bool {
        let it = &self.items[i];
        let Some(labels) = self.labels.get(&*it.id) else {
            return false;
        };
        if it.classifications.is_empty() {
            return labels.iter().any(|e| e.label.who == who);
        }
        let ctx = &self.rows_for;
        let persona = self.persona_of(i);
        !ctx.perspectives.is_empty()
            && it.classifications.iter().all(|c| {
                ctx.perspectives.iter().all(|p| {
                    labels.iter().any(|e| {
                        let l = &e.label;
                        l.who == who
                            && l.persona_id == persona
                            && l.key.classification_id == c.meta.id
                            && l.key.perspective_id == *p
                    })
                })
            })
    }

    /// How strongly item `i` belongs at the front under `order`.
    pub fn priority(&self, i: usize, order: crate::tui::app::queue::Order) -> u32 {
        let id: &str = &self.items[i].id;
        if order == crate::tui::app::queue::Order::Sample {
            return crate::tui::app::queue::sample_priority(id);
        }
        if order == crate::tui::app::queue::Order::Active {
            return self.active.walk.as_ref().map_or(0, |w| w.rank(id));
        }
        let vs = self.verdicts.get(id).map(Vec::as_slice).unwrap_or(&[]);
        let ls = self.labels.get(id).map(Vec::as_slice).unwrap_or(&[]);
        crate::tui::app::queue::priority(order, vs, ls)
    }
}

/// Judge and human disagree: same scale and a different value (Likert: on
/// opposite sides or two or more apart); across scales Likert ≥4 reads as
/// AGREE, ≤2 as DISAGREE and 3 as undecided (no mark).
pub fn disagrees(judge: Value, human: Value) -> bool {
    match (judge, human) {
        (Value::Likert(a), Value::Likert(b)) => {
            a.abs_diff(b) >= 2
                || matches!((judge.as_agreement(), human.as_agreement()), (Some(x), Some(y)) if x != y)
        }
        _ if judge.scale() == human.scale() => judge != human,
        _ => matches!((judge.as_agreement(), human.as_agreement()), (Some(x), Some(y)) if x != y),
    }
}

/// Checks only the start of a long text (a 10 MB item costs no more than a short one).
fn has_hidden_prefix(text: &str) -> bool {
    let mut end = text.len().min(MAX_ITEM_CHARS * 4);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    sanitize::has_hidden_controls(&text[..end])
}
