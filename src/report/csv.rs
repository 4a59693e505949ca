//! CSV cells for every CSV jury writes (`jury export --format csv` and
//! `jury report --format csv`), so both treat untrusted text the same way.

use serde_json::Value;

/// One CSV cell. Text is untrusted (items, notes, judge answers, persona and
/// classification names), so: control and escape characters get the
/// workbench's visible escapes (a `cat` of the file cannot drive the
/// terminal), and text that starts with `=`, `+`, `-` or `@` gets a leading
/// `'`, which spreadsheets read as "this is text" rather than a formula. Only
/// JSON strings are prefixed: numbers (run ids, Likert values, positions,
/// HTTP status, kappas) are written as they are, so a negative number in a
/// numeric column stays a number a spreadsheet can sum; a number cannot be a
/// formula. A lone `-` (the persona of protocol labels) is no formula either
/// and stays as it is. The CSV is for reading; JSONL is the export that
/// round-trips exactly.
pub fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => text(s),
        other => quoted(other.to_string()),
    }
}

/// A text cell (see [`cell`]).
pub fn text(s: &str) -> String {
    let shown = crate::sanitize::for_display(s, usize::MAX);
    quoted(
        if shown.len() > 1 && shown.starts_with(['=', '+', '-', '@']) {
            format!("'{shown}")
        } else {
            shown
        },
    )
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
        assert!(!text("a\u{1b}[31mred").contains('\u{1b}'));
        assert_eq!(cell(&json!(-0.25)), "-0.25");
        assert_eq!(cell(&json!(3)), "3");
        assert_eq!(cell(&Value::Null), "");
    }
}
