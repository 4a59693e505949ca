//! Rows 21–23 (the terminal): escape sequences, bidi, zero-width and tag
//! characters are shown visibly, never raw; huge items and runs of combining
//! marks are cut for display.

use super::*;

/// Everything a hostile item can carry: title change, screen clear, clipboard
/// write (OSC 52), carriage return, backspace, C1 CSI/OSC/ST, bidi override
/// and isolate, zero-width characters, a BOM, tag characters.
const HOSTILE: &str = "t\u{1b}]0;pwned\u{7} \u{1b}[2J\u{1b}[31mred \u{1b}]52;c;ZXZpbA==\u{7} over\rwrite back\u{8}\u{8} c1:\u{9b}31m \u{9d}0;x\u{9c} bidi:\u{202e}cba\u{202c} \u{2066}iso\u{2069} zw:a\u{200b}b\u{200d}c\u{2060}\u{feff} tag:\u{e0041}\u{e0042}\u{e007f} end";

/// The bytes a terminal must never receive from untrusted text.
fn assert_terminal_safe(what: &str, bytes: &[u8]) {
    for (i, b) in bytes.iter().enumerate() {
        assert!(
            !matches!(*b, 0x00..=0x08 | 0x0b..=0x1f | 0x7f),
            "{what}: raw control byte {b:#04x} at {i}: {:?}",
            text(&bytes[i.saturating_sub(40)..(i + 10).min(bytes.len())])
        );
    }
    let s = std::str::from_utf8(bytes).expect("output is UTF-8");
    for c in s.chars() {
        let u = c as u32;
        assert!(
            !(0x80..=0x9f).contains(&u)
                && !matches!(u, 0x202a..=0x202e | 0x2066..=0x2069 | 0x200b..=0x200f | 0x2060..=0x2064 | 0xfeff | 0x061c | 0xe0000..=0xe007f),
            "{what}: raw U+{u:04X} reached the terminal"
        );
    }
}

