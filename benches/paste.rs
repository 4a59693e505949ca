//! A 200 KB paste into the note editor: the paste itself,
//! then keystrokes and redraws with that text in the field.
//! `keystroke_and_redraw_*` is two keystrokes (x, backspace) and two redraws.
//! Measured 2026-11-23 (2 cores, release): one 200 KB line: keystroke pair
//! 33 ms (≈16 ms per keystroke and redraw; was 65 ms), redraw 0.84 ms (was
//! 24 ms); 2 500 lines: keystroke pair 35 ms, redraw 0.48 ms; the paste
//! itself 4–6 ms. Before bracketed paste the same text arrived as 200 000
//! keystrokes, each re-laying out the whole field: minutes of CPU.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use jury::domain::*;
use jury::tui::app::{App, Loaded};
use jury::tui::input::keymap::Keymap;
use jury::tui::msg::Msg;
use jury::tui::theme::Theme;

/// `update` as the event loop calls it: with the time now.
fn update(app: &mut jury::tui::app::App, msg: Msg) -> Vec<jury::tui::msg::Effect> {
    jury::tui::update::update(app, msg, chrono::Utc::now())
}
use jury::tui::views::Root;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use std::hint::black_box;

fn data() -> Loaded {
    Loaded {
        items: vec![Item {
            id: "k-001".into(),
            title: "Stock-out".into(),
            text: "Kenton, 38 of our stores have had no kettles.".into(),
            classifications: vec![Classification {
                id: "urgency".into(),
                description: "Urgent?".into(),
                available: vec!["urgent".into(), "not".into()],
                selected: Some("not".into()),
            }],
            ..Default::default()
        }],
        personas: vec![Persona {
            id: "kenton".into(),
            name: "Kenton".into(),
            definition: serde_json::json!({}),
        }],
        perspectives: vec![Perspective {
            id: "classification".into(),
            name: "Classification".into(),
            text: "Is it right?".into(),
        }],
        verdicts: vec![],
        labels: vec![],
        split: None,
        marks: Vec::new(),
        adjudications: Vec::new(),
        ..Default::default()
    }
}

fn key(app: &mut App, c: KeyCode) {
    update(app, Msg::Key(KeyEvent::new(c, KeyModifiers::NONE)));
}

/// The workbench with a label on the first row and its note editor open.
fn editor() -> App {
    let mut app = App::new(
        data(),
        Keymap::default_map(),
        Theme::builtin("dark"),
        "m",
        "me",
    );
    app.chrome.size = (160, 45);
    key(&mut app, KeyCode::Char('2'));
    key(&mut app, KeyCode::Char('n'));
    assert!(app.chrome.popup.is_some(), "the note editor is open");
    app
}

/// 200 KB of prose with a newline every ~80 characters, and one long line.
fn paste_text(lines: bool) -> String {
    let sentence = "The judge missed that the kettle stock-out is urgent for Kenton. ";
    let mut s = String::with_capacity(200_100);
    let mut i = 0;
    while s.len() < 200_000 {
        s.push_str(sentence);
        i += 1;
        if lines && i % 2 == 0 {
            s.push('\n');
        }
    }
    s
}

fn draw(t: &mut Terminal<TestBackend>, app: &App) {
    t.draw(|f| f.render_widget(Root(app), f.area())).unwrap();
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("paste_200k");
    g.sample_size(20);
    for (name, lines) in [("lines", true), ("one_line", false)] {
        let text = paste_text(lines);
        g.bench_function(format!("paste_{name}"), |b| {
            b.iter_batched(
                editor,
                |mut app| {
                    update(&mut app, Msg::Paste(text.clone()));
                    app
                },
                BatchSize::LargeInput,
            )
        });
        let mut app = editor();
        update(&mut app, Msg::Paste(text.clone()));
        let mut term = Terminal::new(TestBackend::new(160, 45)).unwrap();
        draw(&mut term, &app);
        g.bench_function(format!("keystroke_and_redraw_{name}"), |b| {
            b.iter(|| {
                key(&mut app, KeyCode::Char('x'));
                draw(&mut term, &app);
                key(&mut app, KeyCode::Backspace);
                draw(&mut term, &app);
                black_box(&app);
            })
        });
        g.bench_function(format!("redraw_{name}"), |b| {
            b.iter(|| draw(&mut term, &app))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
