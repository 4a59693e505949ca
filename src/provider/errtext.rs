//! Turning what a server sent back into a short message a person can read:
//! the API key redacted, control, bidi and zero-width characters removed,
//! HTML pages reduced to a note, everything truncated.

use super::Secrets;
// The one table of unsafe characters and the one truncation live there.
use crate::sanitize::{sanitize_line, truncate_chars};
use serde_json::Value;

/// Longest message kept from an error body, in characters.
pub const MAX_MESSAGE_CHARS: usize = 300;

const REDACTED: &str = "<redacted>";

/// The shortest start of the key that is redacted when a text ends with it.
const MIN_KEY_PREFIX: usize = 6;

/// Replace every occurrence of the key with `<redacted>`, and the key's
/// first characters when the text ends with them: an answer cut off inside
/// an echoed key (a size cap, a dropped connection) and a stream shown
/// while the key is still arriving both end that way.
///
/// The key is found as the text reads and as JSON would decode it: a server
/// that echoes it inside a JSON answer may write any of its characters as an
/// escape (`\u0073k-…`, uppercase hex, `\/`), at any level of nesting
/// (`\\u0073` in arguments held in a JSON string), and an answer is JSON
/// text that is decoded only later, when its fields are read. Every span
/// that decodes to the key is replaced, escapes and all.
pub fn redact(s: &str, secrets: &Secrets) -> String {
    let mut out = None::<String>;
    // Longest first (the order of `Secrets`): a credential holding another
    // is redacted whole.
    for key in secrets.iter().filter(|k| k.len() >= 4) {
        let text = out.as_deref().unwrap_or(s);
        let spans = key_spans(text, key);
        if spans.is_empty() {
            continue;
        }
        let mut o = String::with_capacity(text.len());
        let mut at = 0;
        for (start, end) in spans {
            o.push_str(&text[at..start]);
            o.push_str(REDACTED);
            at = end;
        }
        o.push_str(&text[at..]);
        out = Some(o);
    }
    out.unwrap_or_else(|| s.to_string())
}

/// One character of a text read as JSON string content would decode it.
enum Decoded {
    /// The character and the byte just after it.
    Char(char, usize),
    /// An escape that the end of the text cuts short.
    Cut,
    /// Not a character the key can hold here.
    Other,
}

/// The character at byte `i` of `s`: itself, or the escape starting there.
/// A run of backslashes counts as one (escapes nested in JSON strings
/// double them).
fn decode_at(s: &str, i: usize) -> Decoded {
    let rest = &s[i..];
    let Some(c) = rest.chars().next() else {
        return Decoded::Cut;
    };
    if c != '\\' {
        return Decoded::Char(c, i + c.len_utf8());
    }
    let run = rest.bytes().take_while(|&b| b == b'\\').count();
    let after = &rest[run..];
    let at = i + run;
    match after.bytes().next() {
        None => Decoded::Cut,
        Some(b'u') => {
            let hex = &after[1..];
            let digits = hex
                .bytes()
                .take(4)
                .take_while(u8::is_ascii_hexdigit)
                .count();
            if digits < 4 {
                return if digits == hex.len() {
                    Decoded::Cut
                } else {
                    Decoded::Other
                };
            }
            match u32::from_str_radix(&hex[..4], 16)
                .ok()
                .and_then(char::from_u32)
            {
                Some(c) => Decoded::Char(c, at + 5),
                None => Decoded::Other,
            }
        }
        Some(b) => match b {
            b'/' => Decoded::Char('/', at + 1),
            b'"' => Decoded::Char('"', at + 1),
            b'b' => Decoded::Char('\u{8}', at + 1),
            b'f' => Decoded::Char('\u{c}', at + 1),
            b'n' => Decoded::Char('\n', at + 1),
            b'r' => Decoded::Char('\r', at + 1),
            b't' => Decoded::Char('\t', at + 1),
            _ => Decoded::Other,
        },
    }
}

/// Where the key starts at byte `i` of `s`, the byte after it: the whole key,
/// or at least [`MIN_KEY_PREFIX`] of its characters running to the end of
/// the text.
fn key_at(s: &str, i: usize, key: &str) -> Option<usize> {
    let mut j = i;
    for (n, kc) in key.chars().enumerate() {
        if j == s.len() {
            return (n >= MIN_KEY_PREFIX).then_some(j);
        }
        match decode_at(s, j) {
            Decoded::Char(c, next) if c == kc => j = next,
            // Cut inside an escape that may be the key's next character.
            Decoded::Cut => return (n + 1 >= MIN_KEY_PREFIX).then_some(s.len()),
            _ => return None,
        }
    }
    Some(j)
}