/// Row 21: ESC]0;…BEL, ESC[2J, OSC 52, \r, \b and C1 bytes in items and in
/// judge output are shown as visible escapes, in the library and on stdout.
#[test]
fn reliability_21_escape_sequences_shown_visible() {
    let shown = for_display(HOSTILE, 10_000);
    assert_terminal_safe("for_display", shown.as_bytes());
    assert!(shown.contains("\\e]0;pwned\\x07"), "{shown}");
    assert!(
        shown.contains("\\e[2J") && shown.contains("\\e]52;c;"),
        "{shown}"
    );
    assert!(
        shown.contains("\\x08") && shown.contains("\\u{9b}31m"),
        "{shown}"
    );
    assert!(!shown.contains('\r'));
    let line = one_line(HOSTILE, 10_000);
    assert_terminal_safe("one_line", line.as_bytes());
    assert!(!line.contains('\n'));

    let dir = tempfile::tempdir().expect("tempdir");
    let db = base_store(dir.path());
    import_items(
        &db,
        &[
            item("evil\u{1b}]0;x\u{7}", HOSTILE, HOSTILE),
            item("plain", "Lunch", &format!("line one\nline two {HOSTILE}")),
        ],
    );
    // A failure whose raw answer, reason and finish reason came from a hostile server.
    {
        let mut store = Store::open(&db).expect("store");
        let run = store
            .create_run(
                &RunSpec {
                    protocol: jury::domain::Protocol::Awag,
                    mode: Some(jury::domain::Mode::Two),
                    persona_id: "pa".into(),
                    perspective_ids: vec!["classification".into()],
                    model: "m".into(),
                    prompt_hash: "h".into(),
                    record: None,
                },
                1,
            )
            .expect("run");
        store
            .insert_failure(&Failure {
                run_id: run,
                kind: FailureKind::Malformed,
                keys: vec![ComboKey::new("plain", "c1", "classification")],
                reason: format!("bad answer: {HOSTILE}"),
                raw_response: HOSTILE.into(),
                http_status: Some(200),
                finish_reason: Some("tool\u{1b}]0;owned\u{7}\u{9b}2J".into()),
                request: "{}".into(),
                attempt: 1,
                created_at: jury::store::now(),
            })
            .expect("failure");
    }
    for args in [
        vec!["list", "items"],
        vec!["failures"],
        vec!["runs"],
        vec!["label", "evil\u{1b}]0;x\u{7}", "c1", "4", "--persona", "pa"],
        vec![
            "label",
            "evil\u{1b}]0;x\u{7}",
            "c9\u{9b}2J",
            "4",
            "--persona",
            "pa",
        ],
    ] {
        let out = jury(&db).args(&args).output().expect("jury");
        assert_terminal_safe(&format!("{args:?} stdout"), &out.stdout);
        assert_terminal_safe(&format!("{args:?} stderr"), &out.stderr);
        let should_work = !args.contains(&"c9\u{9b}2J");
        assert_eq!(
            out.status.success(),
            should_work,
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    let out = jury(&db)
        .args(["failures"])
        .output()
        .expect("jury failures");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("\\e]0;pwned\\x07"),
        "escapes shown visibly: {stdout}"
    );
    assert!(stdout.contains("raw: "), "{stdout}");
}

/// Row 22: bidi overrides, zero-width and tag characters are made visible or flagged.
#[test]
fn reliability_22_bidi_zero_width_tags_visible() {
    for (c, shown) in [
        ('\u{202e}', "<U+202E>"),
        ('\u{2066}', "<U+2066>"),
        ('\u{2069}', "<U+2069>"),
        ('\u{200b}', "<U+200B>"),
        ('\u{200d}', "<U+200D>"),
        ('\u{2060}', "<U+2060>"),
        ('\u{feff}', "<U+FEFF>"),
        ('\u{061c}', "<U+061C>"),
        ('\u{e0041}', "<U+E0041>"),
        ('\u{e007f}', "<U+E007F>"),
    ] {
        let s = format!("pay{c}later");
        assert!(has_hidden_controls(&s), "{shown} is flagged");
        let d = for_display(&s, 100);
        assert_eq!(d, format!("pay{shown}later"));
        assert_eq!(one_line(&s, 100), format!("pay{shown}later"));
    }
    assert!(
        !has_hidden_controls("Grüße 漢字 😀 e\u{301}"),
        "ordinary text is not flagged"
    );

    let dir = tempfile::tempdir().expect("tempdir");
    let db = base_store(dir.path());
    import_items(
        &db,
        &[item(
            "bidi",
            "invoice \u{202e}fdp.exe\u{202c} ok",
            "zero\u{200b}width tag\u{e0041}",
        )],
    );
    let out = jury(&db).args(["list", "items"]).output().expect("jury");
    assert!(out.status.success());
    assert_terminal_safe("list items", &out.stdout);
    assert!(
        text(&out.stdout).contains("<U+202E>"),
        "{}",
        text(&out.stdout)
    );
}

/// Row 23: a 10 MB item and 10 000 combining marks import, are cut for
/// display, and nothing hangs. How long each step takes (cutting, import,
/// `jury list items`) is `cargo bench --bench bounds`.
#[test]
fn reliability_23_huge_item_and_combining_marks_truncated() {
    let huge = "0123456789".repeat(1_000_000); // 10 MB
    let zalgo = format!("Z{}", "\u{0301}\u{0316}".repeat(5_000)); // 10 000 marks
    let shown = for_display(&huge, 2_000);
    assert_eq!(shown.chars().count(), 2_001);
    assert!(shown.ends_with('…'));
    let z = for_display(&zalgo, 100_000);
    assert!(
        z.chars().count() <= 9,
        "combining run cut: {}",
        z.chars().count()
    );
    assert!(one_line(&zalgo, 80).chars().count() <= 10, "Z, 8 marks, …");

    let dir = tempfile::tempdir().expect("tempdir");
    let db = base_store(dir.path());
    import_items(
        &db,
        &[item("huge", "Big", &huge), item("zalgo", &zalgo, &zalgo)],
    );
    let store = Store::open(&db).expect("store");
    assert_eq!(
        store.item("huge").expect("read").expect("item").text.len(),
        10_000_000
    );
    assert_eq!(
        store.item("zalgo").expect("read").expect("item").title,
        zalgo
    );
    drop(store);

    let out = jury(&db).args(["list", "items"]).output().expect("jury");
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    for line in stdout.lines() {
        assert!(
            line.chars().count() < 400,
            "display line not cut: {} chars",
            line.chars().count()
        );
    }
    let out = jury(&db)
        .args([
            "prompt",
            "--mode",
            "2",
            "--persona",
            "pa",
            "--perspective",
            "classification",
            "--item",
            "zalgo",
        ])
        .output()
        .expect("jury prompt");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_terminal_safe("prompt", &out.stdout);
    assert!(
        out.stdout.len() < 200_000,
        "combining marks cut in the prompt view too"
    );
}
