//! Turning what a server sent back into a short message a person can read:
//! the API key redacted, control, bidi and zero-width characters removed,
//! HTML pages reduced to a note, everything truncated.

use super::Secret;
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
pub fn redact(s: &str, key: Option<&Secret>) -> String {
    let Some(key) = key.map(Secret::expose).filter(|k| k.len() >= 4) else {
        return s.to_string();
    };
    let mut out = s.replace(key, REDACTED);
    let cut = (MIN_KEY_PREFIX..key.len())
        .rev()
        .find(|&n| key.is_char_boundary(n) && out.ends_with(&key[..n]));
    if let Some(n) = cut {
        out.truncate(out.len() - n);
        out.push_str(REDACTED);
    }
    out
}

/// Sanitize, redact and truncate any text headed for an error message.
pub fn clean(s: &str, key: Option<&Secret>) -> String {
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
pub fn body_message(body: &[u8], content_type: Option<&str>, key: Option<&Secret>) -> String {
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
    use crate::sanitize::is_unsafe_char;

    #[test]
    fn a_text_cut_inside_the_key_loses_the_part_it_holds() {
        let key = Secret::new("sk-CANARY-51c0ffee");
        let k = Some(&key);
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
    fn redacts_key_everywhere() {
        let k = Secret::new("sk-CANARY-123");
        let body = br#"{"error":{"message":"Incorrect API key provided: sk-CANARY-123. sk-CANA\u0001RY-123","code":"invalid_api_key"}}"#;
        let m = body_message(body, Some("application/json"), Some(&k));
        assert!(!m.contains("sk-CANARY-123"), "{m}");
        assert!(m.contains("<redacted>"));
        assert!(m.contains("[invalid_api_key]"));
        assert!(!m.contains('\u{1}'));
    }

    #[test]
    fn html_reduced_to_note() {
        let body = b"<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr>nginx</body></html>";
        let m = body_message(body, Some("text/html"), None);
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
        let m = body_message(body.as_bytes(), None, None);
        assert!(!m.chars().any(is_unsafe_char));
        assert_eq!(m.chars().count(), MAX_MESSAGE_CHARS + 1);
        assert!(m.ends_with('…'));
        assert_eq!(
            body_message(b"  \n", None, None),
            "the server sent no explanation (empty body)"
        );
        assert_eq!(
            body_message(br#"{"detail":"Not Found"}"#, None, None),
            "Not Found"
        );
    }
}
