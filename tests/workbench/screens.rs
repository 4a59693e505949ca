//! Screens on ratatui's TestBackend, snapshot-tested with insta; engine events
//! are injected as the engine would send them.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::domain::*;
use jury::engine::{EngineEvent, Progress};
use jury::tui::msg::{Effect, Msg};

#[test]
fn main_screen() {
    let app = app();
    insta::assert_snapshot!("main_screen", screen(&app));
}

fn start(app: &mut jury::tui::app::App) -> u64 {
    let fx = code(app, KeyCode::Enter);
    match fx.as_slice() {
        [Effect::StartRun { tag, plan }] => {
            assert_eq!(plan.item_ids, vec!["k-001".to_string()]);
            assert_eq!(plan.mode(), Some(Mode::Two));
            assert_eq!(
                plan.spec.perspective_ids(),
                vec!["classification".to_string()]
            );
            *tag
        }
        other => panic!("expected one StartRun, got {other:?}"),
    }
}

#[test]
fn streaming_text_appears_then_the_verdict() {
    let mut app = app();
    let tag = start(&mut app);
    let k = ComboKey::new("k-001", "urgency", "classification");
    let k2 = ComboKey::new("k-001", "work-pers", "classification");
    for event in [
        EngineEvent::RunStarted {
            run_id: 7,
            total: 2,
            skipped: 0,
        },
        EngineEvent::RequestStarted {
            run_id: 7,
            keys: vec![k.clone(), k2.clone()],
        },
        EngineEvent::TextDelta {
            run_id: 7,
            key: k.clone(),
            text: "A stock-out with a 2pm".into(),
        },
    ] {
        update(&mut app, Msg::Engine { tag, event });
    }
    let s = screen(&app);
    assert!(s.contains("A stock-out with a 2pm"), "{s}");
    insta::assert_snapshot!("streaming", s);

    update(
        &mut app,
        Msg::Engine {
            tag,
            event: EngineEvent::TextDelta {
                run_id: 7,
                key: k.clone(),
                text:
                    "A stock-out with a 2pm deadline from a key account is urgent; 'not' is wrong."
                        .into(),
            },
        },
    );
    let v = verdict(
        7,
        "k-001",
        "urgency",
        Mode::Two,
        Value::Likert(1),
        "A stock-out with a 2pm deadline from a key account is urgent; 'not' is wrong.",
    );
    update(
        &mut app,
        Msg::Engine {
            tag,
            event: EngineEvent::Verdict {
                run_id: 7,
                verdict: Box::new(v),
            },
        },
    );
    let v2 = verdict(
        7,
        "k-001",
        "work-pers",
        Mode::Two,
        Value::Likert(5),
        "Clearly work.",
    );
    update(
        &mut app,
        Msg::Engine {
            tag,
            event: EngineEvent::Verdict {
                run_id: 7,
                verdict: Box::new(v2),
            },
        },
    );
    let progress = Progress {
        run_id: 7,
        total: 2,
        verdicts: 2,
        failed: 0,
        requests: 1,
        cost_usd: Some(0.0012),
        ..Default::default()
    };
    update(
        &mut app,
        Msg::Engine {
            tag,
            event: EngineEvent::RunFinished {
                run_id: 7,
                status: RunStatus::Done,
                progress,
                note: None,
            },
        },
    );
    let s = screen(&app);
    assert!(s.contains("J 1") && s.contains("deadline from a"), "{s}");
    assert!(!s.contains("streaming"));
    insta::assert_snapshot!("verdict_done", s);
}

#[test]
fn stale_events_of_unknown_runs_are_ignored() {
    let mut app = app();
    let k = ComboKey::new("k-001", "urgency", "classification");
    update(
        &mut app,
        Msg::Engine {
            tag: 99,
            event: EngineEvent::TextDelta {
                run_id: 1,
                key: k,
                text: "ghost".into(),
            },
        },
    );
    assert!(app.runs.streams.is_empty());
}