/// The byte spans of `s` that read as the key, in order, not overlapping.
fn key_spans(s: &str, key: &str) -> Vec<(usize, usize)> {
    let Some(first) = key.chars().next() else {
        return Vec::new();
    };
    let mut spans = Vec::new();
    let mut i = 0;
    while let Some(c) = s[i..].chars().next() {
        if (c == first || c == '\\')
            && let Some(end) = key_at(s, i, key)
        {
            spans.push((i, end));
            i = end;
            continue;
        }
        i += c.len_utf8();
    }
    spans
}

/// Sanitize, redact and truncate any text headed for an error message.
pub fn clean(s: &str, key: &Secrets) -> String {
    let s = redact(s, key);
    let s = sanitize_line(&s);
    // Removing characters can join a key that was split by them.
    let s = redact(&s, key);
    truncate_chars(&s, MAX_MESSAGE_CHARS)
}

fn looks_like_html(content_type: Option<&str>, text: &str) -> bool {
    if content_type.is_some_and(|ct| ct.to_ascii_lowercase().contains("html")) {
        return true;
    }
    let head: String = text
        .trim_start()
        .chars()
        .take(200)
        .collect::<String>()
        .to_ascii_lowercase();
    head.starts_with("<!doctype")
        || head.starts_with("<html")
        || head.contains("<head")
        || head.contains("<body")
}

fn html_title(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let start = lower.find("<title")?;
    let open_end = lower[start..].find('>')? + start + 1;
    let close = lower[open_end..].find("</title")? + open_end;
    let t = text.get(open_end..close)?.trim();
    (!t.is_empty()).then(|| truncate_chars(t, 80))
}

/// The error code of a JSON error body (`error.code`, else `error.type`).
pub fn error_code(body: &str) -> Option<String> {
    let v: Value = serde_json::from_str(body).ok()?;
    let e = v.get("error")?;
    for field in ["code", "type"] {
        match e.get(field) {
            Some(Value::String(s)) => return Some(s.clone()),
            Some(Value::Number(n)) => return Some(n.to_string()),
            _ => {}
        }
    }
    None
}

/// Whether a JSON error body says `insufficient_quota` (as code or type).
pub fn is_insufficient_quota(body: &str) -> bool {
    let Ok(v) = serde_json::from_str::<Value>(body) else {
        return false;
    };
    let Some(e) = v.get("error") else {
        return false;
    };
    ["code", "type"]
        .iter()
        .any(|f| e.get(*f).and_then(Value::as_str) == Some("insufficient_quota"))
}

/// The human part of a JSON error body, in the shapes servers use:
/// `{"error":{"message":..}}`, `{"error":".."}`, `{"message":..}`, `{"detail":..}`.
fn json_message(text: &str) -> Option<String> {
    let v: Value = serde_json::from_str(text).ok()?;
    let pick = |v: &Value| -> Option<String> {
        match v {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        }
    };
    if let Some(e) = v.get("error") {
        if let Some(m) = e.get("message").and_then(pick) {
            return Some(match error_code(text) {
                Some(code) if !m.contains(&code) => format!("{m} [{code}]"),
                _ => m,
            });
        }
        if let Some(s) = e.as_str() {
            return Some(s.to_string());
        }
    }
    v.get("message")
        .and_then(pick)
        .or_else(|| v.get("detail").and_then(pick))
}

