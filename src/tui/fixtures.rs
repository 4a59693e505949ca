//! Fixtures for the workbench's tests, the unit tests beside `update` and
//! the `tests/workbench` crate alike (one copy): a small workspace, `update`
//! driven by keys, and the screen drawn. Not part of jury's interface.

use super::app::{App, Loaded};
use super::input::keymap::Keymap;
use super::msg::{Effect, Msg};
use super::theme::Theme;
use super::views::Root;
use crate::domain::*;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

pub fn cls(id: &str, desc: &str, available: &[&str], selected: &str) -> Classification {
    Classification {
        id: id.into(),
        description: desc.into(),
        available: available.iter().map(|s| s.to_string()).collect(),
        selected: Some(selected.into()),
    }
}

pub fn item(id: &str, title: &str, text: &str) -> Item {
    Item {
        id: id.into(),
        sent_text: Some("2026-03-16T07:12:00Z".into()),
        sent_ms: Some(1_773_645_120_000),
        title: title.into(),
        text: text.into(),
        source: Source {
            kind: "email".into(),
            originator: "Priya Nair <priya@example.com>".into(),
            channel: "work-mail".into(),
        },
        tags: vec![],
        classifications: vec![
            cls("urgency", "Is this item urgent?", &["urgent", "not"], "not"),
            cls(
                "work-pers",
                "Work or personal?",
                &["work", "personal"],
                "work",
            ),
        ],
        ..Default::default()
    }
}

pub fn loaded() -> Loaded {
    Loaded {
        items: vec![
            item(
                "k-001",
                "Stock-out on BM-440 kettles: stores escalating",
                "Kenton, 38 of our stores have had no BM-440 kettles since Friday.\nPlease ring me as soon as you land.",
            ),
            item(
                "k-002",
                "Lunch on Thursday?",
                "Are you free for lunch on Thursday at the usual place?",
            ),
            item(
                "k-003",
                "Invoice 4471 overdue",
                "Your invoice is 30 days overdue.",
            ),
        ],
        personas: vec![Persona {
            id: "kenton".into(),
            name: "Kenton, account manager".into(),
            definition: serde_json::json!({"type": "professional", "does": "manages retail accounts"}),
        }],
        perspectives: vec![Perspective {
            id: "classification".into(),
            name: "Classification".into(),
            text: "Is the classification right?".into(),
        }],
        verdicts: vec![],
        labels: vec![],
        split: None,
        marks: Vec::new(),
        adjudications: Vec::new(),
        origins: Default::default(),
    }
}

pub fn app_with(data: Loaded) -> App {
    let mut app = App::new(
        data,
        Keymap::default_map(),
        Theme::builtin("dark"),
        "gpt-4o-mini",
        "alice",
    );
    app.runs.endpoint_error = None;
    app.chrome.size = (120, 32);
    app
}

/// `update` as the event loop calls it: with the time now.
pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    super::update::update(app, msg, chrono::Utc::now())
}

pub fn app() -> App {
    app_with(loaded())
}

/// Presses `f` until the list shows `f` (panics if it never does).
pub fn choose_filter(app: &mut App, f: crate::tui::app::Filter) {
    for _ in 0..16 {
        if app.list.filter == f {
            return;
        }
        key(app, 'f');
    }
    panic!("f never reached {f:?}");
}

/// The request the open agreement view waits for (panics when none is open).
pub fn agreement_req(app: &App) -> u64 {
    let crate::tui::app::View::Agreement(a) = &app.chrome.view else {
        panic!("no agreement view is open");
    };
    a.req
}

/// A part of the agreement report, answering the request the open agreement
/// view waits for.
pub fn answer_agreement(app: &mut App, part: crate::tui::msg::AgreementPart) -> Vec<Effect> {
    let req = agreement_req(app);
    update(app, Msg::Agreement { req, part })
}

/// The message line's text (empty when there is none).
pub fn message(app: &App) -> String {
    app.chrome
        .message
        .as_ref()
        .map(|(_, m)| m.clone())
        .unwrap_or_default()
}

pub fn key(app: &mut App, c: char) -> Vec<Effect> {
    update(
        app,
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
    )
}

pub fn code(app: &mut App, c: KeyCode) -> Vec<Effect> {
    update(app, Msg::Key(KeyEvent::new(c, KeyModifiers::NONE)))
}

/// `app` drawn on a `w` × `h` test terminal.
pub fn draw(app: &App, w: u16, h: u16) -> Terminal<TestBackend> {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(Root(app), f.area())).unwrap();
    t
}

pub fn screen(app: &App) -> String {
    let t = draw(app, app.chrome.size.0, app.chrome.size.1);
    format!("{}", t.backend())
}

pub fn verdict(run_id: i64, item: &str, c: &str, mode: Mode, value: Value, text: &str) -> Verdict {
    Verdict {
        run_id,
        key: ComboKey::new(item, c, "classification"),
        persona_id: "kenton".into(),
        protocol: Protocol::Awag,
        mode: Some(mode),
        model: "gpt-4o-mini".into(),
        value,
        text: text.into(),
        evaluated_selection: Some("not".into()),
        selection_mismatch: false,
        latency_ms: 900,
        tokens: 120,
        raw: String::new(),
        created_at: format!("2026-11-22T10:00:0{run_id}.000Z"),
        position: None,
        confidence: None,
        server: None,
    }
}

/// An AwAg judge of `mode` and `model` as kenton from the classification
/// perspective (prompt set `h`, no parameters): change what a test needs
/// with `RunSpec { .., ..kenton_spec(mode, model) }`.
pub fn kenton_spec(mode: Mode, model: &str) -> RunSpec {
    RunSpec {
        protocol: Protocol::Awag,
        mode: Some(mode),
        persona_id: "kenton".into(),
        perspective_ids: vec!["classification".into()],
        model: model.into(),
        prompt_hash: "h".into(),
        record: None,
    }
}

