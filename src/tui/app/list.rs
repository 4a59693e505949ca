//! The item list: filter, search, review order and the selection (the
//! current item, its focused verdict row and the panes' scroll).

use super::judge_cache::JudgeCache;
use super::query::{Caches, Query};
use super::text_cache::TextCache;
use super::workspace::{MAX_ITEM_CHARS, Workspace, mark};
use crate::domain::{Item, Mode};
use crate::sanitize;
use crate::tui::app::queue::Order;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    All,
    Unjudged,
    Judged,
    /// Someone (anyone) labelled a row of the item ([`mark::LABELLED`]).
    Labelled,
    /// No one labelled any row of the item.
    Unlabelled,
    /// What is left for me: some row the item shows under the configuration
    /// in view has no label from the current annotator ([`mark::DONE`]
    /// unset, the progress count's definition).
    NotMine,
    Disagreements,
    /// The escalation queue: a verdict the trusted judge cannot stand by
    /// alone, on a combination no one labelled ([`mark::NEEDS_PERSON`]).
    NeedsPerson,
    /// Rows I marked `unsure` or `skip` to come back to ([`mark::MARKED`]).
    MarkedByMe,
    /// The adjudication queue: items where two or more people labelled a
    /// row and disagree, not yet adjudicated ([`Workspace::disputed`]).
    Adjudicate,
}

impl Filter {
    pub fn next(self) -> Filter {
        use Filter::*;
        match self {
            All => Unjudged,
            Unjudged => Judged,
            Judged => Labelled,
            Labelled => Unlabelled,
            Unlabelled => NotMine,
            NotMine => Disagreements,
            Disagreements => NeedsPerson,
            NeedsPerson => MarkedByMe,
            MarkedByMe => Adjudicate,
            Adjudicate => All,
        }
    }
    /// The filter before this one in the cycle ([`Filter::next`] undone).
    pub fn prev(self) -> Filter {
        let mut f = self;
        while f.next() != self {
            f = f.next();
        }
        f
    }
    pub fn name(self) -> &'static str {
        match self {
            Filter::All => "all",
            Filter::Unjudged => "unjudged",
            Filter::Judged => "judged",
            Filter::Labelled => "labelled by anyone",
            Filter::Unlabelled => "unlabelled by anyone",
            Filter::NotMine => "not labelled by me",
            Filter::Disagreements => "judge≠human",
            Filter::NeedsPerson => "needs a person",
            Filter::MarkedByMe => "marked unsure/skip by me",
            Filter::Adjudicate => "to adjudicate",
        }
    }
    /// The name a kept session stores: stable when the shown name changes
    /// (sessions kept before "by anyone" was added say "labelled").
    pub fn key(self) -> &'static str {
        match self {
            Filter::Labelled => "labelled",
            Filter::Unlabelled => "unlabelled",
            Filter::NotMine => "not-mine",
            Filter::MarkedByMe => "marked-by-me",
            Filter::Adjudicate => "to-adjudicate",
            f => f.name(),
        }
    }
    /// Made of the rows in view (persona, perspectives, mode): the list is
    /// made again when they change.
    pub fn reads_rows_in_view(self) -> bool {
        matches!(self, Filter::NotMine | Filter::Disagreements)
    }
    /// Made of what the judge said (hidden in blind review).
    pub fn reads_judge(self) -> bool {
        matches!(self, Filter::Disagreements | Filter::NeedsPerson)
    }
    pub fn keeps(self, m: u8) -> bool {
        match self {
            Filter::All => true,
            Filter::Unjudged => m & mark::JUDGED == 0,
            Filter::Judged => m & mark::JUDGED != 0,
            Filter::Labelled => m & mark::LABELLED != 0,
            Filter::Unlabelled => m & mark::LABELLED == 0,
            Filter::NotMine => m & mark::DONE == 0,
            Filter::Disagreements => m & mark::DISAGREE != 0,
            Filter::NeedsPerson => m & mark::NEEDS_PERSON != 0,
            Filter::MarkedByMe => m & mark::MARKED != 0,
            // Read from the labels, not a mark ([`Filter::keeps_item`]).
            Filter::Adjudicate => true,
        }
    }

    /// Whether workspace item `i` passes the filter.
    pub fn keeps_item(self, data: &Workspace, i: usize) -> bool {
        match self {
            Filter::Adjudicate => data.disputed(i),
            f => f.keeps(data.marks[i]),
        }
    }
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

