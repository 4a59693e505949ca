//! CSV cells for every CSV jury writes (`jury export --format csv` and
//! `jury report --format csv`), so both treat untrusted text the same way,
//! and the exact inverse `jury import` applies to jury's own export.

use serde_json::Value;

/// One CSV cell. Text is untrusted (items, notes, judge answers, persona and
/// classification names), so: control and escape characters are written as
/// visible escapes (a `cat` of the file cannot drive the terminal), and text
/// a spreadsheet would run as a formula gets a leading `'`. Only JSON strings
/// are prefixed: numbers (run ids, Likert values, positions, HTTP status,
/// kappas) are written as they are, so a negative number in a numeric column
/// stays a number a spreadsheet can sum; a number cannot be a formula.
pub fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => text(s),
        other => quoted(other.to_string()),
    }
}

/// A text cell (see [`cell`]): [`escape`]d, then [`prefixed`], then quoted
/// as RFC 4180 asks. [`from_text_cell`] undoes the first two exactly.
pub fn text(s: &str) -> String {
    quoted(prefixed(escape(s)))
}

/// A cell holding JSON text (an item's tags, classifications, payload): the
/// same JSON with every character a terminal must not see as a JSON `\u`
/// escape, so the cell is safe to `cat` and still parses to the same value.
/// It starts with `[` or `{`, never a formula.
pub fn json_text(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        if crate::sanitize::is_unsafe_char(c) || crate::sanitize::is_combining(c) {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    quoted(out)
}

/// A text cell as [`text`] wrote it, before CSV quoting: the text itself.
pub fn from_text_cell(cell: &str) -> String {
    unescape(unprefixed(cell))
}

/// The escapes, one per character a terminal must not see: `\r`, `\e`
/// (ESC), `\xNN` (other C0 controls and DEL), `\u{X}` (C1 controls, bidi,
/// zero-width and tag characters, and combining marks past a run of 8, which
/// stack into glyphs that slow terminals down). A newline and a tab stay as
/// they are (CSV quoting holds them). A `\` is doubled when what follows it
/// could be read as an escape (`\`, `r`, `e`, `x`, `u` or an escape), so
/// every cell has exactly one reading.
pub fn escape(s: &str) -> String {
    let mut tokens: Vec<(char, Option<String>)> = Vec::with_capacity(s.len());
    let mut combining_run = 0usize;
    for c in s.chars() {
        combining_run = if crate::sanitize::is_combining(c) {
            combining_run + 1
        } else {
            0
        };
        let u = c as u32;
        let esc = match c {
            '\n' | '\t' => None,
            '\r' => Some("\\r".to_string()),
            '\x1b' => Some("\\e".to_string()),
            _ if u < 0x20 || u == 0x7f => Some(format!("\\x{u:02x}")),
            _ if (0x80..=0x9f).contains(&u)
                || crate::sanitize::is_invisible_format(c)
                || combining_run > 8 =>
            {
                Some(format!("\\u{{{u:x}}}"))
            }
            _ => None,
        };
        tokens.push((c, esc));
    }
    let mut out = String::with_capacity(s.len() + 8);
    for (i, (c, esc)) in tokens.iter().enumerate() {
        match esc {
            Some(e) => out.push_str(e),
            None if *c == '\\' => {
                let next = tokens.get(i + 1);
                let ambiguous = next
                    .is_some_and(|(n, e)| e.is_some() || matches!(n, '\\' | 'r' | 'e' | 'x' | 'u'));
                out.push_str(if ambiguous { "\\\\" } else { "\\" });
            }
            None => out.push(*c),
        }
    }
    out
}

/// The exact inverse of [`escape`]: an escape is read back as its
/// character; a `\` that starts none stands for itself.
pub fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (c, used) = match after.as_bytes().first() {
            Some(b'\\') => (Some('\\'), 1),
            Some(b'r') => (Some('\r'), 1),
            Some(b'e') => (Some('\x1b'), 1),
            Some(b'x') => match after.get(1..3).filter(|h| is_hex(h)) {
                Some(h) => (u32::from_str_radix(h, 16).ok().and_then(char::from_u32), 3),
                None => (None, 0),
            },
            Some(b'u') if after[1..].starts_with('{') => match after.find('}') {
                Some(end) if (3..=8).contains(&end) && is_hex(&after[2..end]) => {
                    let c = u32::from_str_radix(&after[2..end], 16)
                        .ok()
                        .and_then(char::from_u32);
                    (c, end + 1)
                }
                _ => (None, 0),
            },
            _ => (None, 0),
        };
        match c {
            Some(c) => {
                out.push(c);
                rest = &after[used..];
            }
            None => {
                out.push('\\');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn is_hex(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Does `s` start the way a spreadsheet reads as a formula (`=`, `+`, `-`,
/// `@`, a tab), or with the `'` that marks "text" (so a `'` the text already
/// had is not taken for jury's)? A lone `-` (the persona of protocol labels)
/// is no formula.
fn needs_prefix(s: &str) -> bool {
    s.starts_with(['\'', '\t']) || (s.len() > 1 && s.starts_with(['=', '+', '-', '@']))
}

/// `'` before text that [`needs_prefix`].
fn prefixed(s: String) -> String {
    if needs_prefix(&s) { format!("'{s}") } else { s }
}

/// The text without the `'` [`prefixed`] put there: a cell starting with a
/// `'` that the rest would not have needed is text that had it.
pub fn unprefixed(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if needs_prefix(rest) => rest,
        _ => cell,
    }
}

fn quoted(s: String) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn formulas_and_escapes_are_neutralised_numbers_are_not() {
        assert_eq!(text("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(text("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(text("-"), "-");
        assert_eq!(text("'=already quoted"), "''=already quoted");
        assert_eq!(text("\tx"), "'\tx");
        assert!(!text("a\u{1b}[31mred").contains('\u{1b}'));
        assert_eq!(
            escape("a\u{1b}]0;x\u{7}\r\n\u{85}\u{202e}"),
            "a\\e]0;x\\x07\\r\n\\u{85}\\u{202e}"
        );
        assert_eq!(cell(&json!(-0.25)), "-0.25");
        assert_eq!(cell(&json!(3)), "3");
        assert_eq!(cell(&Value::Null), "");
    }

    #[test]
    fn a_backslash_is_doubled_only_where_it_could_be_read_as_an_escape() {
        assert_eq!(escape(r"C:\temp\new"), r"C:\temp\new");
        assert_eq!(
            escape(r"\e \x07 \u{85} \\ \r"),
            r"\\e \\x07 \\u{85} \\\ \\r"
        );
        assert_eq!(escape("\\\u{1b}"), "\\\\\\e");
        assert_eq!(escape("end\\"), "end\\");
        assert_eq!(unescape(r"\q \x \xZZ \u{zz} \u{"), r"\q \x \xZZ \u{zz} \u{");
    }

    /// Property: every string comes back from its cell exactly, and no cell
    /// holds a character a terminal obeys.
    #[test]
    fn escape_then_unescape_is_the_identity() {
        const PIECES: &[&str] = &[
            "'",
            "=",
            "+",
            "-",
            "@",
            "\t",
            "\r",
            "\n",
            "\\",
            "e",
            "x",
            "u",
            "{",
            "}",
            "0",
            "7f",
            "r",
            "\u{1b}",
            "\u{7}",
            "\u{0}",
            "\u{7f}",
            "\u{85}",
            "\u{9b}",
            "\u{202e}",
            "\u{feff}",
            "\u{e0041}",
            "\u{301}",
            "é",
            " ",
            "\"",
            ",",
            "a",
        ];
        let mut rng = crate::rng::SplitMix64::new(7);
        for case in 0..20_000 {
            let n = rng.below(14) as usize;
            let s: String = (0..n)
                .map(|_| PIECES[rng.below(PIECES.len() as u64) as usize])
                .collect();
            let cell = prefixed(escape(&s));
            assert_eq!(from_text_cell(&cell), s, "case {case}: {s:?} -> {cell:?}");
            assert!(
                !cell
                    .chars()
                    .any(|c| c == '\r'
                        || (crate::sanitize::is_unsafe_char(c) && c != '\n' && c != '\t')),
                "case {case}: {cell:?}"
            );
            let json = serde_json::to_string(&json!([s])).unwrap();
            let cell = json_text(&json);
            let unquoted = cell[1..cell.len() - 1].replace("\"\"", "\"");
            let back: Value =
                serde_json::from_str(&unquoted).unwrap_or_else(|e| panic!("case {case}: {e}"));
            assert_eq!(back, json!([s]));
        }
    }
}
