//! The few-shot loop in the workbench: `L` builds the few-shot set from
//! `train` labels beside the store, confirms its run on the held-out `test`
//! items (saying how many requests), runs it with resume semantics and opens
//! the agreement view on `test` with the change it made (or says the change
//! needs a baseline run and offers it).
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::analytics::{CiMethod, Figure};
use jury::domain::*;
use jury::report::paired::PairedDelta;
use jury::report::prompt_change::PromptChange;
use jury::tui::app::{App, LoopReady, LoopStage, Popup, RunPlan, View};
use jury::tui::effects::{EngineLink, Executor};
use jury::tui::msg::{Effect, Msg};
use std::path::PathBuf;
use std::time::Duration;

fn with_split() -> App {
    let mut data = loaded();
    let mut store = jury::store::Store::open_in_memory().unwrap();
    store.upsert_persona(&data.personas[0]).unwrap();
    store
        .upsert_label(&label("k-001", "urgency", Value::Likert(2)))
        .unwrap();
    store
        .make_split(SplitRule::new(0.5, 1).unwrap(), "tester", false)
        .unwrap();
    data.split = store.split().unwrap();
    app_with(data)
}

fn label(item: &str, cls: &str, value: Value) -> Label {
    Label {
        key: ComboKey::new(item, cls, "classification"),
        persona_id: "kenton".into(),
        value,
        note: String::new(),
        who: "tester".into(),
        created_at: "2026-11-24T00:00:00Z".into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    }
}

fn ready(requests: usize, stage: LoopStage) -> LoopReady {
    LoopReady {
        stage,
        plan: RunPlan {
            spec: jury::protocol::JudgeSpec::awag(
                Mode::Two,
                "kenton",
                vec!["classification".into()],
            )
            .unwrap(),
            structured: None,
            item_ids: vec!["k-002".into(), "k-003".into()],
            resume: true,
            batch: None,
        },
        more: Vec::new(),
        by_owner: false,
        dir: PathBuf::from("/data/fewshot-seed1-9703e6aa"),
        hash: "9703e6aa11".into(),
        base_hash: "512b3db522".into(),
        examples: 4,
        left_out: 1,
        requests,
        skipped: 0,
        reused: false,
    }
}

fn change(from: &str, to: &str) -> PromptChange {
    PromptChange {
        judge: "awag mode 2 · gpt-4o-mini".into(),
        person: "alice".into(),
        scale: "likert".into(),
        from: from.into(),
        to: to.into(),
        paired: PairedDelta {
            n: 120,
            kappa_from: fig(0.41, None),
            kappa_to: fig(0.58, Some([0.49, 0.66])),
            delta_kappa: fig(0.17, Some([0.05, 0.29])),
            agree_from: fig(0.5, None),
            agree_to: fig(0.6, None),
            delta_agree: fig(0.1, Some([0.02, 0.16])),
        },
    }
}

fn fig(value: f64, ci95: Option<[f64; 2]>) -> Figure {
    Figure {
        value: Some(value),
        ci95,
        ci_method: ci95.map(|_| CiMethod::PairedBootstrap),
        no_ci: None,
    }
}

#[test]
fn without_a_split_l_says_so_and_offers_nothing() {
    let mut app = app();
    // No split in memory: the store is asked (one made with `jury split`
    // since the workbench opened would count); it has none either.
    let fx = key(&mut app, 'L');
    assert_eq!(fx, vec![Effect::LoadSplitForLoop]);
    let fx = update(&mut app, Msg::SplitForLoop(Ok(None)));
    assert!(fx.is_empty(), "{fx:?}");
    let (level, msg) = app.chrome.message.clone().unwrap();
    assert_eq!(level, jury::tui::app::Level::Warning);
    assert!(
        msg.contains("no held-out split") && msg.contains("jury split"),
        "{msg}"
    );
    assert!(app.chrome.popup.is_none());
}

