//! Items as the workbench keeps them: what repeats across items (the
//! classification descriptions and value lists, sources, tags) is stored once
//! and shared, so 100 000 items fit in a fraction of their `Item` size. The
//! full [`Item`] is rebuilt only for the item on screen.

use crate::domain::{Classification, Item, Source};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

#[derive(Debug, PartialEq, Eq, Hash)]
pub struct ClsMeta {
    pub id: String,
    pub description: String,
    pub available: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ClsRow {
    pub meta: Arc<ClsMeta>,
    pub selected: Option<Arc<str>>,
}

#[derive(Debug, Clone)]
pub struct ItemRow {
    pub id: Box<str>,
    pub sent_text: Option<Box<str>>,
    pub sent_ms: Option<i64>,
    pub title: Box<str>,
    pub text: Box<str>,
    pub source: Arc<Source>,
    pub tags: Arc<[String]>,
    pub classifications: Box<[ClsRow]>,
    /// Protocol input kind (empty for AwAg content items), shared.
    pub kind: Arc<str>,
    /// Protocol input as imported; `None` for content items.
    pub payload: Option<Box<serde_json::Value>>,
    /// The persona the item belongs to, shared (a few names over many items).
    pub owner: Option<Arc<str>>,
}

impl ItemRow {
    /// Whether any text of this item that goes inside the prompt's boundary
    /// markers reads like instructions to the judge: title, text, sent time,
    /// the sender and channel, each classification's name, description,
    /// values and choice, and a protocol item's payload strings. `seen`
    /// remembers the shared parts (classification texts, sources) already
    /// checked, so 100 000 items test each shared text once.
    pub fn looks_like_instructions(&self, seen: &mut InstructionMemo) -> bool {
        use crate::sanitize::looks_like_instructions as flag;
        if flag(&self.title) || flag(&self.text) || self.sent_text.as_deref().is_some_and(flag) {
            return true;
        }
        let src = &*self.source as *const Source as usize;
        let source = *seen.sources.entry(src).or_insert_with(|| {
            flag(&self.source.originator) || flag(&self.source.channel) || flag(&self.source.kind)
        });
        if source {
            return true;
        }
        for c in self.classifications.iter() {
            let meta = &*c.meta as *const ClsMeta as usize;
            let m = *seen.metas.entry(meta).or_insert_with(|| {
                flag(&c.meta.id)
                    || flag(&c.meta.description)
                    || c.meta.available.iter().any(|v| flag(v))
            });
            if m || c.selected.as_deref().is_some_and(flag) {
                return true;
            }
        }
        self.payload.as_deref().is_some_and(json_instructs)
    }

    /// The item as the rest of jury knows it.
    pub fn to_item(&self) -> Item {
        Item {
            id: self.id.to_string(),
            sent_text: self.sent_text.as_deref().map(str::to_string),
            sent_ms: self.sent_ms,
            title: self.title.to_string(),
            text: self.text.to_string(),
            source: (*self.source).clone(),
            tags: self.tags.to_vec(),
            classifications: self
                .classifications
                .iter()
                .map(|c| Classification {
                    id: c.meta.id.clone(),
                    description: c.meta.description.clone(),
                    available: c.meta.available.clone(),
                    selected: c.selected.as_deref().map(str::to_string),
                })
                .collect(),
            kind: self.kind.to_string(),
            payload: self
                .payload
                .as_deref()
                .cloned()
                .unwrap_or(serde_json::Value::Null),
            owner: self.owner.as_deref().map(str::to_string),
        }
    }
}

/// Shares equal values between items while they are converted.
#[derive(Default)]
pub struct Interner {
    meta: HashSet<Arc<ClsMeta>>,
    strs: HashSet<Arc<str>>,
    sources: HashMap<(String, String, String), Arc<Source>>,
    tags: HashMap<Vec<String>, Arc<[String]>>,
}

impl Interner {
    fn meta(&mut self, m: ClsMeta) -> Arc<ClsMeta> {
        if let Some(a) = self.meta.get(&m) {
            return a.clone();
        }
        let a = Arc::new(m);
        self.meta.insert(a.clone());
        a
    }

    fn str(&mut self, s: String) -> Arc<str> {
        if let Some(a) = self.strs.get(s.as_str()) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(s);
        self.strs.insert(a.clone());
        a
    }

    pub fn row(&mut self, it: Item) -> ItemRow {
        let key = (it.source.kind, it.source.originator, it.source.channel);
        let source = match self.sources.get(&key) {
            Some(s) => s.clone(),
            None => {
                let s = Arc::new(Source {
                    kind: key.0.clone(),
                    originator: key.1.clone(),
                    channel: key.2.clone(),
                });
                self.sources.insert(key, s.clone());
                s
            }
        };
        let tags = match self.tags.get(&it.tags) {
            Some(t) => t.clone(),
            None => {
                let t: Arc<[String]> = Arc::from(it.tags.clone());
                self.tags.insert(it.tags, t.clone());
                t
            }
        };
        let classifications = it
            .classifications
            .into_iter()
            .map(|c| ClsRow {
                selected: c.selected.map(|s| self.str(s)),
                meta: self.meta(ClsMeta {
                    id: c.id,
                    description: c.description,
                    available: c.available,
                }),
            })
            .collect();
        let kind = self.str(it.kind);
        let payload = (!it.payload.is_null()).then(|| Box::new(it.payload));
        let owner = it.owner.map(|o| self.str(o));
        ItemRow {
            kind,
            payload,
            owner,
            id: it.id.into_boxed_str(),
            sent_text: it.sent_text.map(String::into_boxed_str),
            sent_ms: it.sent_ms,
            title: it.title.into_boxed_str(),
            text: it.text.into_boxed_str(),
            source,
            tags,
            classifications,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_shares() {
        let item = |id: &str| Item {
            id: id.into(),
            title: "t".into(),
            classifications: vec![Classification {
                id: "u".into(),
                description: "d".into(),
                available: vec!["a".into(), "not".into()],
                selected: None,
            }],
            ..Default::default()
        };
        let mut i = Interner::default();
        let mut with_payload = item("1");
        with_payload.kind = "rubric-example".into();
        with_payload.payload = serde_json::json!({"ticket": "t", "response": "r"});
        assert_eq!(i.row(with_payload.clone()).to_item(), with_payload);
        let a = i.row(item("1"));
        let b = i.row(item("2"));
        assert!(Arc::ptr_eq(
            &a.classifications[0].meta,
            &b.classifications[0].meta
        ));
        assert_eq!(a.to_item(), item("1"));
    }
}

/// Shared item parts already checked by [`ItemRow::looks_like_instructions`],
/// by address (the interner keeps each shared part alive and unique while the
/// items are marked).
#[derive(Default)]
pub struct InstructionMemo {
    metas: HashMap<usize, bool>,
    sources: HashMap<usize, bool>,
}

/// Any string in a protocol payload that reads like instructions.
fn json_instructs(v: &serde_json::Value) -> bool {
    use serde_json::Value;
    match v {
        Value::String(s) => crate::sanitize::looks_like_instructions(s),
        Value::Array(a) => a.iter().any(json_instructs),
        Value::Object(o) => o
            .iter()
            .any(|(k, v)| crate::sanitize::looks_like_instructions(k) || json_instructs(v)),
        _ => false,
    }
}
