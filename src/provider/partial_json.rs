//! Best-effort parsing of a *prefix* of a JSON document, so the UI can show
//! `evaluationText` while a tool call's arguments are still streaming.
//!
//! Open strings, arrays and objects are closed; a dangling key without a value,
//! a trailing comma, a half-written escape, a half-written literal and a number
//! that may still grow are dropped. The result only ever grows as more text
//! arrives: strings get longer, objects gain keys, arrays gain elements;
//! a value, once shown, never changes otherwise.

use serde_json::{Map, Value};

/// Parse the longest meaningful prefix of `s`. `None` when nothing usable has
/// arrived yet or the text is not JSON at all.
pub fn parse_prefix(s: &str) -> Option<Value> {
    Parser::new(s, false).top()
}

/// What a cut-off answer holds for certain: as [`parse_prefix`], but a
/// value the cut went through is left out instead of shown as far as it got
/// — a scalar, and an array element (an entry) that was not finished. Only
/// the containers that hold the list stay open-ended, so every entry kept is
/// exactly as the judge finished it.
pub fn parse_complete_prefix(s: &str) -> Option<Value> {
    Parser::new(s, true).top()
}

/// Ran out of input (`Eof`) or met something that is not JSON (`Bad`).
#[derive(Debug)]
struct Bad;

const MAX_DEPTH: usize = 256;

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    pos: usize,
    depth: usize,
    /// Leave out scalars the input ends inside (see [`parse_complete_prefix`]).
    complete_scalars: bool,
}

/// A parsed value (None: nothing usable yet) and whether it is complete.
type Parsed = (Option<Value>, bool);

impl<'a> Parser<'a> {
    fn new(s: &'a str, complete_scalars: bool) -> Self {
        Parser {
            b: s.as_bytes(),
            s,
            pos: 0,
            depth: 0,
            complete_scalars,
        }
    }

    fn top(&mut self) -> Option<Value> {
        match self.value() {
            Ok((Some(v), _)) => Some(v),
            _ => None,
        }
    }

