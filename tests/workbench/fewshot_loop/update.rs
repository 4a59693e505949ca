//! `L` as pure update: no split, a split made while open, plan, confirm, run
//! and the delta on `test`, a change with no shared combination, a run
//! stopped short.

use super::*;

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
        from_version: None,
        to_version: None,
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
        vec![Effect::LoadAgreement {
            req: agreement_req(&app),
            scope: jury::report::Scope {
                estimates: true,
                ..jury::report::Scope::on(Some(Side::Test))
            },
        }]
    );
    let View::Agreement(a) = &app.chrome.view else {
        panic!("not the agreement view")
    };
    assert_eq!(a.side, Some(Side::Test));

    // No earlier version judged the test items: the view says the delta
    // needs a baseline, and L offers it.
    answer_agreement(&mut app, AgreementPart::Changes(Vec::new()));
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
        vec![Effect::LoadAgreement {
            req: agreement_req(&app),
            scope: jury::report::Scope {
                estimates: true,
                ..jury::report::Scope::on(Some(Side::Test))
            },
        }]
    );
    // The baseline judged after the set: the report's change set → baseline
    // is shown turned around, old prompts → few-shot.
    answer_agreement(
        &mut app,
        AgreementPart::Changes(vec![change("9703e6aa", "512b3db5")]),
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
    answer_agreement(
        &mut app,
        AgreementPart::Changes(vec![change("512b3db5", "9703e6aa")]),
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
    answer_agreement(&mut app, AgreementPart::Changes(vec![unpaired]));
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

/// Where runs recorded their prompt folders, the loop's line names the
/// versions as `jury runs` does: folder and hash.
#[test]
fn the_delta_line_names_the_versions_by_folder_and_hash() {
    let mut app = with_split();
    app.chrome.size = (150, 40);
    update(
        &mut app,
        Msg::LoopReady(Ok(Box::new(ready(0, LoopStage::FewShot)))),
    );
    let mut c = change("512b3db5", "9703e6aa");
    c.from_version = Some("embedded (512b3db5)".into());
    c.to_version = Some("fewshot-k3 (9703e6aa)".into());
    answer_agreement(&mut app, AgreementPart::Changes(vec![c]));
    let s = screen(&app);
    assert!(
        s.contains("embedded (512b3db5) → fewshot-k3 (9703e6aa), Δκ +0.17 [0.05, 0.29]"),
        "{s}"
    );
}