/// Opens the agreement view (`A`) and answers it with `report`'s figures and
/// cells, as the effect runner would.
pub fn open_agreement_on(app: &mut App, report: &crate::report::Report) {
    key(app, 'A');
    answer_agreement(
        app,
        crate::tui::msg::AgreementPart::Figures(Ok(report.groups.clone())),
    );
    answer_agreement(app, crate::tui::msg::AgreementPart::Cells(report.cells()));
}

/// The sample data (`sample-data/`, imported as `me`) in a store at `db`.
pub fn sample_store(db: &std::path::Path) -> crate::store::Store {
    let mut store = crate::store::Store::open(db).expect("a store");
    crate::import::import_sample(&mut store, "me").expect("the sample data");
    store
}

/// The sample data in a store at `db` with a mode 2 run answering every
/// labelled row with a Likert value that varies by item (1–5 by its place),
/// so that figures and cells differ.
pub fn judged_sample(db: &std::path::Path) -> crate::store::Store {
    let mut store = sample_store(db);
    judge_labelled(&mut store, Mode::Two, |n, _| {
        Some(Value::Likert((n % 5 + 1) as u8))
    });
    store
}

/// One AwAg run of `mode` as kenton from the classification perspective
/// (model `demo`) that answers each labelled row of the `n`-th labelled item
/// (in id order) with `value(n, label)`, or not where it gives `None`; its
/// verdicts are stored. Returns the run's id.
pub fn judge_labelled(
    store: &mut crate::store::Store,
    mode: Mode,
    value: impl Fn(usize, &Label) -> Option<Value>,
) -> i64 {
    judge_labelled_as(store, &kenton_spec(mode, "demo"), value)
}

/// [`judge_labelled`] by the judge `spec` names (its mode; model `demo`):
/// e.g. another prompt set, by `prompt_hash` and `record`.
pub fn judge_labelled_as(
    store: &mut crate::store::Store,
    spec: &RunSpec,
    value: impl Fn(usize, &Label) -> Option<Value>,
) -> i64 {
    let mode = spec.mode.expect("an AwAg mode");
    let run = store.create_run(spec, 0).expect("a run");
    let mut ids: Vec<String> = store
        .labelled_item_ids()
        .expect("labelled items")
        .into_iter()
        .collect();
    ids.sort();
    let mut vs = Vec::new();
    for (n, id) in ids.iter().enumerate() {
        for l in store.labels_for_item(id).expect("labels") {
            let Some(value) = value(n, &l) else {
                continue;
            };
            let mut v = verdict(run, id, &l.key.classification_id, mode, value, "ok");
            v.key = l.key.clone();
            v.persona_id = l.persona_id.clone();
            v.model = "demo".into();
            vs.push(v);
        }
    }
    assert!(!vs.is_empty(), "the run answers some labelled rows");
    store.insert_verdicts(&vs).expect("the verdicts");
    run
}

/// A label by `who` on an item's classification row, as kenton.
pub fn label(item: &str, c: &str, who: &str, value: Value) -> Label {
    Label {
        key: ComboKey::new(item, c, "classification"),
        persona_id: "kenton".into(),
        value,
        note: String::new(),
        who: who.into(),
        created_at: "2026-11-22T10:00:00.000Z".into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    }
}

/// A queue to work through as alice: k-002 is urgent by the classifier and
/// alice labelled both its rows; bob labelled both rows of k-001; the judge
/// said Likert 2 on k-003's urgency in mode 2.
pub fn queue_data() -> Loaded {
    let mut data = loaded();
    data.items[1].classifications[0].selected = Some("urgent".into());
    data.verdicts = vec![verdict(
        1,
        "k-003",
        "urgency",
        Mode::Two,
        Value::Likert(2),
        "no",
    )];
    data.labels = vec![
        label("k-001", "urgency", "bob", Value::Likert(4)),
        label("k-001", "work-pers", "bob", Value::Likert(4)),
        label("k-002", "urgency", "alice", Value::Likert(1)),
        label("k-002", "work-pers", "alice", Value::Likert(5)),
    ];
    data
}

/// The item ids the list shows, in order.
pub fn listed(app: &App) -> Vec<String> {
    app.list
        .filtered
        .iter()
        .map(|&i| app.data.items[i as usize].id.to_string())
        .collect()
}

/// Opens the search, clears it, types `text` key by key and submits.
pub fn search(app: &mut App, text: &str) {
    key(app, '/');
    for _ in 0..80 {
        code(app, KeyCode::Backspace);
    }
    for c in text.chars() {
        key(app, c);
    }
    code(app, KeyCode::Enter);
}

/// The record of a mode-2 AwAg run as `kenton` on `classification` with
/// `model`, the embedded prompts (hashed `prompt_hash`) and the default
/// settings at temperature 0.
pub fn run_record(model: &str, prompt_hash: &str) -> Box<RunRecord> {
    Box::new(RunRecord {
        version: RECORD_VERSION,
        judge: crate::protocol::JudgeSpec::Awag {
            mode: Mode::Two,
            persona: "kenton".into(),
            perspectives: vec!["classification".into()],
        },
        model: model.into(),
        prompts: PromptsUsed {
            dir: None,
            hash: prompt_hash.into(),
        },
        structured: None,
        confidence: crate::config::ConfidenceChoice::Off,
        temperature: Some(0.0),
        batch_size: 10,
        concurrency: 4,
        max_attempts: 3,
        items: 10,
        shuffle_seed: None,
        batch: None,
        servers: vec!["http://127.0.0.1:8080/v1".into()],
        converted: None,
    })
}