    fn ws(&mut self) {
        while let Some(c) = self.b.get(self.pos) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn value(&mut self) -> Result<Parsed, Bad> {
        self.ws();
        let Some(c) = self.peek() else {
            return Ok((None, false));
        };
        match c {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => {
                let (s, done) = self.string()?;
                if !done && self.complete_scalars {
                    return Ok((None, false));
                }
                Ok((Some(Value::String(s)), done))
            }
            b't' => self.literal("true", Value::Bool(true)),
            b'f' => self.literal("false", Value::Bool(false)),
            b'n' => self.literal("null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(Bad),
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Parsed, Bad> {
        let rest = &self.b[self.pos..];
        let w = word.as_bytes();
        if rest.len() >= w.len() {
            if &rest[..w.len()] == w {
                self.pos += w.len();
                Ok((Some(v), true))
            } else {
                Err(Bad)
            }
        } else if w.starts_with(rest) {
            self.pos = self.b.len();
            Ok((None, false))
        } else {
            Err(Bad)
        }
    }

    fn number(&mut self) -> Result<Parsed, Bad> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') {
                self.pos += 1;
            } else {
                break;
            }
        }
        if self.pos == self.b.len() {
            // The number may still grow: show it only once it is finished.
            return Ok((None, false));
        }
        let text = &self.s[start..self.pos];
        match serde_json::from_str::<serde_json::Number>(text) {
            Ok(n) => Ok((Some(Value::Number(n)), true)),
            Err(_) => Err(Bad),
        }
    }

    /// A string starting at the opening quote. Returns the decoded text so far
    /// and whether the closing quote was seen.
    fn string(&mut self) -> Result<(String, bool), Bad> {
        self.pos += 1; // opening quote
        let mut out = String::new();
        loop {
            // Copy a run of plain characters at once.
            let run_start = self.pos;
            while let Some(c) = self.peek() {
                if c == b'"' || c == b'\\' {
                    break;
                }
                self.pos += 1;
            }
            out.push_str(&self.s[run_start..self.pos]);
            match self.peek() {
                None => return Ok((out, false)),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok((out, true));
                }
                Some(_) => {
                    // Backslash escape.
                    let Some(e) = self.b.get(self.pos + 1).copied() else {
                        self.pos = self.b.len();
                        return Ok((out, false)); // half-written escape
                    };
                    self.pos += 2;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => match self.unicode_escape()? {
                            Some(c) => c,
                            None => return Ok((out, false)),
                        },
                        _ => return Err(Bad),
                    };
                    out.push(ch);
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<Option<u32>, Bad> {
        let end = self.pos + 4;
        let avail = &self.b[self.pos.min(self.b.len())..end.min(self.b.len())];
        if !avail.iter().all(|c| c.is_ascii_hexdigit()) {
            return Err(Bad);
        }
        if end > self.b.len() {
            self.pos = self.b.len();
            return Ok(None);
        }
        self.pos = end;
        let hex = std::str::from_utf8(avail).map_err(|_| Bad)?;
        u32::from_str_radix(hex, 16).map(Some).map_err(|_| Bad)
    }

    /// After `\u`: one code point, `None` when the input ends inside it.
    fn unicode_escape(&mut self) -> Result<Option<char>, Bad> {
        let Some(hi) = self.hex4()? else {
            return Ok(None);
        };
        if (0xD800..0xDC00).contains(&hi) {
            // A high surrogate: wait for its low half.
            let rest = &self.b[self.pos..];
            if rest.is_empty() || rest == b"\\" {
                self.pos = self.b.len();
                return Ok(None);
            }
            if rest.starts_with(b"\\u") {
                let save = self.pos;
                self.pos += 2;
                let Some(lo) = self.hex4()? else {
                    return Ok(None);
                };
                if (0xDC00..0xE000).contains(&lo) {
                    let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    return Ok(Some(char::from_u32(c).unwrap_or('\u{FFFD}')));
                }
                self.pos = save;
            }
            return Ok(Some('\u{FFFD}'));
        }
        Ok(Some(char::from_u32(hi).unwrap_or('\u{FFFD}')))
    }

    fn array(&mut self) -> Result<Parsed, Bad> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Bad);
        }
        self.pos += 1;
        let mut items = Vec::new();
        self.ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            self.depth -= 1;
            return Ok((Some(Value::Array(items)), true));
        }
        loop {
            let (v, done) = self.value()?;
            // For salvage an element counts only once it is whole: an entry
            // cut after its required fields would otherwise pass without the
            // optional ones (a selection mismatch stored as clean).
            if let Some(v) = v
                && (done || !self.complete_scalars)
            {
                items.push(v);
            }
            if !done {
                return Ok((Some(Value::Array(items)), false));
            }
            self.ws();
            match self.peek() {
                None => return Ok((Some(Value::Array(items)), false)),
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok((Some(Value::Array(items)), true));
                }
                Some(_) => return Err(Bad),
            }
        }
    }

    fn object(&mut self) -> Result<Parsed, Bad> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Bad);
        }
        self.pos += 1;
        let mut map = Map::new();
        self.ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            self.depth -= 1;
            return Ok((Some(Value::Object(map)), true));
        }
        loop {
            self.ws();
            match self.peek() {
                None => return Ok((Some(Value::Object(map)), false)),
                Some(b'"') => {}
                Some(_) => return Err(Bad),
            }
            let (key, key_done) = self.string()?;
            if !key_done {
                return Ok((Some(Value::Object(map)), false)); // dangling key
            }
            self.ws();
            match self.peek() {
                None => return Ok((Some(Value::Object(map)), false)),
                Some(b':') => self.pos += 1,
                Some(_) => return Err(Bad),
            }
            let (v, done) = self.value()?;
            if let Some(v) = v {
                map.insert(key, v);
            }
            if !done {
                return Ok((Some(Value::Object(map)), false));
            }
            self.ws();
            match self.peek() {
                None => return Ok((Some(Value::Object(map)), false)),
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    self.depth -= 1;
                    return Ok((Some(Value::Object(map)), true));
                }
                Some(_) => return Err(Bad),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Salvage keeps only whole entries: one cut after its text but before
    /// its selection is not kept, however valid it would look.
    #[test]
    fn complete_prefix_keeps_only_finished_entries() {
        let full = r#"{"resultItems":[{"id":1,"evaluationText":"ok","evaluatedSelection":"work"},{"id":2,"evaluationText":"fine","evaluatedSelection":"x"}]}"#;
        let cut_at = full.find(r#","evaluatedSelection":"x""#).unwrap();
        let v = parse_complete_prefix(&full[..cut_at]).unwrap();
        assert_eq!(v["resultItems"].as_array().unwrap().len(), 1);
        assert_eq!(v["resultItems"][0]["evaluatedSelection"], "work");
        // A number cut mid-digits is not kept either.
        let v = parse_complete_prefix(r#"{"a":[{"n":12"#).unwrap();
        assert_eq!(v["a"].as_array().unwrap().len(), 0);
        assert_eq!(
            parse_complete_prefix(full).unwrap(),
            serde_json::from_str::<Value>(full).unwrap()
        );
    }

    /// `a` is "contained in" `b`: b could have grown from a.
    fn grows_into(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::String(x), Value::String(y)) => y.starts_with(x.as_str()),
            (Value::Array(x), Value::Array(y)) => {
                x.len() <= y.len() && x.iter().zip(y).all(|(p, q)| grows_into(p, q))
            }
            (Value::Object(x), Value::Object(y)) => x
                .iter()
                .all(|(k, v)| y.get(k).is_some_and(|w| grows_into(v, w))),
            _ => a == b,
        }
    }

    #[test]
    fn closes_open_structures() {
        assert_eq!(parse_prefix(""), None);
        assert_eq!(parse_prefix("  "), None);
        assert_eq!(parse_prefix("{"), Some(json!({})));
        assert_eq!(parse_prefix(r#"{"a""#), Some(json!({})));
        assert_eq!(parse_prefix(r#"{"a":"#), Some(json!({})));
        assert_eq!(parse_prefix(r#"{"a":"he"#), Some(json!({"a":"he"})));
        assert_eq!(parse_prefix(r#"{"a":"he\"#), Some(json!({"a":"he"})));
        assert_eq!(parse_prefix(r#"{"a":"h\u00"#), Some(json!({"a":"h"})));
        assert_eq!(parse_prefix(r#"{"a":"h\u00e9"#), Some(json!({"a":"hé"})));
        assert_eq!(parse_prefix(r#"{"a":1,"#), Some(json!({"a":1})));
        assert_eq!(parse_prefix(r#"{"a":12"#), Some(json!({})));
        assert_eq!(parse_prefix(r#"{"a":tr"#), Some(json!({})));
        assert_eq!(parse_prefix(r#"{"a":true"#), Some(json!({"a":true})));
        assert_eq!(
            parse_prefix(r#"{"a":[1,2,{"b":"x"#),
            Some(json!({"a":[1,2,{"b":"x"}]}))
        );
        assert_eq!(parse_prefix(r#"[1, "#), Some(json!([1])));
        assert_eq!(parse_prefix(r#"{"a":"\ud83d"#), Some(json!({"a":""})));
        assert_eq!(
            parse_prefix(r#"{"a":"\ud83d\ude00"#),
            Some(json!({"a":"😀"}))
        );
        assert_eq!(
            parse_prefix(r#"{"a":"\ud83dx"}"#),
            Some(json!({"a":"\u{FFFD}x"}))
        );
        assert_eq!(parse_prefix(r#"{"a": 1}"#), Some(json!({"a":1})));
    }

    #[test]
    fn not_json_is_none() {
        assert_eq!(parse_prefix("hello"), None);
        assert_eq!(parse_prefix(r#"{"a" 1"#), None);
        assert_eq!(parse_prefix(r#"{a:1}"#), None);
        assert_eq!(parse_prefix(r#"{"a":1 2"#), None);
        assert_eq!(parse_prefix(&"[".repeat(10_000)), None);
    }

    #[test]
    fn every_prefix_grows_monotonically() {
        let doc = json!({
            "resultItems": [
                {"id": {"itemId": "it-1", "perspectiveId": "p\"1", "classificationId": "c/1"},
                 "evaluatedSelection": "none",
                 "evaluationLikert": 4,
                 "evaluationText": "Stimmt größtenteils — 😀 \\ \n tab\t end",
                 "ok": true, "n": null, "score": -1.5e3},
                {"id": {"itemId": "it-2", "perspectiveId": "p1", "classificationId": "c2"},
                 "evaluatedSelection": "spam",
                 "evaluationLikert": 2,
                 "evaluationText": "漢字 and \u{7f} control \u{1} char",
                 "list": [], "obj": {}}
            ]
        });
        for text in [
            serde_json::to_string(&doc).unwrap(),
            serde_json::to_string_pretty(&doc).unwrap(),
            // ASCII-only escapes for everything non-ASCII, like some servers send.
            serde_json::to_string(&doc)
                .unwrap()
                .chars()
                .map(|c| {
                    if c.is_ascii() {
                        c.to_string()
                    } else {
                        let mut buf = [0u16; 2];
                        c.encode_utf16(&mut buf)
                            .iter()
                            .map(|u| format!("\\u{u:04x}"))
                            .collect()
                    }
                })
                .collect::<String>(),
        ] {
            let mut prev: Option<Value> = None;
            let mut ends = text.char_indices().map(|(i, _)| i).collect::<Vec<_>>();
            ends.push(text.len());
            for &end in &ends {
                let got = parse_prefix(&text[..end]);
                if let Some(p) = &prev {
                    let g = got
                        .as_ref()
                        .expect("once something parses it keeps parsing");
                    assert!(grows_into(p, g), "shrank at {end}: {p} -> {g}");
                }
                if got.is_some() {
                    prev = got;
                }
            }
            assert_eq!(prev, Some(doc.clone()));
        }
    }
}