/// The list narrowed to the items behind one figure of the agreement view
/// (a confusion-matrix cell or a whole group).
#[derive(Debug, Clone, PartialEq)]
pub struct Drill {
    /// What the items are, for the list title.
    pub label: String,
    /// Per workspace item: behind the figure.
    pub members: Vec<bool>,
    /// Per member item: the rows (classification id, perspective id) of its
    /// pairs, with the run of the judge verdict each pair counted; the first
    /// one shown is focused when the item is opened, and the verdict pane
    /// shows that run's verdict (the group's model and prompt set), not the
    /// mode's latest.
    pub rows: std::collections::HashMap<u32, Vec<(String, String, Option<i64>)>>,
    /// The filter and search the figure's items were listed under. While
    /// they stand the drill lists its members alone: read again under the
    /// group's own mode or persona they would hide items the figure
    /// counted. Changed in the drilled list, they narrow it as usual.
    pub made_under: (Filter, String),
}

pub struct ItemList {
    /// Indexes into the workspace's items that pass the filter and search, in order.
    pub filtered: Vec<u32>,
    pub filter: Filter,
    /// The list's order (the review queue).
    pub order: Order,
    /// Every item's priority under one order, computed when that order is
    /// chosen and kept current item by item ([`ItemList::item_changed`]), so
    /// a search keystroke re-sorts without re-reading 100 000 items' verdicts.
    order_cache: Option<(Order, Vec<u32>)>,
    pub search: String,
    /// `search` as read at the last refilter (terms, and the ones left out).
    pub query: Query,
    /// Set from the agreement view: only the items behind a figure.
    pub drill: Option<Drill>,
    /// Listed items with [`mark::DONE`]: the progress "37/200 labelled by me",
    /// kept current item by item ([`ItemList::item_changed`]).
    pub labelled: usize,
    /// Per workspace item: in `filtered` (so a label counts in O(1)).
    listed: Vec<bool>,
    /// Under "not labelled by me": the items the search and drill keep
    /// whatever the filter (the queue's whole scope), and how many of them
    /// are done and so no longer listed; the border then reads "21 of 94
    /// done · 73 left" instead of the listed items' own "0/73".
    scope: Vec<bool>,
    scope_len: usize,
    pub done_unlisted: Option<usize>,
    /// What the judge said per item, for `judge:` terms.
    judge_cache: JudgeCache,
    /// Lower-case bodies, reasoning and notes, for `text:`, `why:` and `note:` terms.
    text_cache: TextCache,
    /// Position in `filtered`.
    pub cursor: usize,
    pub list_offset: usize,
    pub detail: Detail,
    /// The focused verdict row of the current item.
    pub row: usize,
    /// Where the last label moved the focus (until the next action).
    pub advanced: Option<super::mine::Advanced>,
    pub text_scroll: u16,
    pub verdict_scroll: u16,
}

impl Default for ItemList {
    fn default() -> ItemList {
        ItemList {
            filtered: Vec::new(),
            filter: Filter::All,
            order: Order::File,
            order_cache: None,
            search: String::new(),
            query: Query::default(),
            drill: None,
            labelled: 0,
            listed: Vec::new(),
            scope: Vec::new(),
            scope_len: 0,
            done_unlisted: None,
            judge_cache: JudgeCache::default(),
            text_cache: TextCache::default(),
            cursor: 0,
            list_offset: 0,
            detail: Detail::default(),
            row: 0,
            advanced: None,
            text_scroll: 0,
            verdict_scroll: 0,
        }
    }
}

impl ItemList {
    /// Drops the `judge:` terms' value tables and the lower-case texts of
    /// `text:`, `why:` and `note:`; the next keystroke that needs one builds
    /// it again (what `benches/tui_frame.rs` times as the first keystroke of
    /// a `judge:` or `text:` term).
    pub fn forget_judge_tables(&mut self) {
        self.judge_cache = JudgeCache::default();
        self.text_cache = TextCache::default();
    }

    /// The order's priorities changed for every item (the active order
    /// arrived): the next sort reads them again.
    pub fn forget_order(&mut self) {
        self.order_cache = None;
    }

    pub fn current_index(&self) -> Option<usize> {
        self.filtered.get(self.cursor).map(|i| *i as usize)
    }

    /// Item `i`'s verdicts or labels changed (its marks were `was` before):
    /// its place in the review order and the progress count.
    pub fn item_changed(&mut self, data: &Workspace, i: usize, was: u8) {
        if let Some((order, cache)) = &mut self.order_cache {
            cache[i] = data.priority(i, *order);
        }
        self.judge_cache.item_changed(data, i);
        self.text_cache.item_changed(data, i);
        let now = data.marks[i] & mark::DONE != 0;
        let count = if self.listed.get(i).copied().unwrap_or(false) {
            &mut self.labelled
        } else if let (Some(d), true) = (&mut self.done_unlisted, self.scope.get(i) == Some(&true))
        {
            d
        } else {
            return;
        };
        match (was & mark::DONE != 0, now) {
            (false, true) => *count += 1,
            (true, false) => *count = count.saturating_sub(1),
            _ => {}
        }
    }

    /// The queue's progress under "not labelled by me": (done, of how many)
    /// in its whole scope; None under the other filters.
    pub fn queue_progress(&self) -> Option<(usize, usize)> {
        let d = self.done_unlisted?;
        Some((d + self.labelled, self.scope_len))
    }

