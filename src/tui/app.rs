//! The workbench state. Plain data: built from what the store held at start,
//! changed only by [`super::update::update`].

use super::keymap::Keymap;
use super::theme::Theme;
use crate::domain::{
    ComboKey, Failure, Item, Label, Mode, Persona, Perspective, Run, Value, Verdict,
};
use crate::engine::Progress;
use crate::sanitize;
use ratatui_textarea::TextArea;
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
}

/// How much of an item's text the item pane shows.
pub const MAX_ITEM_CHARS: usize = 20_000;
/// How much of a judge text is kept for display.
pub const MAX_VERDICT_CHARS: usize = 4_000;

/// Everything loaded from the store at start.
#[derive(Debug, Default, Clone)]
pub struct Loaded {
    pub items: Vec<Item>,
    pub personas: Vec<Persona>,
    pub perspectives: Vec<Perspective>,
    pub verdicts: Vec<Verdict>,
    pub labels: Vec<Label>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    List,
    Item,
    Verdicts,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    All,
    Unjudged,
    Judged,
    Labelled,
    Unlabelled,
    Disagreements,
}

impl Filter {
    pub fn next(self) -> Filter {
        use Filter::*;
        match self {
            All => Unjudged,
            Unjudged => Judged,
            Judged => Labelled,
            Labelled => Unlabelled,
            Unlabelled => Disagreements,
            Disagreements => All,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Filter::All => "all",
            Filter::Unjudged => "unjudged",
            Filter::Judged => "judged",
            Filter::Labelled => "labelled",
            Filter::Unlabelled => "unlabelled",
            Filter::Disagreements => "judge≠human",
        }
    }
    pub fn keeps(self, m: u8) -> bool {
        match self {
            Filter::All => true,
            Filter::Unjudged => m & mark::JUDGED == 0,
            Filter::Judged => m & mark::JUDGED != 0,
            Filter::Labelled => m & mark::LABELLED != 0,
            Filter::Unlabelled => m & mark::LABELLED == 0,
            Filter::Disagreements => m & mark::DISAGREE != 0,
        }
    }
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

/// Text of one combination as it streams in.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Stream {
    pub tag: u64,
    /// Sanitised for display.
    pub text: String,
    /// The raw text already sanitised into `text` (the engine sends the whole
    /// text so far; only the new suffix is sanitised).
    pub raw: String,
    pub raw_chars: usize,
    pub truncated: bool,
}

impl Stream {
    pub fn new(tag: u64) -> Stream {
        Stream {
            tag,
            ..Default::default()
        }
    }

    /// Takes the whole text so far; sanitises only what is new when it
    /// extends what was seen, else starts over.
    pub fn set(&mut self, full: &str) {
        if !full.starts_with(self.raw.as_str()) {
            let tag = self.tag;
            *self = Stream::new(tag);
        }
        if self.truncated {
            return;
        }
        let suffix = &full[self.raw.len()..];
        let room = MAX_VERDICT_CHARS - self.raw_chars;
        let n = suffix.chars().take(room + 1).count();
        self.text.push_str(&sanitize::for_display(suffix, room));
        self.truncated = n > room;
        self.raw_chars += n.min(room);
        self.raw.push_str(suffix);
    }
}

/// A run this session started.
#[derive(Debug, Clone, PartialEq)]
pub struct ActiveRun {
    pub tag: u64,
    pub run_id: Option<i64>,
    pub protocol: crate::domain::Protocol,
    pub mode: Mode,
    pub items: usize,
    pub progress: Progress,
    pub finished: bool,
    pub note: Option<String>,
}

