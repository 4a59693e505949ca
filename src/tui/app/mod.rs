//! The workbench state, split by concern: the workspace data ([`Workspace`]),
//! the item list and selection ([`ItemList`]), the user's choices
//! ([`Choices`]), the run tracker ([`RunTracker`]) and the chrome
//! ([`Chrome`]). Plain data: built from what the store held at start,
//! changed only by [`super::update::update`]. `App`'s own methods answer
//! questions that need more than one part.

pub mod active;
pub mod adjudication;
mod choices;
mod chrome;
mod compare;
mod fewshot;
mod judge_cache;
mod list;
mod live;
mod mine;
mod query;
mod runs;
mod session;
mod team;
mod text_cache;
mod workspace;

pub mod claims;
pub mod items;
pub mod protocol_rows;
pub mod queue;

pub use choices::*;
pub use chrome::*;
pub use compare::*;
pub use fewshot::*;
pub use list::*;
pub use live::*;
pub use mine::*;
pub use query::*;
pub use runs::*;
pub use session::*;
pub use team::*;
pub use workspace::*;

use super::input::keymap::Keymap;
use super::theme::Theme;
use crate::domain::{ComboKey, Item, Label, Mode, Persona, Perspective, Verdict};
use protocol_rows::ProtoRow;

/// One verdict row: a classification seen from a perspective.
#[derive(Debug, Clone, PartialEq)]
pub struct RowKey {
    pub classification: usize,
    pub perspective_id: String,
}

pub struct App {
    pub data: Workspace,
    pub list: ItemList,
    pub choices: Choices,
    pub runs: RunTracker,
    pub chrome: Chrome,
}

