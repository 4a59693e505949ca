//! How much of one item is sent to the judge. An imported item can be
//! arbitrarily long (a 50 MB mail thread); the judge gets at most
//! [`MAX_TEXT_CHARS`] of its text (and of every string in a protocol
//! payload) and [`MAX_TITLE_CHARS`] of its title, cut at a character
//! boundary with a mark that says how much was left out, so the judge (and a
//! person reading the request) knows it saw part of the item.

use crate::domain::Item;
use serde_json::Value;

/// About 8 000 tokens of text: far more than a triage judgement needs, far
/// less than any context.
pub const MAX_TEXT_CHARS: usize = 32_000;
pub const MAX_TITLE_CHARS: usize = 1_000;

/// `s` cut to `max` characters with a visible mark, or `None` when it fits.
fn cut(s: &str, max: usize) -> Option<String> {
    let (at, _) = s.char_indices().nth(max)?;
    let left = s[at..].chars().count();
    Some(format!(
        "{}\n[… jury sent the first {max} characters; {left} more were left out]",
        &s[..at]
    ))
}

fn cap_value(v: &mut Value) {
    match v {
        Value::String(s) => {
            if let Some(c) = cut(s, MAX_TEXT_CHARS) {
                *s = c;
            }
        }
        Value::Array(a) => a.iter_mut().for_each(cap_value),
        Value::Object(o) => o.values_mut().for_each(cap_value),
        _ => {}
    }
}

/// The item as the judge may see it.
pub fn for_judge(mut item: Item) -> Item {
    if let Some(c) = cut(&item.title, MAX_TITLE_CHARS) {
        item.title = c;
    }
    if let Some(c) = cut(&item.text, MAX_TEXT_CHARS) {
        item.text = c;
    }
    cap_value(&mut item.payload);
    item
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_texts_are_cut_with_a_mark_and_short_ones_kept() {
        assert_eq!(cut("short", 10), None);
        let long = "é".repeat(MAX_TEXT_CHARS + 5);
        let c = cut(&long, MAX_TEXT_CHARS).unwrap();
        assert!(c.starts_with(&"é".repeat(MAX_TEXT_CHARS)));
        assert!(
            c.ends_with("5 more were left out]"),
            "{}",
            &c[c.len() - 80..]
        );
        let mut v =
            serde_json::json!({"events": [{"text": "x".repeat(MAX_TEXT_CHARS + 1)}], "n": 3});
        cap_value(&mut v);
        let t = v["events"][0]["text"].as_str().unwrap();
        assert!(t.contains("1 more were left out"));
        assert_eq!(v["n"], 3);
    }
}
