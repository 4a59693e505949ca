//! The loop against a real store and a real local judge: labels, split,
//! `L`, the run on `test` and the delta, a baseline offered, a second `L`
//! after a cancel.

use super::*;

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

fn changes_in(_: &App, m: &Msg) -> bool {
    matches!(
        m,
        Msg::Agreement {
            part: AgreementPart::Changes(_),
            ..
        }
    )
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
    // The versions by folder and hash, as `jury runs` names them.
    assert!(
        s.contains(&format!("({base8}) → fewshot-")) && s.contains(&format!("({hash8}), Δκ")),
        "{s}"
    );

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
    assert!(screen(&b.app).contains(&format!("({base8}) → fewshot-")));
    assert!(screen(&b.app).contains(&format!("({hash8}), Δκ")));
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
    // The versions by folder and hash, as `jury runs` names them.
    assert!(
        s.contains(&format!("({base8}) → fewshot-")) && s.contains(&format!("({hash8}), Δκ")),
        "{s}"
    );
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
    assert!(s.contains(&format!("({hash8}), Δκ")), "{s}");
    b.exec.shutdown();
}
