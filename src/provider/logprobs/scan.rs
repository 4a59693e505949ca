//! A lenient walk over a JSON answer noting where each scalar value starts
//! (its byte), under which key and inside which objects: what tells which
//! token holds which verdict's value. It never fails; it notes what it can.

use std::collections::HashSet;

/// A scalar value in the answer: its text, the key it is under, the object
/// it is in, and the byte where its text starts.
#[derive(Debug)]
pub(super) struct Spot {
    obj: Option<usize>,
    pub(super) key: String,
    pub(super) text: String,
    pub(super) start: usize,
}

#[derive(Debug, Default)]
struct Obj {
    parent: Option<usize>,
    /// The scalars directly in this object.
    fields: Vec<String>,
    /// The scalars in this object and every object inside it.
    all: HashSet<String>,
}

#[derive(Debug, Default)]
pub(super) struct Doc {
    objs: Vec<Obj>,
    pub(super) spots: Vec<Spot>,
}

impl Doc {
    /// Whether `s`'s object (with what it holds) or an enclosing object
    /// names `id`.
    pub(super) fn context_has(&self, s: &Spot, id: &str) -> bool {
        let Some(mut o) = s.obj else { return false };
        if self.objs[o].all.contains(id) {
            return true;
        }
        while let Some(p) = self.objs[o].parent {
            if self.objs[p].fields.iter().any(|f| f == id) {
                return true;
            }
            o = p;
        }
        false
    }
}

enum Frame {
    Object {
        id: usize,
        key: Option<String>,
        want_key: bool,
    },
    Array {
        key: String,
    },
}

/// Walks the JSON in `text` (from its first `{` or `[`; what a fence or a
/// preamble adds before is skipped), leniently: it never fails, it notes
/// what it can.
pub(super) fn scan(text: &str) -> Doc {
    let b = text.as_bytes();
    let mut doc = Doc::default();
    let mut stack: Vec<Frame> = Vec::new();
    let Some(mut i) = text.find(['{', '[']) else {
        return doc;
    };
    let enclosing = |stack: &[Frame]| {
        stack.iter().rev().find_map(|f| match f {
            Frame::Object { id, .. } => Some(*id),
            Frame::Array { .. } => None,
        })
    };
    while i < b.len() {
        let c = b[i];
        match c {
            b'{' | b'[' => {
                let key = match stack.last_mut() {
                    Some(Frame::Object { key, .. }) => key.take().unwrap_or_default(),
                    Some(Frame::Array { key }) => key.clone(),
                    None => String::new(),
                };
                if c == b'{' {
                    let id = doc.objs.len();
                    doc.objs.push(Obj {
                        parent: enclosing(&stack),
                        ..Obj::default()
                    });
                    stack.push(Frame::Object {
                        id,
                        key: None,
                        want_key: true,
                    });
                } else {
                    stack.push(Frame::Array { key });
                }
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                if stack.is_empty() {
                    break;
                }
                i += 1;
            }
            b',' => {
                if let Some(Frame::Object { want_key, .. }) = stack.last_mut() {
                    *want_key = true;
                }
                i += 1;
            }
            b'"' => {
                let (s, end) = read_string(text, i + 1);
                let start = i + 1;
                i = end;
                match stack.last_mut() {
                    Some(Frame::Object { key, want_key, .. }) if *want_key => {
                        *key = Some(s);
                        *want_key = false;
                    }
                    _ => note(&mut doc, &mut stack, s, start),
                }
            }
            c if c.is_ascii_alphanumeric() || c == b'-' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b"+-.".contains(&b[i])) {
                    i += 1;
                }
                note(&mut doc, &mut stack, text[start..i].to_string(), start);
            }
            _ => i += 1,
        }
    }
    // Children come after their parents: fold each object's scalars upward.
    for o in (0..doc.objs.len()).rev() {
        let fields = doc.objs[o].fields.clone();
        doc.objs[o].all.extend(fields);
        if let Some(p) = doc.objs[o].parent {
            let all: Vec<String> = doc.objs[o].all.iter().cloned().collect();
            doc.objs[p].all.extend(all);
        }
    }
    doc
}

/// Notes a scalar value at `start` under the current key.
fn note(doc: &mut Doc, stack: &mut [Frame], text: String, start: usize) {
    let enclosing = stack.iter().rev().find_map(|f| match f {
        Frame::Object { id, .. } => Some(*id),
        Frame::Array { .. } => None,
    });
    let (obj, key) = match stack.last_mut() {
        Some(Frame::Object { id, key, .. }) => (Some(*id), key.take().unwrap_or_default()),
        Some(Frame::Array { key }) => (enclosing, key.clone()),
        None => return,
    };
    if let Some(o) = obj {
        doc.objs[o].fields.push(text.clone());
    }
    doc.spots.push(Spot {
        obj,
        key,
        text,
        start,
    });
}

/// A JSON string's text from byte `from` (after its opening quote), and the
/// byte after its closing quote. Escapes are decoded as far as ids and
/// values need (`\"`, `\\`, `\/`, `\n`, `\t`, `\uXXXX`).
fn read_string(text: &str, from: usize) -> (String, usize) {
    let mut out = String::new();
    let mut chars = text[from..].char_indices();
    while let Some((j, c)) = chars.next() {
        match c {
            '"' => return (out, from + j + 1),
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, 'u')) => {
                    let hex: String = chars.by_ref().take(4).map(|(_, h)| h).collect();
                    if let Some(ch) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        out.push(ch);
                    }
                }
                Some((_, other)) => out.push(other),
                None => break,
            },
            c => out.push(c),
        }
    }
    (out, text.len())
}
