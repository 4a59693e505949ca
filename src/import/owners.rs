//! Which persona each imported item belongs to: its `persona` field (JSON) or
//! mapped column (CSV), else its `inbox:NAME` tag. Only a persona the
//! workspace has (stored or in this import) can own an item; any other name
//! stays a tag (`inbox:NAME`) and is reported once, since a mail archive
//! names more inboxes than the study has personas.

use super::{Batch, ImportError};
use crate::store::Store;
use std::collections::{BTreeMap, HashSet};

/// The prefix of the tag that names an item's inbox.
pub const INBOX_TAG: &str = "inbox:";

/// The persona an `inbox:NAME` tag names, if any tag does.
pub fn inbox_name(tags: &[String]) -> Option<&str> {
    tags.iter()
        .find_map(|t| t.strip_prefix(INBOX_TAG))
        .filter(|n| !n.trim().is_empty())
}

/// Sets each item's owner to a known persona, or keeps the name as a tag;
/// returns the names that are no persona, with how many items gave each.
pub(super) fn resolve_owners(
    store: &Store,
    batch: &mut Batch,
) -> Result<BTreeMap<String, usize>, ImportError> {
    let mut unknown: BTreeMap<String, usize> = BTreeMap::new();
    if batch.items.is_empty() {
        return Ok(unknown);
    }
    let personas: HashSet<String> = store
        .personas()?
        .into_iter()
        .map(|p| p.id)
        .chain(batch.personas.iter().map(|p| p.id.clone()))
        .collect();
    for item in &mut batch.items {
        let tagged = inbox_name(&item.tags).map(|n| n.trim().to_string());
        let name = match item.owner.take() {
            Some(n) => n.trim().to_string(),
            None => match &tagged {
                Some(n) => n.clone(),
                None => continue,
            },
        };
        if name.is_empty() {
            continue;
        }
        if personas.contains(&name) {
            item.owner = Some(name);
            continue;
        }
        // A field naming no persona does not hide what the item's inbox tag
        // says: that persona, when it is one, still owns the item.
        item.owner = tagged.filter(|t| personas.contains(t));
        let tag = format!("{INBOX_TAG}{name}");
        if !item.tags.contains(&tag) {
            item.tags.push(tag);
        }
        *unknown.entry(name).or_default() += 1;
    }
    Ok(unknown)
}