/// What a judge run should cover (turned into the engine's `RunRequest`).
#[derive(Debug, Clone, PartialEq)]
pub struct RunPlan {
    /// AwAg for content items; rubric examples and conversations are judged
    /// with their own protocol (default dimensions / their guidelines).
    pub protocol: crate::domain::Protocol,
    pub mode: Mode,
    /// How structured answers are asked for; `None` is auto.
    pub structured: Option<crate::provider::ToolMode>,
    pub persona_id: String,
    pub perspective_ids: Vec<String>,
    pub item_ids: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerspectiveSel {
    One(usize),
    All,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerKind {
    Persona,
    Perspective,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Search,
    Note,
    Persona,
}

pub enum Popup {
    Picker {
        kind: PickerKind,
        options: Vec<String>,
        cursor: usize,
    },
    Input {
        kind: InputKind,
        area: Box<TextArea<'static>>,
        /// The combination a note belongs to.
        target: Option<(ComboKey, crate::domain::Scale)>,
        error: Option<String>,
    },
    /// A message that needs acknowledging (e.g. no endpoint configured).
    Notice { title: String, text: String },
    /// Quitting with labels not yet on disk.
    Quit(QuitPrompt),
    /// Labels an earlier session could not save, offered for replay at start.
    Replay {
        labels: Vec<Label>,
        /// Where they are kept (shown).
        path: String,
    },
}

/// The quit prompt: first the retry of every unsaved label, then, when some
/// still fail, the question.
#[derive(Debug, Clone, PartialEq)]
pub enum QuitPrompt {
    /// Waiting for the store's answers to the retry.
    Saving,
    Unsaved {
        count: usize,
        /// The store's last refusal.
        reason: String,
        /// Where the recovery file keeps them, or why it could not; `None`
        /// while it is being written.
        kept: Option<Result<String, String>>,
    },
}

/// The views besides the main screen.
#[derive(Debug, Clone, PartialEq)]
pub enum View {
    Main,
    Compare,
    Personas { cursor: usize },
    Runs(RunsView),
    Agreement(AgreementState),
    Prompt { text: String, scroll: u16 },
    Help { scroll: u16 },
}

#[derive(Debug, Clone, PartialEq, Default)]
pub enum RunsView {
    #[default]
    Loading,
    Loaded {
        runs: Vec<Run>,
        failures: Vec<Failure>,
        cursor: usize,
    },
    Error(String),
}

/// The agreement view: counts at once from what the screen holds, the full
/// figures (`jury report`'s) when a background task has computed them.
#[derive(Debug, Clone, PartialEq)]
pub struct AgreementState {
    pub quick: Vec<AgreementRow>,
    pub figures: FiguresState,
    /// The selected group (its confusion matrix and distributions are drawn).
    pub cursor: usize,
    /// Self-consistency and position-bias lines, as `jury report` prints them.
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FiguresState {
    Computing,
    Ready(Vec<crate::report::GroupFigures>),
    Error(String),
}

/// Judge vs human for one classification, counted from the screen's data.
#[derive(Debug, Clone, PartialEq)]
pub struct AgreementRow {
    pub classification: String,
    pub n: usize,
    pub agree: usize,
    pub undecided: usize,
    pub judge_agree: usize,
    pub human_agree: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warning,
    Error,
}

/// One verdict row: a classification seen from a perspective.
#[derive(Debug, Clone, PartialEq)]
pub struct RowKey {
    pub classification: usize,
    pub perspective_id: String,
}

/// The current item's texts, sanitised once when the cursor lands on it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Detail {
    pub index: Option<usize>,
    /// The current item in full (rebuilt from its compact row).
    pub item: Option<Item>,
    pub title: String,
    pub meta: String,
    pub text: String,
    pub warnings: Vec<String>,
}

pub struct App {
    pub items: Vec<super::items::ItemRow>,
    pub marks: Vec<u8>,
    pub index_of: HashMap<String, u32>,
    /// Indexes into `items` that pass the filter and search, in order.
    pub filtered: Vec<u32>,
    pub filter: Filter,
    /// The list's order (the review queue).
    pub order: super::queue::Order,
    /// Every item's priority under one order, computed when that order is
    /// chosen and kept current item by item ([`App::item_changed`]), so a
    /// search keystroke re-sorts without re-reading 100 000 items' verdicts.
    order_cache: Option<(super::queue::Order, Vec<u32>)>,
    pub search: String,
    /// Position in `filtered`.
    pub cursor: usize,
    pub list_offset: usize,
    pub personas: Vec<Persona>,
    pub persona: usize,
    pub perspectives: Vec<Perspective>,
    pub perspective: PerspectiveSel,
    pub mode: Mode,
    /// How runs ask for structured answers (`None`: auto, the engine finds
    /// the path); config `structured` is the default, a key cycles it.
    pub structured: Option<crate::provider::ToolMode>,
    pub model: String,
    pub who: String,
    /// Verdicts per item id (their raw JSON dropped to save memory).
    pub verdicts: HashMap<String, Vec<Verdict>>,
    /// Labels per item id, every person's.
    pub labels: HashMap<String, Vec<LabelEntry>>,
    pub streams: HashMap<ComboKey, Stream>,
    pub runs: Vec<ActiveRun>,
    pub next_tag: u64,
    pub next_req: u64,
    pub focus: Pane,
    pub row: usize,
    pub text_scroll: u16,
    pub verdict_scroll: u16,
    pub view: View,
    pub popup: Option<Popup>,
    pub blind: bool,
    pub message: Option<(Level, String)>,
    /// Why judging is impossible (no endpoint configured), if it is.
    pub endpoint_error: Option<String>,
    pub detail: Detail,
    pub size: (u16, u16),
    pub keymap: Keymap,
    pub theme: Theme,
    pub quit: bool,
    /// Labels from the recovery file are being written: the file is removed
    /// once every label is saved.
    pub replaying: bool,
    pub spinner: u8,
    /// The prompt set runs use (for the prompt view).
    pub prompts: std::sync::Arc<crate::prompt::PromptSet>,
    /// Model and parameters for the prompt view's request body (no key).
    pub preview_cfg: crate::provider::ProviderConfig,
}

impl App {
    pub fn new(data: Loaded, keymap: Keymap, theme: Theme, model: &str, who: &str) -> App {
        let Loaded {
            items,
            personas,
            perspectives,
            verdicts,
            labels,
        } = data;
        let rest = Loaded {
            items: Vec::new(),
            personas,
            perspectives,
            verdicts,
            labels,
        };
        App::with_items(items, rest, keymap, theme, model, who)
    }

    /// Builds the state from items as they come (a streaming store read
    /// never holds every full `Item` at once); `data.items` is ignored.
    pub fn with_items(
        items: impl IntoIterator<Item = Item>,
        data: Loaded,
        keymap: Keymap,
        theme: Theme,
        model: &str,
        who: &str,
    ) -> App {
        let mut interner = super::items::Interner::default();
        let rows: Vec<super::items::ItemRow> =
            items.into_iter().map(|it| interner.row(it)).collect();
        drop(interner);
        let n = rows.len();
        let mut app = App {
            index_of: rows
                .iter()
                .enumerate()
                .map(|(i, it)| (it.id.to_string(), i as u32))
                .collect(),
            marks: vec![0; n],
            items: rows,
            filtered: Vec::new(),
            filter: Filter::All,
            order: super::queue::Order::File,
            order_cache: None,
            search: String::new(),
            cursor: 0,
            list_offset: 0,
            personas: data.personas,
            persona: 0,
            perspectives: data.perspectives,
            perspective: PerspectiveSel::One(0),
            mode: Mode::Two,
            structured: None,
            model: model.to_string(),
            who: who.to_string(),
            verdicts: HashMap::new(),
            labels: HashMap::new(),
            streams: HashMap::new(),
            runs: Vec::new(),
            next_tag: 1,
            next_req: 1,
            focus: Pane::List,
            row: 0,
            text_scroll: 0,
            verdict_scroll: 0,
            view: View::Main,
            popup: None,
            blind: false,
            message: None,
            endpoint_error: None,
            detail: Detail::default(),
            size: (120, 40),
            keymap,
            theme,
            quit: false,
            replaying: false,
            spinner: 0,
            prompts: std::sync::Arc::new(crate::prompt::PromptSet::embedded()),
            preview_cfg: crate::provider::ProviderConfig::new(
                "http://127.0.0.1/v1".to_string(),
                model.to_string(),
            ),
        };
        for mut v in data.verdicts {
            super::queue::compact_raw(&mut v);
            app.verdicts
                .entry(v.key.item_id.clone())
                .or_default()
                .push(v);
        }
        for l in data.labels {
            app.labels
                .entry(l.key.item_id.clone())
                .or_default()
                .push(LabelEntry {
                    label: l,
                    state: SaveState::Saved,
                });
        }
        let mut memo = super::items::InstructionMemo::default();
        for i in 0..n {
            let it = &app.items[i];
            let mut m = 0;
            if it.looks_like_instructions(&mut memo) {
                m |= mark::INSTRUCTS;
            }
            if sanitize::has_hidden_controls(&it.title) || has_hidden_prefix(&it.text) {
                m |= mark::HIDDEN;
            }
            app.marks[i] = m;
            app.refresh_marks(i);
        }
        app.refilter();
        app.refresh_detail();
        app
    }

    // ----- selection -----

    pub fn persona(&self) -> Option<&Persona> {
        self.personas.get(self.persona)
    }

    pub fn persona_id(&self) -> &str {
        self.persona().map(|p| p.id.as_str()).unwrap_or("")
    }

    /// The perspectives the rows and runs use.
    pub fn active_perspectives(&self) -> Vec<&Perspective> {
        match self.perspective {
            PerspectiveSel::All => self.perspectives.iter().collect(),
            PerspectiveSel::One(i) => self.perspectives.get(i).into_iter().collect(),
        }
    }

    pub fn perspective_label(&self) -> String {
        match self.perspective {
            PerspectiveSel::All => format!("all ({})", self.perspectives.len()),
            PerspectiveSel::One(i) => self
                .perspectives
                .get(i)
                .map(|p| p.id.clone())
                .unwrap_or_else(|| "—".into()),
        }
    }

    pub fn current_index(&self) -> Option<usize> {
        self.filtered.get(self.cursor).map(|i| *i as usize)
    }

    pub fn current_item(&self) -> Option<&Item> {
        self.detail.item.as_ref()
    }

    /// The verdict rows of the current item.
    pub fn rows(&self) -> Vec<RowKey> {
        let Some(item) = self.current_item() else {
            return Vec::new();
        };
        let persp = self.active_perspectives();
        let mut out = Vec::new();
        for ci in 0..item.classifications.len() {
            for p in &persp {
                out.push(RowKey {
                    classification: ci,
                    perspective_id: p.id.clone(),
                });
            }
        }
        out
    }

    /// Rows of the other judge styles on the current item (after the AwAg rows).
    pub fn proto_rows(&self) -> Vec<super::protocol_rows::ProtoRow> {
        let Some(item) = self.current_item() else {
            return Vec::new();
        };
        let verdicts = self
            .verdicts
            .get(&item.id)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let labels = self.labels.get(&item.id).map(Vec::as_slice).unwrap_or(&[]);
        super::protocol_rows::protocol_rows(item, verdicts, labels)
    }

    /// AwAg rows and protocol rows together: what `row` indexes.
    pub fn row_count(&self) -> usize {
        self.rows().len() + self.proto_rows().len()
    }

    /// The focused protocol row, when the focus is past the AwAg rows.
    pub fn focused_proto_row(&self) -> Option<super::protocol_rows::ProtoRow> {
        let awag = self.rows().len();
        let i = self.row.checked_sub(awag)?;
        self.proto_rows().into_iter().nth(i)
    }

    /// The latest verdict on a protocol row.
    pub fn proto_verdict(&self, r: &super::protocol_rows::ProtoRow) -> Option<&Verdict> {
        self.verdicts
            .get(&r.key.item_id)?
            .iter()
            .filter(|v| v.key == r.key && v.persona_id == r.persona_id && v.protocol == r.protocol)
            .max_by(|a, b| (&a.created_at, a.run_id).cmp(&(&b.created_at, b.run_id)))
    }

    /// This person's label on a protocol row (on the row's scale).
    pub fn proto_label(&self, r: &super::protocol_rows::ProtoRow) -> Option<&LabelEntry> {
        self.labels.get(&r.key.item_id)?.iter().find(|e| {
            e.label.key == r.key
                && e.label.persona_id == r.persona_id
                && e.label.who == self.who
                && e.label.value.scale() == r.scale
        })
    }

    pub fn combo(&self, row: &RowKey) -> Option<ComboKey> {
        let item = self.current_item()?;
        let c = item.classifications.get(row.classification)?;
        Some(ComboKey::new(&item.id, &c.id, &row.perspective_id))
    }

    /// The latest verdict for a combination, persona and mode.
    pub fn verdict(&self, key: &ComboKey, persona: &str, mode: Mode) -> Option<&Verdict> {
        self.verdicts
            .get(&key.item_id)?
            .iter()
            .filter(|v| v.key == *key && v.persona_id == persona && v.mode == Some(mode))
            .max_by(|a, b| (&a.created_at, a.run_id).cmp(&(&b.created_at, b.run_id)))
    }

    /// This person's label for a combination on the current persona: the one
    /// on `prefer`'s scale, else one on another scale.
    pub fn my_label(&self, key: &ComboKey, prefer: crate::domain::Scale) -> Option<&LabelEntry> {
        let persona = self.persona_id();
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

    pub fn running(&self) -> bool {
        self.runs.iter().any(|r| !r.finished)
    }

    /// Session cost: the sum of this session's runs.
    pub fn cost(&self) -> Option<f64> {
        let costs: Vec<f64> = self
            .runs
            .iter()
            .filter_map(|r| r.progress.cost_usd)
            .collect();
        (!costs.is_empty()).then(|| costs.iter().sum())
    }

    // ----- derived state kept up to date by update -----

    /// Item `i`'s verdicts or labels changed: its marks and its place in the
    /// review order.
    pub fn item_changed(&mut self, i: usize) {
        self.refresh_marks(i);
        if let Some(order) = self.order_cache.as_ref().map(|(o, _)| *o) {
            let p = self.priority_of(i, order);
            if let Some((_, cache)) = &mut self.order_cache {
                cache[i] = p;
            }
        }
    }

    /// How strongly item `i` belongs at the front under `order`.
    fn priority_of(&self, i: usize, order: super::queue::Order) -> u32 {
        priority_at(&self.items, &self.verdicts, &self.labels, i, order)
    }

    /// Recomputes the judged / labelled / disagreement marks of item `i`.
    pub fn refresh_marks(&mut self, i: usize) {
        let id: &str = &self.items[i].id;
        let mut m = self.marks[i] & (mark::INSTRUCTS | mark::HIDDEN);
        let verdicts = self.verdicts.get(id);
        if verdicts.is_some_and(|v| !v.is_empty()) {
            m |= mark::JUDGED;
        }
        if let Some(labels) = self.labels.get(id).filter(|l| !l.is_empty()) {
            m |= mark::LABELLED;
            if let Some(vs) = verdicts {
                let disagree = labels.iter().any(|e| {
                    vs.iter()
                        .filter(|v| v.key == e.label.key && v.persona_id == e.label.persona_id)
                        .max_by(|a, b| a.created_at.cmp(&b.created_at))
                        .is_some_and(|v| disagrees(v.value, e.label.value))
                });
                if disagree {
                    m |= mark::DISAGREE;
                }
            }
        }
        self.marks[i] = m;
    }

    /// Rebuilds `filtered` from the filter and search, keeping the cursor on
    /// the same item when it is still listed.
    pub fn refilter(&mut self) {
        let keep = self.current_index();
        let q = self.search.to_lowercase();
        let filter = self.filter;
        self.filtered = self
            .items
            .iter()
            .enumerate()
            .filter(|(i, it)| {
                filter.keeps(self.marks[*i])
                    && (q.is_empty()
                        || contains_ci(&it.id, &q)
                        || contains_ci(&it.title, &q)
                        || contains_ci(&it.source.originator, &q))
            })
            .map(|(i, _)| i as u32)
            .collect();
        if self.order != super::queue::Order::File {
            let order = self.order;
            if self.order_cache.as_ref().map(|(o, _)| *o) != Some(order) {
                // Both halves of the list at once: the first sort under an
                // order reads every verdict.
                let n = self.items.len();
                let (items, verdicts, labels) = (&self.items, &self.verdicts, &self.labels);
                let part = |range: std::ops::Range<usize>| -> Vec<u32> {
                    range
                        .map(|i| priority_at(items, verdicts, labels, i, order))
                        .collect()
                };
                let (mut first, second) = crate::par::join(|| part(0..n / 2), || part(n / 2..n));
                first.extend(second);
                self.order_cache = Some((order, first));
            }
            if let Some((_, cache)) = &self.order_cache {
                // Stable: file order among items of equal priority.
                self.filtered
                    .sort_by_key(|&i| std::cmp::Reverse(cache[i as usize]));
            }
        }
        self.cursor = keep
            .and_then(|k| self.filtered.iter().position(|i| *i as usize == k))
            .unwrap_or(0);
        self.list_offset = 0;
        self.scroll_list_to_cursor();
        self.refresh_detail();
    }

    /// Rows the list pane shows (from the last known terminal size).
    pub fn list_height(&self) -> usize {
        super::views::layout::list_rows(self.size)
    }

    pub fn scroll_list_to_cursor(&mut self) {
        let h = self.list_height().max(1);
        if self.cursor < self.list_offset {
            self.list_offset = self.cursor;
        } else if self.cursor >= self.list_offset + h {
            self.list_offset = self.cursor + 1 - h;
        }
    }

    /// Sanitises the current item for the item pane (once per move, not per frame).
    pub fn refresh_detail(&mut self) {
        let idx = self.current_index();
        if idx == self.detail.index && idx.is_some() {
            return;
        }
        self.detail = match idx {
            None => Detail::default(),
            Some(i) => {
                let it = &self.items[i];
                let mut warnings = Vec::new();
                if self.marks[i] & mark::HIDDEN != 0 {
                    warnings
                        .push("holds control, bidi or invisible characters (shown escaped)".into());
                }
                if self.marks[i] & mark::INSTRUCTS != 0 {
                    warnings.push("looks like it tries to instruct the judge".into());
                }
                if it.text.len() > MAX_ITEM_CHARS {
                    warnings.push(format!(
                        "long text: {} bytes, first {} characters shown",
                        it.text.len(),
                        MAX_ITEM_CHARS
                    ));
                }
                Detail {
                    index: Some(i),
                    item: Some(it.to_item()),
                    title: sanitize::one_line(&it.title, 500),
                    // Protocol inputs have no sender or time: leave the gaps out.
                    meta: [
                        sanitize::one_line(&it.id, 80),
                        sanitize::one_line(&it.source.kind, 40),
                        sanitize::one_line(&it.source.originator, 120),
                        match (&it.sent_text, it.kind.is_empty()) {
                            (Some(t), _) => sanitize::one_line(t, 40),
                            (None, true) => "no time".into(),
                            (None, false) => String::new(),
                        },
                    ]
                    .into_iter()
                    .filter(|part| !part.is_empty())
                    .collect::<Vec<_>>()
                    .join(" · "),
                    text: sanitize::for_display(&it.text, MAX_ITEM_CHARS),
                    warnings,
                }
            }
        };
        self.text_scroll = 0;
        self.verdict_scroll = 0;
        let rows = self.row_count();
        if self.row >= rows {
            self.row = rows.saturating_sub(1);
        }
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

fn contains_ci(hay: &str, needle_lower: &str) -> bool {
    if hay.is_ascii() && needle_lower.is_ascii() {
        let h = hay.as_bytes();
        let n = needle_lower.as_bytes();
        n.len() <= h.len()
            && h.windows(n.len())
                .any(|w| w.iter().zip(n).all(|(a, b)| a.to_ascii_lowercase() == *b))
    } else {
        hay.to_lowercase().contains(needle_lower)
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

/// How strongly item `i` belongs at the front under `order`.
fn priority_at(
    items: &[super::items::ItemRow],
    verdicts: &HashMap<String, Vec<Verdict>>,
    labels: &HashMap<String, Vec<LabelEntry>>,
    i: usize,
    order: super::queue::Order,
) -> u32 {
    let id: &str = &items[i].id;
    let vs = verdicts.get(id).map(Vec::as_slice).unwrap_or(&[]);
    let ls = labels.get(id).map(Vec::as_slice).unwrap_or(&[]);
    super::queue::priority(order, vs, ls)
}