#[test]
fn a_split_made_while_the_workbench_is_open_is_read_and_l_goes_on() {
    let mut app = app();
    assert!(app.data.split.is_none());
    let fx = key(&mut app, 'L');
    assert_eq!(fx, vec![Effect::LoadSplitForLoop]);
    // `jury split` ran in another terminal: the store has one now.
    let split = with_split().data.split.clone();
    assert!(split.is_some());
    let fx = update(&mut app, Msg::SplitForLoop(Ok(split)));
    assert!(app.data.split.is_some(), "kept: rows show their side");
    assert!(
        matches!(fx.as_slice(), [Effect::PrepareLoop { .. }]),
        "{fx:?}"
    );
}

#[test]
fn l_plans_confirms_runs_and_opens_the_delta_on_test() {
    let mut app = with_split();
    app.choices.mode = Mode::Two;
    app.chrome.size = (150, 40);
    // L: the set is built and the run planned off the UI thread.
    let fx = key(&mut app, 'L');
    let [
        Effect::PrepareLoop {
            plan,
            baseline_for,
            by_owner,
        },
    ] = fx.as_slice()
    else {
        panic!("{fx:?}")
    };
    assert_eq!(baseline_for, &None);
    assert!(!by_owner, "the items have no owners");
    assert_eq!(
        (plan.mode(), plan.persona_id()),
        (Some(Mode::Two), "kenton")
    );
    assert_eq!(
        plan.spec.perspective_ids(),
        vec!["classification".to_string()]
    );
    assert!(plan.item_ids.is_empty(), "the effect finds the test items");

    // The confirm step says how many requests; esc sends nothing.
    let fx = update(
        &mut app,
        Msg::LoopReady(Ok(Box::new(ready(7, LoopStage::FewShot)))),
    );
    assert!(fx.is_empty());
    assert!(matches!(app.chrome.popup, Some(Popup::ConfirmLoop(_))));
    let s = screen(&app);
    assert!(s.contains("It will send 7 request(s)."), "{s}");
    assert!(s.contains("fewshot-seed1-9703e6aa"), "{s}");
    assert!(s.contains("2 held-out test item(s)"), "{s}");
    assert!(s.contains("1 held-out item(s) left out"), "{s}");
    assert!(code(&mut app, KeyCode::Esc).is_empty());
    assert!(app.chrome.popup.is_none() && !app.running());

    // Again, and yes: the run starts with the few-shot set, like any run.
    update(
        &mut app,
        Msg::LoopReady(Ok(Box::new(ready(7, LoopStage::FewShot)))),
    );
    let fx = key(&mut app, 'y');
    let [Effect::StartLoopRun { tag, plan, prompts }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    assert_eq!(
        prompts.as_deref(),
        Some(std::path::Path::new("/data/fewshot-seed1-9703e6aa"))
    );
    assert_eq!(
        plan.item_ids,
        vec!["k-002".to_string(), "k-003".to_string()]
    );
    assert!(app.running());
    let tag = *tag;
    // A second L while it runs starts nothing.
    assert!(key(&mut app, 'L').is_empty());

    // It ends: the agreement view on the test side, figures loading.
    let fx = update(&mut app, Msg::RunEnded { tag, error: None });
    assert_eq!(
        fx,
        vec![Effect::LoadAgreement(jury::report::Scope {
            estimates: true,
            ..jury::report::Scope::on(Some(Side::Test))
        })]
    );
    let View::Agreement(a) = &app.chrome.view else {
        panic!("not the agreement view")
    };
    assert_eq!(a.side, Some(Side::Test));

    // No earlier version judged the test items: the view says the delta
    // needs a baseline, and L offers it.
    update(&mut app, Msg::AgreementChanges(Vec::new()));
    let s = screen(&app);
    assert!(s.contains("needs a baseline run"), "{s}");
    let fx = key(&mut app, 'L');
    assert!(
        matches!(fx.as_slice(), [Effect::PrepareLoop { baseline_for: Some(d), .. }] if d.ends_with("fewshot-seed1-9703e6aa")),
        "{fx:?}"
    );
    update(
        &mut app,
        Msg::LoopReady(Ok(Box::new(ready(3, LoopStage::Baseline)))),
    );
    assert!(screen(&app).contains("It will send 3 request(s)."));
    let fx = code(&mut app, KeyCode::Enter);
    let [Effect::StartLoopRun { tag, prompts, .. }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    assert_eq!(prompts, &None, "the baseline runs the workbench's prompts");
    let fx = update(
        &mut app,
        Msg::RunEnded {
            tag: *tag,
            error: None,
        },
    );
    assert_eq!(
        fx,
        vec![Effect::LoadAgreement(jury::report::Scope {
            estimates: true,
            ..jury::report::Scope::on(Some(Side::Test))
        })]
    );
    // The baseline judged after the set: the report's change set → baseline
    // is shown turned around, old prompts → few-shot.
    update(
        &mut app,
        Msg::AgreementChanges(vec![change("9703e6aa", "512b3db5")]),
    );
    let s = screen(&app);
    assert!(s.contains("κ 0.58 → 0.41 on 120 held-out"), "{s}");
    assert!(
        s.contains("prompts 512b3db5 → 9703e6aa, Δκ -0.17 [-0.29, -0.05]"),
        "{s}"
    );
}

#[test]
fn the_delta_line_is_the_one_a_paper_quotes() {
    let mut app = with_split();
    app.chrome.size = (150, 40);
    update(
        &mut app,
        Msg::LoopReady(Ok(Box::new(ready(0, LoopStage::FewShot)))),
    );
    // Nothing left to send (a finished run with these prompts): straight to the view.
    assert!(app.chrome.popup.is_none());
    assert!(matches!(&app.chrome.view, View::Agreement(a) if a.side == Some(Side::Test)));
    assert!(screen(&app).contains("computing the change"));
    assert!(
        app.chrome
            .message
            .as_ref()
            .unwrap()
            .1
            .contains("nothing to send")
    );
    update(
        &mut app,
        Msg::AgreementChanges(vec![change("512b3db5", "9703e6aa")]),
    );
    let s = screen(&app);
    assert!(
        s.contains("κ 0.41 → 0.58 [0.49, 0.66] on 120 held-out combination(s)"),
        "{s}"
    );
    assert!(s.contains("Δκ +0.17 [0.05, 0.29]"), "{s}");
    // On the other sides the loop's lines are not shown.
    key(&mut app, 't');
    assert!(!screen(&app).contains("few-shot loop"));
}

/// An earlier prompt version that judged other held-out combinations than
/// the few-shot set gives no paired delta: the view says a baseline run is
/// needed (and offers it) instead of a headline of dashes on 0 combinations.
#[test]
fn a_change_on_no_shared_combination_asks_for_the_baseline() {
    let mut app = with_split();
    app.chrome.size = (150, 40);
    update(
        &mut app,
        Msg::LoopReady(Ok(Box::new(ready(0, LoopStage::FewShot)))),
    );
    let mut unpaired = change("512b3db5", "9703e6aa");
    unpaired.paired = PairedDelta {
        n: 0,
        kappa_from: Figure::NONE,
        kappa_to: Figure::NONE,
        delta_kappa: Figure::NONE,
        agree_from: Figure::NONE,
        agree_to: Figure::NONE,
        delta_agree: Figure::NONE,
    };
    update(&mut app, Msg::AgreementChanges(vec![unpaired]));
    let s = screen(&app);
    assert!(!s.contains("on 0 held-out"), "{s}");
    assert!(s.contains("needs a baseline run"), "{s}");
}

#[test]
fn a_run_stopped_short_says_l_continues_it() {
    let mut app = with_split();
    update(
        &mut app,
        Msg::LoopReady(Ok(Box::new(ready(5, LoopStage::FewShot)))),
    );
    let fx = key(&mut app, 'y');
    let [Effect::StartLoopRun { tag, .. }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    let tag = *tag;
    app.runs.active[0].note = Some("cancelled".into());
    app.runs.active[0].finished = true;
    let fx = update(&mut app, Msg::RunEnded { tag, error: None });
    assert!(fx.is_empty());
    assert_eq!(app.chrome.view, View::Main);
    let msg = app.chrome.message.clone().unwrap().1;
    assert!(msg.contains("L continues it"), "{msg}");
}

// ----- against a real store and a real local judge -----

fn store_with_labels(path: &std::path::Path) -> Vec<Item> {
    let mut s = jury::store::Store::open(path).unwrap();
    let d = loaded();
    let items: Vec<Item> = (0..24)
        .map(|i| {
            item(
                &format!("g-{i:03}"),
                &format!("Message {i}"),
                if i % 2 == 0 {
                    "Please ring me as soon as you land: urgent."
                } else {
                    "Lunch on Thursday at the usual place?"
                },
            )
        })
        .collect();
    s.upsert_all(&items, &d.personas, &d.perspectives, &[])
        .unwrap();
    for (i, it) in items.iter().enumerate() {
        for (c, v) in [("urgency", i % 5 + 1), ("work-pers", (i * 3) % 5 + 1)] {
            s.upsert_label(&label(&it.id, c, Value::Likert(v as u8)))
                .unwrap();
        }
    }
    s.make_split(SplitRule::new(0.3, 7).unwrap(), "tester", false)
        .unwrap();
    items
}

/// Runs effects and feeds their answers back until `done` says stop.
async fn drive(
    app: &mut App,
    exec: &mut Executor,
    rx: &mut tokio::sync::mpsc::UnboundedReceiver<Msg>,
    fx: Vec<Effect>,
    done: impl Fn(&App, &Msg) -> bool,
) {
    for f in fx {
        exec.run(f);
    }
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(60), rx.recv())
            .await
            .expect("a message in time")
            .expect("channel open");
        let stop = done(app, &msg);
        for f in update(app, msg) {
            exec.run(f);
        }
        if stop {
            return;
        }
    }
}

fn confirm(app: &App) -> LoopReady {
    match &app.chrome.popup {
        Some(Popup::ConfirmLoop(r)) => (**r).clone(),
        _ => panic!("expected the confirm step; {:?}", app.chrome.message),
    }
}

struct Bench {
    _dir: tempfile::TempDir,
    dir: PathBuf,
    db: PathBuf,
    app: App,
    exec: Executor,
    rx: tokio::sync::mpsc::UnboundedReceiver<Msg>,
    _server: jury::testserver::TestServer,
}

async fn bench() -> Bench {
    bench_with(|r| jury::testserver::demo_judge::reply(r, Duration::from_millis(0))).await
}

async fn bench_with(
    responder: impl Fn(&jury::testserver::RecordedRequest) -> jury::testserver::Reply
    + Send
    + Sync
    + 'static,
) -> Bench {
    bench_on(store_with_labels, responder).await
}

async fn bench_on(
    fill: fn(&std::path::Path) -> Vec<Item>,
    responder: impl Fn(&jury::testserver::RecordedRequest) -> jury::testserver::Reply
    + Send
    + Sync
    + 'static,
) -> Bench {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let db = dir.join("j.db");
    fill(&db);
    let server = jury::testserver::TestServer::start(responder)
        .await
        .unwrap();
    let cfg = jury::engine::EngineConfig {
        db_path: db.clone(),
        provider: jury::provider::ProviderConfig::new(
            server.base_url(),
            "jury-demo-judge".to_string(),
        ),
        prompts: std::sync::Arc::new(jury::prompt::PromptSet::embedded()),
    };
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let exec = Executor::new(db.clone(), EngineLink { config: Some(cfg) }, tx);
    let loaded = jury::tui::load(&jury::store::Store::open(&db).unwrap()).unwrap();
    let mut app = app_with(loaded);
    app.chrome.size = (160, 44);
    app.choices.mode = Mode::Two;
    Bench {
        _dir: tmp,
        dir,
        db,
        app,
        exec,
        rx,
        _server: server,
    }
}

impl Bench {
    async fn press(&mut self, c: char, done: impl Fn(&App, &Msg) -> bool) {
        let fx = key(&mut self.app, c);
        drive(&mut self.app, &mut self.exec, &mut self.rx, fx, done).await;
    }
}

fn is_ready(_: &App, m: &Msg) -> bool {
    matches!(m, Msg::LoopReady(_))
}

fn changes_in(_: &App, m: &Msg) -> bool {
    matches!(m, Msg::AgreementChanges(_))
}

/// Checks the set `L` wrote: beside the store, named by seed and hash, its
/// examples `train` pairs, none of its items among the run's (held-out) ones.
fn check_set(b: &Bench, r: &LoopReady) {
    assert_eq!(r.dir.parent(), Some(b.dir.as_path()), "beside the store");
    let name = r.dir.file_name().unwrap().to_string_lossy().into_owned();
    let hash8: String = r.hash.chars().take(8).collect();
    assert_eq!(name, format!("fewshot-seed7-{hash8}"));
    assert!(r.requests > 0 && r.examples > 0, "{r:?}");
    let store = jury::store::Store::open(&b.db).unwrap();
    let split = store.split().unwrap().unwrap();
    let set = jury::prompt::PromptSet::load(Some(&r.dir)).unwrap();
    assert_eq!(set.hash(), r.hash);
    assert!(!set.example_pairs().is_empty());
    for (item, cls) in set.example_pairs() {
        assert_eq!(split.side_of(item, cls), Side::Train, "{item}/{cls}");
        assert!(!r.plan.item_ids.contains(item), "{item} is run and shown");
    }
    assert!(!r.plan.item_ids.is_empty());
    for item in &r.plan.item_ids {
        assert!(
            ["urgency", "work-pers"]
                .iter()
                .any(|c| split.side_of(item, c) == Side::Test),
            "{item}"
        );
    }
    // The example text sits between the boundary markers.
    let mode2 = set.text("user_fewshot_mode2.txt");
    assert!(mode2.contains("<<<ITEM-CONTENT {boundary}>>>"), "{mode2}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn labels_split_judge_l_run_on_test_and_the_delta_with_no_test_item_in_any_example() {
    let mut b = bench().await;
    // The judge as it is, on every item (README's second command).
    // R counts first and asks; Enter starts the missing ones.
    b.press('R', |_, m| matches!(m, Msg::RunsPlanned { .. }))
        .await;
    let fx = code(&mut b.app, KeyCode::Enter);
    drive(&mut b.app, &mut b.exec, &mut b.rx, fx, |_, m| {
        matches!(m, Msg::RunEnded { .. })
    })
    .await;
    assert!(!b.app.running());

    // L: the set beside the store, and the confirm step.
    b.press('L', is_ready).await;
    let first = confirm(&b.app);
    assert_eq!(first.stage, LoopStage::FewShot);
    check_set(&b, &first);
    assert!(screen(&b.app).contains(&format!("It will send {} request(s).", first.requests)));

    // Yes: the run on test, then the agreement view there with the change.
    b.press('y', changes_in).await;
    assert!(!b.app.running());
    assert!(matches!(&b.app.chrome.view, View::Agreement(a) if a.side == Some(Side::Test)));
    let s = screen(&b.app);
    let hash8: String = first.hash.chars().take(8).collect();
    let base8: String = first.base_hash.chars().take(8).collect();
    assert!(s.contains("few-shot loop · awag mode 2"), "{s}");
    assert!(s.contains("held-out combination(s)"), "{s}");
    assert!(s.contains(&format!("prompts {base8} → {hash8}, Δκ")), "{s}");

    // L again from the main screen: the same labels give the same examples,
    // the same prompt version in the same folder, and resume finds nothing
    // left to send: straight to the change.
    code(&mut b.app, KeyCode::Esc);
    b.press('L', changes_in).await;
    let again = b.app.runs.fewshot.as_ref().unwrap().ready.clone();
    assert_eq!((&again.hash, &again.dir), (&first.hash, &first.dir));
    assert!(again.reused);
    assert_eq!(again.requests, 0);
    assert!(again.skipped > 0);
    assert!(b.app.chrome.popup.is_none());
    assert!(screen(&b.app).contains(&format!("prompts {base8} → {hash8}, Δκ")));
    b.exec.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_baseline_the_view_offers_one_and_then_shows_the_delta() {
    let mut b = bench().await;
    b.press('L', is_ready).await;
    let first = confirm(&b.app);
    check_set(&b, &first);
    b.press('y', changes_in).await;
    let s = screen(&b.app);
    assert!(s.contains("needs a baseline run"), "{s}");

    // L in the view: the current prompts on the same held-out items.
    b.press('L', is_ready).await;
    let base = confirm(&b.app);
    assert_eq!(base.stage, LoopStage::Baseline);
    assert_eq!(base.plan.item_ids, first.plan.item_ids);
    assert!(screen(&b.app).contains("The delta needs a baseline"));
    b.press('y', changes_in).await;
    let s = screen(&b.app);
    let hash8: String = first.hash.chars().take(8).collect();
    let base8: String = first.base_hash.chars().take(8).collect();
    assert!(s.contains(&format!("prompts {base8} → {hash8}, Δκ")), "{s}");
    assert!(!s.contains("needs a baseline run"), "{s}");
    b.exec.shutdown();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_l_after_a_cancel_continues_with_the_same_prompt_version() {
    // The request holding `slow` hangs, the others answer at once: the
    // cancel comes while part of the run is judged and part is not.
    let slow: std::sync::Arc<std::sync::Mutex<Option<String>>> = Default::default();
    let hang = slow.clone();
    let mut b = bench_with(move |r| {
        let reply = jury::testserver::demo_judge::reply(r, Duration::ZERO);
        match hang.lock().unwrap().as_deref() {
            Some(id) if r.body.to_string().contains(id) => {
                jury::testserver::Reply::Delay(Duration::from_secs(20), Box::new(reply))
            }
            _ => reply,
        }
    })
    .await;
    // R counts first and asks; Enter starts the missing ones.
    b.press('R', |_, m| matches!(m, Msg::RunsPlanned { .. }))
        .await;
    let fx = code(&mut b.app, KeyCode::Enter);
    drive(&mut b.app, &mut b.exec, &mut b.rx, fx, |_, m| {
        matches!(m, Msg::RunEnded { .. })
    })
    .await;
    b.press('L', is_ready).await;
    let first = confirm(&b.app);
    assert!(first.requests >= 2, "{first:?}");
    *slow.lock().unwrap() = first.plan.item_ids.last().cloned();
    b.press('y', |_, m| {
        matches!(
            m,
            Msg::Engine {
                event: jury::engine::EngineEvent::Verdict { .. },
                ..
            }
        )
    })
    .await;
    // x cancels the run (y when it asks first); it ends short and says L
    // continues it.
    let mut fx = key(&mut b.app, 'x');
    if matches!(b.app.chrome.popup, Some(Popup::CancelRun { .. })) {
        fx = key(&mut b.app, 'y');
    }
    assert!(
        matches!(fx.as_slice(), [Effect::CancelRun { .. }]),
        "{fx:?}"
    );
    drive(&mut b.app, &mut b.exec, &mut b.rx, fx, |_, m| {
        matches!(m, Msg::RunEnded { .. })
    })
    .await;
    assert_eq!(b.app.chrome.view, View::Main);
    let msg = b.app.chrome.message.clone().unwrap().1;
    assert!(msg.contains("L continues it"), "{msg}");

    // L again: the same examples, the same prompt version and folder; only
    // what the cancel left is asked for.
    *slow.lock().unwrap() = None;
    b.press('L', is_ready).await;
    let again = confirm(&b.app);
    assert_eq!((&again.hash, &again.dir), (&first.hash, &first.dir));
    assert!(again.reused);
    assert!(again.skipped > 0, "{again:?}");
    assert!(again.requests < first.requests, "{again:?}");
    b.press('y', changes_in).await;
    let hash8: String = first.hash.chars().take(8).collect();
    let s = screen(&b.app);
    assert!(s.contains(&format!("→ {hash8}, Δκ")), "{s}");
    b.exec.shutdown();
}

/// 24 items, the even ones Kenton's and the odd ones Maren's, each labelled
/// as its owner on both classifications; split by item.
fn store_with_owners(path: &std::path::Path) -> Vec<Item> {
    let mut s = jury::store::Store::open(path).unwrap();
    let d = loaded();
    let mut personas = d.personas.clone();
    personas.push(Persona {
        id: "maren".into(),
        name: "Maren, gardener".into(),
        definition: serde_json::json!({"type": "personal", "does": "gardens"}),
    });
    let owner = |i: usize| {
        if i.is_multiple_of(2) {
            "kenton"
        } else {
            "maren"
        }
    };
    let items: Vec<Item> = (0..24)
        .map(|i| Item {
            owner: Some(owner(i).into()),
            ..item(
                &format!("g-{i:03}"),
                &format!("Message {i}"),
                "Lunch on Thursday?",
            )
        })
        .collect();
    s.upsert_all(&items, &personas, &d.perspectives, &[])
        .unwrap();
    for (i, it) in items.iter().enumerate() {
        for (c, v) in [("urgency", i % 5 + 1), ("work-pers", (i * 3) % 5 + 1)] {
            s.upsert_label(&Label {
                persona_id: owner(i).into(),
                ..label(&it.id, c, Value::Likert(v as u8))
            })
            .unwrap();
        }
    }
    s.make_split(SplitRule::new(0.3, 7).unwrap(), "tester", false)
        .unwrap();
    items
}

/// With each item's owner the choice, `L` runs each held-out item as its
/// owner — one run per owner persona — and says so, instead of running
/// only the items labelled as the picker's persona, as that persona.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn l_in_owner_mode_runs_each_held_out_item_as_its_owner() {
    let mut b = bench_on(store_with_owners, |r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(0))
    })
    .await;
    assert!(b.app.choices.by_owner, "items have owners");
    b.press('L', is_ready).await;
    let r = confirm(&b.app);
    assert!(r.by_owner);
    let store = jury::store::Store::open(&b.db).unwrap();
    let split = store.split().unwrap().unwrap();
    let owner_of = |id: &str| {
        let i: usize = id[2..].parse().unwrap();
        if i.is_multiple_of(2) {
            "kenton"
        } else {
            "maren"
        }
    };
    let held_out: Vec<String> = (0..24)
        .map(|i| format!("g-{i:03}"))
        .filter(|id| split.item_side(id) == Side::Test)
        .collect();
    let personas: Vec<&str> = r.plans().map(|p| p.persona_id()).collect();
    assert_eq!(personas, ["kenton", "maren"], "{r:?}");
    let mut planned: Vec<String> = Vec::new();
    for p in r.plans() {
        for item in &p.item_ids {
            assert_eq!(owner_of(item), p.persona_id(), "{item} judged as its owner");
        }
        planned.extend(p.item_ids.iter().cloned());
    }
    planned.sort();
    assert_eq!(
        planned.len() + r.left_out,
        held_out.len(),
        "every held-out item, as its owner: {planned:?} of {held_out:?}"
    );
    let s = screen(&b.app);
    assert!(s.contains("as each item's owner (kenton "), "{s}");
    assert!(
        s.contains(&format!("Run it on {} held-out", planned.len())),
        "{s}"
    );
    // Yes: one run per owner persona.
    let fx = key(&mut b.app, 'y');
    let started: Vec<&str> = fx
        .iter()
        .filter_map(|f| match f {
            Effect::StartLoopRun { plan, .. } => Some(plan.persona_id()),
            _ => None,
        })
        .collect();
    assert_eq!(started, ["kenton", "maren"], "{fx:?}");
}
