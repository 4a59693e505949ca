//! The items a judge writes its requests from, held compactly for a run.
//!
//! A run keeps every item it may ask about for its whole length. Parsed, an
//! item of the 100 000-combination bench costs about 1.8 KB (each string and
//! each classification's list its own allocation, a map bucket sized for the
//! whole `Item` with the table half empty); its JSON text is 0.8 KB, and
//! that text deflated (raw, fastest level) 0.4 KB. A request inflates and
//! parses only the items it names: microseconds, against an answer that
//! takes tens of milliseconds.

use crate::domain::Item;
use std::collections::HashMap;

/// Items by id, each kept as its JSON text deflated, and inflated and
/// parsed when asked for.
#[derive(Default)]
pub struct ItemBook {
    rows: HashMap<Box<str>, Box<[u8]>>,
    /// The compressor `insert` reuses (its state is a few hundred KB);
    /// dropped by [`ItemBook::sealed`] once every item is in.
    packer: Option<Box<flate2::Compress>>,
}

impl ItemBook {
    /// The item with this id, as it was put in.
    pub fn get(&self, id: &str) -> Option<Item> {
        use std::io::Read;
        let mut text = String::new();
        flate2::read::DeflateDecoder::new(&self.rows.get(id)?[..])
            .read_to_string(&mut text)
            .ok()?;
        // Written by `insert` from an `Item`: it reads back as one.
        serde_json::from_str(&text).ok()
    }

    /// The book with its compressor dropped: nothing more goes in.
    pub fn sealed(mut self) -> Self {
        self.packer = None;
        self
    }

    pub fn contains(&self, id: &str) -> bool {
        self.rows.contains_key(id)
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Puts `item` in under its id (a later item of the same id replaces it).
    pub fn insert(&mut self, item: &Item) {
        // An `Item` always serialises (string keys, finite numbers from JSON).
        let Ok(text) = serde_json::to_vec(item) else {
            return;
        };
        let packer = self.packer.get_or_insert_with(|| {
            Box::new(flate2::Compress::new(flate2::Compression::fast(), false))
        });
        packer.reset();
        // Deflate never grows a text by more than a few bytes per 16 KB.
        let mut packed = Vec::with_capacity(text.len() + text.len() / 64 + 64);
        match packer.compress_vec(&text, &mut packed, flate2::FlushCompress::Finish) {
            Ok(flate2::Status::StreamEnd) => {
                self.rows
                    .insert(item.id.as_str().into(), packed.into_boxed_slice());
            }
            // Not expected with that room; kept whole rather than lost.
            _ => {
                let mut stored =
                    flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::none());
                use std::io::Write;
                if stored.write_all(&text).is_ok()
                    && let Ok(bytes) = stored.finish()
                {
                    self.rows
                        .insert(item.id.as_str().into(), bytes.into_boxed_slice());
                }
            }
        }
    }
}

impl FromIterator<Item> for ItemBook {
    fn from_iter<I: IntoIterator<Item = Item>>(items: I) -> Self {
        let items = items.into_iter();
        let mut book = ItemBook {
            rows: HashMap::with_capacity(items.size_hint().0),
            packer: None,
        };
        for item in items {
            book.insert(&item);
        }
        book.sealed()
    }
}

impl From<HashMap<String, Item>> for ItemBook {
    fn from(items: HashMap<String, Item>) -> Self {
        items.into_values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Classification, Source};

    #[test]
    fn an_item_reads_back_as_it_was_put_in() {
        let item = Item {
            id: "k-1".into(),
            sent_text: Some("2024-03-18T16:09:16Z".into()),
            sent_ms: Some(1_710_778_156_110),
            title: "Room moves \u{1b}[31m".into(),
            text: "Line one\nline two ✓".into(),
            source: Source {
                kind: "email".into(),
                originator: "a@example.com".into(),
                channel: "work".into(),
            },
            tags: vec!["inbox:alice".into()],
            classifications: vec![Classification {
                id: "urgency".into(),
                description: "Is it urgent?".into(),
                available: vec!["urgent".into(), "not".into()],
                selected: None,
            }],
            kind: "conversation".into(),
            payload: serde_json::json!({"events": [{"text": "hi", "at": 1.5e-7}], "n": 3}),
            owner: Some("alice".into()),
        };
        let book: ItemBook = [item.clone(), Item::default()].into_iter().collect();
        assert_eq!(book.len(), 2);
        assert_eq!(book.get("k-1"), Some(item));
        assert_eq!(book.get(""), Some(Item::default()));
        assert_eq!(book.get("k-2"), None);
        assert!(book.contains("k-1") && !book.contains("k-2"));
    }
}