    /// Whether workspace item `i` passes the filter, search and drill.
    pub fn is_listed(&self, i: usize) -> bool {
        self.listed.get(i).copied().unwrap_or(false)
    }

    /// Counts the listed items with [`mark::DONE`] again (the marks were
    /// recomputed for another persona or perspective).
    pub fn recount(&mut self, data: &Workspace) {
        self.labelled = self
            .filtered
            .iter()
            .filter(|&&i| data.marks[i as usize] & mark::DONE != 0)
            .count();
    }

    /// Rebuilds `filtered` from the filter, the search (free text and
    /// terms) and a drill from the agreement view, keeping the cursor on the
    /// same item when it is still listed. `height` is the list pane's;
    /// `mode` the one `judge:` terms read.
    pub fn refilter(&mut self, data: &Workspace, height: usize, mode: Mode) {
        let keep = self.current_index();
        self.query = Query::parse(&self.search, data);
        self.judge_cache.prepare(data, &self.query, mode);
        self.text_cache.prepare(data, &self.query, mode);
        let (filter, query, drill) = (self.filter, &self.query, &self.drill);
        let as_made = drill
            .as_ref()
            .is_some_and(|d| d.made_under.0 == filter && d.made_under.1 == self.search);
        let caches = Caches {
            judge: &self.judge_cache,
            texts: &self.text_cache,
        };
        let n = data.items.len();
        let drilled = |i: usize| {
            drill
                .as_ref()
                .is_none_or(|d| d.members.get(i).copied().unwrap_or(false))
        };
        let searched = |i: usize| query.is_empty() || query.keeps(data, i, mode, caches);
        if filter == Filter::NotMine && !as_made {
            self.scope = (0..n).map(|i| drilled(i) && searched(i)).collect();
            let scope = &self.scope;
            self.filtered = (0..n)
                .filter(|&i| scope[i] && filter.keeps_item(data, i))
                .map(|i| i as u32)
                .collect();
            self.scope_len = scope.iter().filter(|&&s| s).count();
            self.done_unlisted = Some(self.scope_len - self.filtered.len());
        } else {
            self.scope = Vec::new();
            self.done_unlisted = None;
            self.filtered = (0..n)
                .filter(|&i| drilled(i) && (as_made || filter.keeps_item(data, i) && searched(i)))
                .map(|i| i as u32)
                .collect();
        }
        if self.order != Order::File {
            let order = self.order;
            if self.order_cache.as_ref().map(|(o, _)| *o) != Some(order) {
                // Both halves of the list at once: the first sort under an
                // order reads every verdict.
                let n = data.items.len();
                let part = |range: std::ops::Range<usize>| -> Vec<u32> {
                    range.map(|i| data.priority(i, order)).collect()
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
        // My queue: what is assigned to me first, what others have open last.
        if filter == Filter::NotMine {
            super::team::mine_first(data, &mut self.filtered);
        }
        self.listed.clear();
        self.listed.resize(n, false);
        for &i in &self.filtered {
            self.listed[i as usize] = true;
        }
        self.recount(data);
        self.cursor = keep
            .and_then(|k| self.filtered.iter().position(|i| *i as usize == k))
            .unwrap_or(0);
        self.list_offset = 0;
        self.scroll_to_cursor(height);
    }

    pub fn scroll_to_cursor(&mut self, height: usize) {
        let h = height.max(1);
        if self.cursor < self.list_offset {
            self.list_offset = self.cursor;
        } else if self.cursor >= self.list_offset + h {
            self.list_offset = self.cursor + 1 - h;
        }
    }

    /// Sanitises the current item for the item pane (once per move, not per
    /// frame); false when the cursor is still on the item shown.
    pub fn load_detail(&mut self, data: &Workspace) -> bool {
        let idx = self.current_index();
        if idx == self.detail.index && idx.is_some() {
            return false;
        }
        self.detail = match idx {
            None => Detail::default(),
            Some(i) => detail_of(data, i),
        };
        self.text_scroll = 0;
        self.verdict_scroll = 0;
        true
    }
}

fn detail_of(data: &Workspace, i: usize) -> Detail {
    let it = &data.items[i];
    let mut warnings = Vec::new();
    if data.marks[i] & mark::HIDDEN != 0 {
        warnings.push("holds control, bidi or invisible characters (shown escaped)".into());
    }
    if data.marks[i] & mark::INSTRUCTS != 0 {
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
        title: crate::tui::strings::flat(&it.title, 500),
        // Protocol inputs have no sender or time: leave the gaps out.
        meta: [
            crate::tui::strings::flat(&it.id, 80),
            crate::tui::strings::flat(&it.source.kind, 40),
            crate::tui::strings::flat(&it.source.originator, 120),
            match (&it.sent_text, it.kind.is_empty()) {
                (Some(t), _) => crate::tui::strings::flat(t, 40),
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
