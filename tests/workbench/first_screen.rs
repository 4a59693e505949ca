//! The first screen at 80×24 and 160×45, as a new user meets it: the legend,
//! the rows, no claims line on the first item, and the status bar's mode
//! whole ("mode 2 (likert)", not "mode ?").
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;

#[test]
fn the_first_screen_keeps_to_what_a_new_user_needs() {
    let mut data = loaded();
    // The sample's first item has proposition checks whose claims no
    // claims.toml names yet.
    data.labels = vec![Label {
        key: ComboKey::new("k-001", "c-deadline", "proposition"),
        persona_id: "-".into(),
        value: Value::Bool(true),
        note: String::new(),
        who: "bob".into(),
        created_at: "2026-11-22T10:00:00.000Z".into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    }];
    for (w, h) in [(80, 24), (160, 45)] {
        let mut app = app_with(data.clone());
        app.chrome.legend = Some("sample data loaded".into());
        app.chrome.size = (w, h);
        app.scroll_list_to_cursor();
        let s = screen(&app);
        assert!(
            !s.contains("claims.toml") && !s.contains("claim(s) hidden"),
            "{s}"
        );
        let status = s
            .lines()
            .find(|l| l.contains("│ mode 2"))
            .unwrap_or_else(|| panic!("no status bar:\n{s}"));
        assert!(status.contains("mode 2 (likert)"), "{status}");
        assert!(status.contains("? help"), "{status}");
        insta::assert_snapshot!(format!("first_screen_{w}x{h}"), s);
        // Once the legend is put away, the claims line says what is hidden.
        app.chrome.legend = None;
        assert!(screen(&app).contains("claim(s) hidden"), "{w}x{h}");
    }
}