#[test]
fn labels_and_disagreement_mark() {
    let mut data = loaded();
    data.verdicts.push(verdict(
        3,
        "k-001",
        "urgency",
        Mode::Two,
        Value::Likert(5),
        "The classifier is right: not urgent.",
    ));
    let mut app = app_with(data);
    code(&mut app, KeyCode::Tab);
    code(&mut app, KeyCode::Tab);
    let fx = key(&mut app, '1');
    let Effect::SaveLabel { req, label } = &fx[0] else {
        panic!("{fx:?}")
    };
    assert_eq!(label.value, Value::Likert(1));
    assert_eq!(label.replaced_judge_value, Some(Value::Likert(5)));
    assert!(screen(&app).contains("…saving"));
    update(
        &mut app,
        Msg::LabelSaved {
            req: *req,
            result: Ok(()),
        },
    );
    let s = screen(&app);
    assert!(s.contains("✓saved") && s.contains("≠"), "{s}");
    insta::assert_snapshot!("label_disagrees", s);
}

#[test]
fn compare_view_shows_three_modes() {
    let mut data = loaded();
    data.verdicts.push(verdict(
        1,
        "k-001",
        "urgency",
        Mode::One,
        Value::Likert(2),
        "Mode 1 thinks it is urgent.",
    ));
    data.verdicts.push(verdict(
        2,
        "k-001",
        "urgency",
        Mode::Two,
        Value::Likert(4),
        "Mode 2 agrees with not urgent.",
    ));
    data.verdicts.push(verdict(
        3,
        "k-001",
        "urgency",
        Mode::Three,
        Value::Agreement(Agreement::Disagree),
        "Mode 3 disagrees.",
    ));
    data.verdicts.push(verdict(
        3,
        "k-001",
        "work-pers",
        Mode::Three,
        Value::Agreement(Agreement::Agree),
        "Work.",
    ));
    let mut app = app_with(data);
    key(&mut app, 'c');
    let s = screen(&app);
    assert!(s.contains("modes differ"), "{s}");
    insta::assert_snapshot!("compare", s);
    // `r` starts the missing runs: work-pers lacks modes 1 and 2.
    let fx = key(&mut app, 'r');
    let modes: Vec<Mode> = fx
        .iter()
        .filter_map(|f| match f {
            Effect::StartRun { plan, .. } => Some(plan.mode().expect("an AwAg run")),
            _ => None,
        })
        .collect();
    assert_eq!(modes, vec![Mode::One, Mode::Two]);
}

#[test]
fn help_lists_the_live_keymap() {
    let mut app = app();
    app.chrome
        .keymap
        .merge_toml("[keys]\nx = \"quit\"\n")
        .unwrap();
    // Tall enough for every binding down to quit.
    app.chrome.size = (120, 65);
    key(&mut app, '?');
    let s = screen(&app);
    assert!(s.contains("q, x, ctrl-c") || s.contains("q, x"), "{s}");
    insta::assert_snapshot!("help", s);
}

#[test]
fn no_endpoint_explains_how_to_configure_one() {
    let mut app = app();
    app.runs.endpoint_error = Some(jury::config::NO_ENDPOINT.into());
    let fx = code(&mut app, KeyCode::Enter);
    assert!(fx.is_empty());
    let s = screen(&app);
    assert!(s.contains("OPENAI_BASE_URL"), "{s}");
    let fx = key(&mut app, 'R');
    assert!(fx.is_empty(), "any key closes the notice");
    assert!(app.chrome.popup.is_none());
}

#[test]
fn untrusted_text_is_shown_with_visible_escapes() {
    let mut data = loaded();
    data.items[0].title = "Hi \x1b]0;title\x07 there".into();
    data.items[0].text = "clear \x1b[2J now \x1b[31mred\x1b[0m and \u{202E}txet desrever\u{202C} z\u{200B}w \x08\r\u{9b}".into();
    data.items[0].source.originator = "evil\x1b[5m".into();
    let app = app_with(data);
    let t = draw(&app, 120, 32);
    let buf = t.backend().buffer();
    for cell in buf.content() {
        for c in cell.symbol().chars() {
            assert!(
                !matches!(c, '\x1b' | '\x07' | '\x08' | '\r' | '\u{9b}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200b}'..='\u{200f}'),
                "raw control {c:?} reached the buffer"
            );
        }
    }
    let s = format!("{}", t.backend());
    assert!(s.contains("\\e]0;title\\x07"), "{s}");
    assert!(s.contains("\\e[2J"), "{s}");
    assert!(s.contains("\\e[31mred"), "{s}");
    assert!(s.contains("<U+202E>"), "{s}");
    insta::assert_snapshot!("escapes", s);
}

