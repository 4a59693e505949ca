//! Which persona each imported item belongs to: its `persona` field (JSON) or
//! mapped column (CSV), else its `inbox:NAME` tag. Only a persona the
//! workspace has (stored or in this import) can own an item; any other name
//! stays a tag (`inbox:NAME`) and is reported once, since a mail archive
//! names more inboxes than the study has personas.

use super::ImportError;
use crate::domain::Item;
use std::collections::{BTreeMap, HashMap, HashSet};

/// The prefix of the tag that names an item's inbox.
pub const INBOX_TAG: &str = "inbox:";

/// The persona an `inbox:NAME` tag names, if any tag does.
pub fn inbox_name(tags: &[String]) -> Option<&str> {
    tags.iter()
        .find_map(|t| t.strip_prefix(INBOX_TAG))
        .filter(|n| !n.trim().is_empty())
}

/// An item whose owner named no persona when it was written: a persona
/// file later in the same import may still make it one. Names are indexes
/// into [`Owners::names`]: a million items of one unknown inbox hold one copy.
struct Pending {
    id: String,
    name: u32,
    /// The name its `inbox:` tag gives, if any.
    tagged: Option<u32>,
    /// Whether `inbox:NAME` was added to its tags for `name`.
    tag_added: bool,
}

/// The owners of one import's items, resolved as each item is written.
pub(super) struct Owners {
    personas: HashSet<String>,
    pending: Vec<Pending>,
    names: Vec<String>,
    name_index: HashMap<String, u32>,
    unknown: BTreeMap<String, usize>,
}

impl Owners {
    /// `personas`: the ids stored before the import.
    pub(super) fn new(personas: HashSet<String>) -> Owners {
        Owners {
            personas,
            pending: Vec::new(),
            names: Vec::new(),
            name_index: HashMap::new(),
            unknown: BTreeMap::new(),
        }
    }

    /// A persona this import wrote.
    pub(super) fn known(&mut self, id: String) {
        self.personas.insert(id);
    }

    fn intern(&mut self, name: &str) -> u32 {
        if let Some(i) = self.name_index.get(name) {
            return *i;
        }
        self.names.push(name.to_string());
        let i = (self.names.len() - 1) as u32;
        self.name_index.insert(name.to_string(), i);
        i
    }

    /// Sets the item's owner to a known persona, or keeps the name as a tag
    /// (`inbox:NAME`) and remembers it in case its persona comes later.
    pub(super) fn resolve(&mut self, item: &mut Item) {
        let tagged = inbox_name(&item.tags).map(|n| n.trim().to_string());
        let name = match item.owner.take() {
            Some(n) => n.trim().to_string(),
            None => match &tagged {
                Some(n) => n.clone(),
                None => return,
            },
        };
        if name.is_empty() {
            return;
        }
        if self.personas.contains(&name) {
            item.owner = Some(name);
            return;
        }
        // A field naming no persona does not hide what the item's inbox tag
        // says: that persona, when it is one, still owns the item.
        item.owner = tagged.clone().filter(|t| self.personas.contains(t));
        let tag = format!("{INBOX_TAG}{name}");
        let tag_added = !item.tags.contains(&tag);
        if tag_added {
            item.tags.push(tag);
        }
        *self.unknown.entry(name.clone()).or_default() += 1;
        if item.owner.is_none() {
            let pending = Pending {
                id: item.id.clone(),
                name: self.intern(&name),
                tagged: tagged.as_deref().map(|t| self.intern(t)),
                tag_added,
            };
            self.pending.push(pending);
        }
    }

    /// Once every file is read: items whose owner (or inbox tag) names a
    /// persona that came later in the import get it. Returns the names that
    /// are no persona, with how many items gave each.
    pub(super) fn finish(
        &mut self,
        tx: &mut crate::store::ImportTx<'_>,
    ) -> Result<BTreeMap<String, usize>, ImportError> {
        for p in std::mem::take(&mut self.pending) {
            let name = &self.names[p.name as usize];
            let owner = if self.personas.contains(name) {
                if let Some(n) = self.unknown.get_mut(name) {
                    *n -= 1;
                }
                name
            } else {
                match p.tagged.map(|t| &self.names[t as usize]) {
                    Some(t) if self.personas.contains(t) => t,
                    _ => continue,
                }
            };
            let Some(item) = tx.item(&p.id)? else {
                continue;
            };
            let mut tags = item.tags;
            // The tag stood for a name that is no persona; it is one now.
            if p.tag_added && owner == name {
                let tag = format!("{INBOX_TAG}{name}");
                if let Some(at) = tags.iter().rposition(|t| *t == tag) {
                    tags.remove(at);
                }
            }
            tx.set_owner(&p.id, Some(owner), &tags)?;
        }
        self.unknown.retain(|_, n| *n > 0);
        Ok(std::mem::take(&mut self.unknown))
    }
}