/// A short, safe message for an error body.
pub fn body_message(body: &[u8], content_type: Option<&str>, key: &Secrets) -> String {
    let text = String::from_utf8_lossy(body);
    let text = redact(&text, key);
    if text.trim().is_empty() {
        return "the server sent no explanation (empty body)".to_string();
    }
    if looks_like_html(content_type, &text) {
        let note = "the server sent an HTML page instead of an API answer (usually a proxy, gateway or wrong base URL)";
        return match html_title(&text) {
            Some(t) => clean(&format!("{note}: \"{t}\""), key),
            None => note.to_string(),
        };
    }
    let msg = json_message(&text).unwrap_or_else(|| text.to_string());
    clean(&msg, key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Secret;
    use crate::sanitize::is_unsafe_char;

    #[test]
    fn a_text_cut_inside_the_key_loses_the_part_it_holds() {
        let key = Secret::new("sk-CANARY-51c0ffee");
        let k = &Secrets::key(Some(&key));
        assert_eq!(redact("echo: sk-CANARY-5", k), "echo: <redacted>");
        assert_eq!(redact("echo: sk-CAN", k), "echo: <redacted>");
        // Too short to be told from ordinary text.
        assert_eq!(redact("echo: sk-CA", k), "echo: sk-CA");
        assert_eq!(
            redact("sk-CANARY-51c0ffee and sk-CANARY", k),
            "<redacted> and <redacted>"
        );
    }

    #[test]
    fn a_key_written_with_json_escapes_is_found() {
        let key = Secret::new("sk-CANARY/51");
        let k = &Secrets::key(Some(&key));
        for (text, want) in [
            (r#"key is \u0073k-CANARY\/51."#, "key is <redacted>."),
            (r#"\u0073\u006B\u002D\u0043ANARY/51"#, "<redacted>"),
            (r#"\u0073\u006b\u002d\u0043ANARY\/51"#, "<redacted>"),
            // Nested: arguments held in a JSON string double the backslashes.
            (
                r#""{\"t\":\"\\u0073k-CANARY/51\"}""#,
                r#""{\"t\":\"<redacted>\"}""#,
            ),
            // Cut inside the key, and inside an escape of it.
            (r#"as \u0073k-CANA"#, "as <redacted>"),
            (r#"as sk-CANARY\u00"#, "as <redacted>"),
            // An escaped backslash before an ordinary letter is no escape of it.
            (r#"sk-CANARY\\n"#, r#"sk-CANARY\\n"#),
            ("no key here: sk-other", "no key here: sk-other"),
        ] {
            assert_eq!(redact(text, k), want, "{text}");
        }
        // The decoded text of every field is clean too.
        let v: Value = serde_json::from_str(r#"{"t":"\u0073k-CANARY\/51"}"#).unwrap();
        assert_eq!(redact(v["t"].as_str().unwrap(), k), "<redacted>");
    }

    #[test]
    fn redacts_key_everywhere() {
        let k = Secret::new("sk-CANARY-123");
        let body = br#"{"error":{"message":"Incorrect API key provided: sk-CANARY-123. sk-CANA\u0001RY-123","code":"invalid_api_key"}}"#;
        let m = body_message(body, Some("application/json"), &Secrets::key(Some(&k)));
        assert!(!m.contains("sk-CANARY-123"), "{m}");
        assert!(m.contains("<redacted>"));
        assert!(m.contains("[invalid_api_key]"));
        assert!(!m.contains('\u{1}'));
    }

    #[test]
    fn every_secret_of_the_run_is_redacted_the_longest_first() {
        let mut cfg = crate::provider::ProviderConfig::new(
            "https://bob:pw%2FURL-77@proxy.example/v1?api-key=qk-QUERY-88",
            "m",
        );
        cfg.api_key = Some(Secret::new("sk-ENV-99"));
        let k = &Secrets::of(&cfg);
        assert_eq!(
            redact(
                r#"sk-ENV-99, pw/URL-77, pw%2FURL-77, pw\/URL-77, qk-\u0051UERY-88"#,
                k
            ),
            "<redacted>, <redacted>, <redacted>, <redacted>, <redacted>"
        );
    }

    #[test]
    fn html_reduced_to_note() {
        let body = b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr>nginx</body></html>";
        let m = body_message(body, Some("text/html"), &Secrets::none());
        assert!(m.contains("HTML page"));
        assert!(m.contains("502 Bad Gateway"));
        assert!(!m.contains('<') || m.contains("<redacted>") || !m.contains("<center>"));
        assert!(m.chars().count() <= MAX_MESSAGE_CHARS + 1);
    }

    #[test]
    fn truncates_and_strips_controls() {
        let body = format!(
            "\u{1b}[31mred\u{1b}]0;title\u{7}\u{202e}{}",
            "x".repeat(1000)
        );
        let m = body_message(body.as_bytes(), None, &Secrets::none());
        assert!(!m.chars().any(is_unsafe_char));
        assert_eq!(m.chars().count(), MAX_MESSAGE_CHARS + 1);
        assert!(m.ends_with('…'));
        assert_eq!(
            body_message(b"  \n", None, &Secrets::none()),
            "the server sent no explanation (empty body)"
        );
        assert_eq!(
            body_message(br#"{"detail":"Not Found"}"#, None, &Secrets::none()),
            "Not Found"
        );
    }
}