/// A 10 MB item and a run of 10 000 combining marks draw cut to the screen;
/// how long a frame takes is `cargo bench --bench tui_frame -- huge_item`.
#[test]
fn a_huge_item_draws_quickly() {
    let mut data = loaded();
    data.items[0].text = "x".repeat(10_000_000);
    data.items[1].text = format!("a{}", "\u{0301}".repeat(10_000));
    let mut app = app_with(data);
    let first = screen(&app);
    assert!(first.contains("xxxx"), "{first}");
    key(&mut app, 'j');
    let second = screen(&app);
    assert_ne!(first, second, "the cursor moved to the item of marks");
}

#[test]
fn disagreement_colours_come_from_the_theme() {
    let mut data = loaded();
    data.verdicts.push(verdict(
        3,
        "k-001",
        "urgency",
        Mode::Two,
        Value::Likert(5),
        "Not urgent.",
    ));
    let mut app = app_with(data);
    app.chrome.theme = jury::tui::theme::Theme::builtin("ansi16");
    let fx = key(&mut app, '1');
    let Effect::SaveLabel { req, .. } = &fx[0] else {
        panic!()
    };
    update(
        &mut app,
        Msg::LabelSaved {
            req: *req,
            result: Ok(()),
        },
    );
    let mut t = ratatui::Terminal::new(ratatui::backend::TestBackend::new(50, 4)).unwrap();
    t.draw(|f| f.render_widget(jury::tui::views::verdicts::VerdictPane(&app), f.area()))
        .unwrap();
    let buf = t.backend().buffer();
    // The ≠ mark uses the theme's disagreement_mark role.
    let cell = buf
        .content()
        .iter()
        .find(|c| c.symbol() == "≠")
        .expect("a mark");
    assert_eq!(cell.bg, app.chrome.theme.disagreement_mark.bg.unwrap());
    insta::assert_snapshot!("disagreement_colours", format!("{buf:?}"));
}

#[test]
fn help_lists_the_popups_keys_from_the_keymap() {
    let mut app = app();
    // A user's binding on the quit prompt shows in the help and on the prompt.
    app.chrome
        .keymap
        .merge_toml("[quit_prompt]\nz = \"quit_anyway\"\n")
        .unwrap();
    // Tall enough for the whole help on one page.
    app.chrome.size = (120, 200);
    key(&mut app, '?');
    let s = screen(&app);
    let line = |needle: &str| {
        s.lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?} in\n{s}"))
            .to_string()
    };
    assert!(
        s.contains("quit prompt (labels not saved) [quit_prompt]"),
        "{s}"
    );
    assert!(line("quit_anyway").contains("q, y, z, ctrl-c"), "{s}");
    assert!(line("retry_saving").contains("r, s"), "{s}");
    assert!(line("stay in the workbench").contains("n, esc"), "{s}");
    assert!(
        s.contains("persona and perspective pickers [picker]"),
        "{s}"
    );
    assert!(line("pick the highlighted entry").contains("enter"), "{s}");
    assert!(line("next entry").contains("j, ↓"), "{s}");
    assert!(line("previous entry").contains("k, ↑"), "{s}");
    assert!(s.contains("replay offer"), "{s}");
    assert!(line("persona JSON editor [persona_editor]").contains("persona_editor"));
}

#[test]
fn popup_keys_come_from_the_keymap() {
    let mut app = app();
    app.chrome
        .keymap
        .merge_toml("[picker]\nl = \"next\"\nenter = \"none\"\nspace = \"pick\"\n")
        .unwrap();
    app.data.perspectives.push(Perspective {
        id: "second".into(),
        name: "Second".into(),
        ..app.data.perspectives[0].clone()
    });
    key(&mut app, 'v');
    assert!(screen(&app).contains("space picks, esc closes"));
    key(&mut app, 'l');
    // Enter is unbound on the picker now: the picker stays open.
    code(&mut app, KeyCode::Enter);
    assert!(app.chrome.popup.is_some());
    key(&mut app, ' ');
    assert!(app.chrome.popup.is_none());
    assert_eq!(
        app.choices.perspective,
        jury::tui::app::PerspectiveSel::One(1)
    );
}