impl App {
    pub fn new(data: Loaded, keymap: Keymap, theme: Theme, model: &str, who: &str) -> App {
        let Loaded {
            items,
            personas,
            perspectives,
            verdicts,
            labels,
            split,
            marks,
            adjudications,
            origins,
        } = data;
        let rest = Loaded {
            items: Vec::new(),
            personas,
            perspectives,
            verdicts,
            labels,
            split,
            marks,
            adjudications,
            origins,
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
        let mut app = App {
            data: Workspace::new(items, data, who),
            list: ItemList::default(),
            choices: Choices::default(),
            runs: RunTracker::new(model),
            chrome: Chrome::new(keymap, theme),
        };
        app.choices.by_owner = app.data.has_owners;
        if !app.data.has_owners {
            app.choices.persona = app.data.persona_in_use().unwrap_or(0);
        }
        // The workspace marks for the first persona and perspective, as the
        // choices start; only other choices cost a second pass.
        if app.data.rows_for != app.row_ctx() {
            app.refresh_all_marks();
        }
        app.refilter();
        app
    }

    // ----- selection -----

    /// The persona the current item is judged and labelled as: its owner
    /// unless one persona is fixed (or it has none), else the chosen one.
    pub fn persona(&self) -> Option<&Persona> {
        self.data.persona_for(
            self.choices.persona,
            self.choices.by_owner,
            self.current_item().and_then(|i| i.owner.as_deref()),
        )
    }

    /// Whether the current item is judged as its owner (each item's owner
    /// is the choice and it has one).
    pub fn as_owner(&self) -> bool {
        self.choices.by_owner
            && self
                .owner_of(self.current_item().and_then(|i| i.owner.as_deref()))
                .is_some()
    }

    /// The persona chosen in the picker (for items without an owner when
    /// each item's owner is the choice).
    pub fn fixed_persona(&self) -> Option<&Persona> {
        self.data.personas.get(self.choices.persona)
    }

    /// The persona an owner name is, if it is one of the workspace's.
    pub fn owner_of(&self, owner: Option<&str>) -> Option<&Persona> {
        let owner = owner?;
        self.data.personas.iter().find(|p| p.id == owner)
    }

    pub fn persona_id(&self) -> &str {
        self.persona().map(|p| p.id.as_str()).unwrap_or("")
    }

    /// The perspectives the rows and runs use.
    pub fn active_perspectives(&self) -> Vec<&Perspective> {
        match self.choices.perspective {
            PerspectiveSel::All => self.data.perspectives.iter().collect(),
            PerspectiveSel::One(i) => self.data.perspectives.get(i).into_iter().collect(),
        }
    }

    pub fn perspective_label(&self) -> String {
        match self.choices.perspective {
            PerspectiveSel::All => format!("all ({})", self.data.perspectives.len()),
            PerspectiveSel::One(i) => self
                .data
                .perspectives
                .get(i)
                .map(|p| p.id.clone())
                .unwrap_or_else(|| "—".into()),
        }
    }

    pub fn current_index(&self) -> Option<usize> {
        self.list.current_index()
    }

    pub fn current_item(&self) -> Option<&Item> {
        self.list.detail.item.as_ref()
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

    /// Rows of the other judge styles on the current item (after the AwAg
    /// rows). A claim row shows once its claim is configured (in
    /// `claims.toml`, or asked by an earlier run): without its text it can
    /// be neither judged nor read, and [`Self::hidden_claims`] names it.
    pub fn proto_rows(&self) -> Vec<ProtoRow> {
        self.all_proto_rows()
            .into_iter()
            .filter(|r| {
                r.protocol != crate::domain::Protocol::Proposition
                    || self.data.claims.contains_key(&r.key.classification_id)
            })
            .collect()
    }

    /// The claims of the current item's rows that are not shown: their
    /// claim text is unknown (sorted, each once).
    pub fn hidden_claims(&self) -> Vec<String> {
        let mut ids: Vec<String> = self
            .all_proto_rows()
            .into_iter()
            .filter(|r| r.protocol == crate::domain::Protocol::Proposition)
            .map(|r| r.key.classification_id)
            .filter(|id| !self.data.claims.contains_key(id))
            .collect();
        ids.sort();
        ids.dedup();
        ids
    }

    fn all_proto_rows(&self) -> Vec<ProtoRow> {
        let Some(item) = self.current_item() else {
            return Vec::new();
        };
        let verdicts = self
            .data
            .verdicts
            .get(&item.id)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let labels = self
            .data
            .labels
            .get(&item.id)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let mut rows = protocol_rows::protocol_rows(item, verdicts, labels);
        for r in rows
            .iter_mut()
            .filter(|r| r.protocol == crate::domain::Protocol::Proposition)
        {
            if let Some(s) = self.data.claims.get(&r.key.classification_id) {
                // The scale the claim is judged on, labelled on.
                r.scale = s.scoring.scale();
                r.about = super::strings::claim::about(&s.claim, s.scoring.as_str());
            }
        }
        rows
    }

    /// AwAg rows and protocol rows together: what `list.row` indexes.
    pub fn row_count(&self) -> usize {
        self.rows().len() + self.proto_rows().len()
    }

    /// The focused protocol row, when the focus is past the AwAg rows.
    pub fn focused_proto_row(&self) -> Option<ProtoRow> {
        let awag = self.rows().len();
        let i = self.list.row.checked_sub(awag)?;
        self.proto_rows().into_iter().nth(i)
    }

    /// The latest verdict on a protocol row.
    pub fn proto_verdict(&self, r: &ProtoRow) -> Option<&Verdict> {
        self.data.proto_verdict(r)
    }

    /// This person's label on a protocol row (on the row's scale).
    pub fn proto_label(&self, r: &ProtoRow) -> Option<&LabelEntry> {
        self.data.proto_label(r)
    }

    pub fn combo(&self, row: &RowKey) -> Option<ComboKey> {
        let item = self.current_item()?;
        let c = item.classifications.get(row.classification)?;
        Some(ComboKey::new(&item.id, &c.id, &row.perspective_id))
    }

    /// The latest verdict for a combination, persona and mode.
    pub fn verdict(&self, key: &ComboKey, persona: &str, mode: Mode) -> Option<&Verdict> {
        self.data.verdict(key, persona, mode)
    }

    /// The verdict the verdict pane shows for a row: on a list drilled from
    /// a figure, the verdict that figure counted (its run: the group's model
    /// and prompt set), else the latest ([`Self::verdict`]).
    pub fn shown_verdict(&self, key: &ComboKey, persona: &str, mode: Mode) -> Option<&Verdict> {
        let run = self.list.drill.as_ref().and_then(|d| {
            let i = *self.data.index_of.get(&key.item_id)?;
            d.rows.get(&i)?.iter().find_map(|(cls, persp, run)| {
                (*cls == key.classification_id && *persp == key.perspective_id)
                    .then_some(*run)
                    .flatten()
            })
        });
        let counted = run.and_then(|run| {
            self.data.verdicts.get(&key.item_id)?.iter().find(|v| {
                v.run_id == run && v.key == *key && v.persona_id == persona && v.mode == Some(mode)
            })
        });
        counted.or_else(|| self.verdict(key, persona, mode))
    }

    /// This person's label for a combination on the current persona: the one
    /// on `prefer`'s scale, else one on another scale.
    /// The current annotator's mark on the focused row's combination under
    /// `persona`.
    pub fn my_mark(&self, key: &ComboKey, persona: &str) -> Option<&crate::domain::RowMark> {
        self.data.my_mark(key, persona)
    }

    pub fn my_label(&self, key: &ComboKey, prefer: crate::domain::Scale) -> Option<&LabelEntry> {
        self.data.my_label(key, self.persona_id(), prefer)
    }

    pub fn unsaved_count(&self) -> usize {
        self.data.unsaved_count()
    }

    /// Labels handed to the writer and not yet answered.
    pub fn pending_count(&self) -> usize {
        self.data.pending_count()
    }

    /// Every label not (yet) on disk, as it would be written.
    pub fn unsaved_labels(&self) -> Vec<Label> {
        self.data.unsaved_labels()
    }

    pub fn running(&self) -> bool {
        self.runs.running()
    }

    /// Session cost: the sum of this session's runs.
    pub fn cost(&self) -> Option<f64> {
        self.runs.cost()
    }

    // ----- derived state kept up to date by update -----

    /// Item `i`'s verdicts or labels changed: its marks and its place in the
    /// review order.
    pub fn item_changed(&mut self, i: usize) {
        let was = self.data.marks[i];
        self.data.refresh_marks(i);
        self.list.item_changed(&self.data, i, was);
    }

    /// The judge configuration the choices put in view, as the marks,
    /// progress and filters read it.
    pub fn row_ctx(&self) -> RowCtx {
        RowCtx {
            persona: self.choices.persona,
            by_owner: self.choices.by_owner,
            perspectives: self
                .active_perspectives()
                .iter()
                .map(|p| p.id.clone())
                .collect(),
            mode: self.choices.mode,
        }
    }

    /// Recomputes every item's marks and the list's progress count when the
    /// configuration in view changed (persona, perspective, mode); the
    /// judge≠human and "not labelled by me" filters and `judge:` terms then
    /// read the new one.
    pub fn refresh_all_marks(&mut self) {
        let ctx = self.row_ctx();
        if ctx == self.data.rows_for {
            return;
        }
        self.data.rows_for = ctx;
        for i in 0..self.data.items.len() {
            self.data.refresh_marks(i);
        }
        if self.list.query.reads_judge()
            || self.list.filter.reads_judge()
            || self.list.filter.reads_rows_in_view()
        {
            self.refilter();
        } else {
            self.list.recount(&self.data);
        }
    }

    /// Rebuilds the list from the filter and search, keeping the cursor on
    /// the same item when it is still listed.
    pub fn refilter(&mut self) {
        let h = self.list_height();
        self.list.refilter(&self.data, h, self.choices.mode);
        self.refresh_detail();
    }

    /// Rows the list pane shows (from the last known terminal size).
    pub fn list_height(&self) -> usize {
        let legend = super::layout::legend::height(self, self.chrome.size.0);
        super::layout::list_rows(self.chrome.size, legend)
    }

    pub fn scroll_list_to_cursor(&mut self) {
        let h = self.list_height();
        self.list.scroll_to_cursor(h);
    }

    /// Sanitises the current item for the item pane (once per move, not per
    /// frame) and keeps the focused row on one of its rows.
    ///
    /// The item changed (`j`, a search, a drill, auto-advance): the focus
    /// goes to the first row that still needs the annotator, so the next
    /// label key lands where the work is, not on the row the last item
    /// happened to have focused (which a label key would then overwrite).
    /// A drilled item shows the pair's row instead; an item with nothing
    /// left for the annotator keeps the row, for reading across items. The
    /// first item shown (at start) opens on its first row, as drawn before
    /// any key.
    pub fn refresh_detail(&mut self) {
        let first = self.list.detail.index.is_none();
        if !self.list.load_detail(&self.data) {
            return;
        }
        if !self.focus_drilled_row()
            && !first
            && let Some(r) = self.rows_needing_me().iter().position(|&n| n)
        {
            self.list.row = r;
        }
        let rows = self.row_count();
        if self.list.row >= rows {
            self.list.row = rows.saturating_sub(1);
        }
    }

    /// On a list drilled from a figure, an opened item shows the row of the
    /// pair that put it there.
    /// True when it did.
    fn focus_drilled_row(&mut self) -> bool {
        let (Some(drill), Some(i)) = (&self.list.drill, self.list.current_index()) else {
            return false;
        };
        let (Some(pairs), Some(item)) = (drill.rows.get(&(i as u32)), self.data.items.get(i))
        else {
            return false;
        };
        let rows = self.rows();
        let found = pairs.iter().find_map(|(cls, persp, _)| {
            let ci = item
                .classifications
                .iter()
                .position(|c| c.meta.id == *cls)?;
            rows.iter()
                .position(|r| r.classification == ci && r.perspective_id == *persp)
        });
        if let Some(r) = found {
            self.list.row = r;
        }
        found.is_some()
    }
}
