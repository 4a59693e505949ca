//! Runs in the real binary, in tmux, against a local judge server: Esc
//! backs out and never stops a run; `x` asks and cancels; `R` after a cancel
//! sends only what is missing, as many requests as its confirmation said.
//! Skips (with a note) when tmux is missing.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

use jury::testserver::TestServer;
use std::time::Duration;

async fn server(latency_ms: u64) -> TestServer {
    TestServer::start(move |r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(latency_ms))
    })
    .await
    .unwrap()
}

/// Judge requests the server received (the model list is a GET).
fn posts(s: &TestServer) -> usize {
    s.requests().iter().filter(|r| r.method == "POST").count()
}

/// The requests the confirmation says the missing runs send: the "in all"
/// line when it lists several runs, else the run's own line.
fn missing_requests(screen: &str) -> usize {
    let line = screen
        .lines()
        .find(|l| l.contains("in all, missing:"))
        .or_else(|| screen.lines().find(|l| l.contains("missing:")))
        .unwrap_or_else(|| panic!("no missing line:\n{screen}"));
    let before = line
        .split(" request(s)")
        .next()
        .unwrap_or_else(|| panic!("no request count: {line}"));
    let n = before.rsplit([' ', '·', ':']).next().unwrap();
    n.parse().unwrap_or_else(|e| panic!("{e}: '{n}' in {line}"))
}

async fn wait_until(what: &str, f: impl Fn() -> bool) {
    let t0 = std::time::Instant::now();
    while !f() {
        assert!(t0.elapsed() < Duration::from_secs(60), "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_clears_the_search_and_x_asks_before_cancelling() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    // Answers slower than the keys below take to type, however busy the
    // machine: the run is still going when it is cancelled.
    let server = server(20_000).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let s = Session::start(
        &format!("jury-runs-esc-{}", std::process::id()),
        &db,
        &server.base_url(),
    );
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    // One AwAg run over the k- items: search them, judge the list.
    s.keys(&["/", "k-0", "Enter"]);
    wait_for(&s.name, "the search", |x| x.contains("items 22/94")).await;
    s.keys(&["R"]);
    wait_for(&s.name, "the confirmation", |x| {
        x.contains("judge the list?")
    })
    .await;
    s.keys(&["Enter"]);
    wait_until("the first request", || posts(&server) > 0).await;

    // Esc while searching: the first closes the field, the second clears the
    // search; the run goes on.
    s.keys(&["/", "x", "y"]);
    wait_for(&s.name, "the search field", |x| {
        x.contains("items 0/94") && x.contains(" search (")
    })
    .await;
    // The second Escape waits for the first one's effect: Escape starts a key
    // sequence, and two that reach jury in one read are read as one key.
    s.keys(&["Escape"]);
    wait_for(&s.name, "the search field closed", |x| {
        !x.contains(" search (")
    })
    .await;
    s.keys(&["Escape"]);
    let screen = wait_for(&s.name, "the search cleared", |x| x.contains("items 94/94")).await;
    // The status bar still shows the run going (a finished one reads "last run").
    assert!(
        screen.contains("/110") && !screen.contains("last run"),
        "{screen}"
    );
    assert!(!screen.contains("cancel"), "Esc cancels nothing:\n{screen}");

    // x asks; n keeps the run.
    s.keys(&["x"]);
    let screen = wait_for(&s.name, "the cancel prompt", |x| {
        x.contains("cancel a run?")
    })
    .await;
    assert!(screen.contains("of 110 done"), "{screen}");
    s.keys(&["n"]);
    let screen = wait_for(&s.name, "the prompt closed", |x| {
        !x.contains("cancel a run?")
    })
    .await;
    assert!(!screen.contains("cancelled"), "{screen}");
    // x, y cancels it; the verdicts that arrived are kept.
    s.keys(&["x"]);
    wait_for(&s.name, "the cancel prompt", |x| {
        x.contains("cancel a run?")
    })
    .await;
    s.keys(&["y"]);
    let screen = wait_for(&s.name, "the run cancelled", |x| {
        x.contains("run 1 cancelled")
    })
    .await;
    eprintln!("--- cancelled ---\n{screen}");
    let store = jury::store::Store::open(&db).unwrap();
    let run = &store.runs().unwrap()[0];
    assert_eq!(run.status, jury::domain::RunStatus::Cancelled);
    // The runs view says so too.
    s.keys(&["U"]);
    let screen = wait_for(&s.name, "the runs view", |x| x.contains("1 cancelled")).await;
    eprintln!("--- runs view ---\n{screen}");
    s.keys(&["q"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r_after_a_cancel_sends_only_the_missing_requests() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let server = server(600).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let s = Session::start(
        &format!("jury-runs-r-{}", std::process::id()),
        &db,
        &server.base_url(),
    );
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;

    // 1. R says what it will send, and sends nothing before Enter.
    s.keys(&["R"]);
    let screen = wait_for(&s.name, "the confirmation", |x| {
        x.contains("judge the list?")
    })
    .await;
    eprintln!("--- first R ---\n{screen}");
    let first = missing_requests(&screen);
    assert!(first > 20, "{screen}");
    assert_eq!(posts(&server), 0);

    // 2. Start, and cancel every run about a third of the way.
    s.keys(&["Enter"]);
    wait_until("a third of the requests", || posts(&server) >= first / 3).await;
    s.keys(&["x"]);
    wait_for(&s.name, "the cancel prompt", |x| {
        x.contains("cancel a run?")
    })
    .await;
    s.keys(&["a"]);
    wait_for(&s.name, "every run ended", |x| {
        x.contains("last run") || x.contains(" runs ended") || x.contains(" runs done")
    })
    .await;
    let sent = posts(&server);
    assert!(sent < first, "cancelled half-way: {sent} of {first}");

    // 3. R again: only the missing ones, fewer than before.
    s.keys(&["R"]);
    let screen = wait_for(&s.name, "the second confirmation", |x| {
        x.contains("judge the list?")
    })
    .await;
    eprintln!("--- R after the cancel ---\n{screen}");
    let missing = missing_requests(&screen);
    assert!(
        missing > 0 && missing < first,
        "{missing} of {first}:\n{screen}"
    );
    s.keys(&["Enter"]);
    wait_until("the missing requests", || posts(&server) >= sent + missing).await;
    let screen = wait_for(&s.name, "every run ended", |x| {
        (x.contains("last run") || x.contains(" runs ended") || x.contains(" runs done"))
            && !x.contains("judge the list?")
    })
    .await;
    eprintln!("--- done ---\n{screen}");
    assert_eq!(
        posts(&server),
        sent + missing,
        "the confirmation's count is what was sent"
    );

    // 4. And now nothing is missing.
    s.keys(&["R"]);
    let screen = wait_for(&s.name, "the third confirmation", |x| {
        x.contains("judge the list?")
    })
    .await;
    assert_eq!(missing_requests(&screen), 0, "{screen}");
    s.keys(&["Escape"]);
    wait_for(&s.name, "the confirmation closed", |x| {
        !x.contains("judge the list?")
    })
    .await;
    s.keys(&["q"]);
}

/// `jury tui --base-url A#2 --base-url B#2`: a run started with `R` spreads
/// its requests over both servers, and each verdict records which answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workbench_spreads_a_run_over_the_servers_its_flags_name() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let (a, b) = (server(150).await, server(150).await);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("servers.db");
    let s = Session::start_cmd(
        &format!("jury-runs-servers-{}", std::process::id()),
        &format!(
            "exec env -u OPENAI_API_KEY -u OPENAI_BASE_URL JURY_CONFIG=/nonexistent/config.toml JURY_USER=tester JURY_SAMPLE_DATA={} {} tui --db {} --model jury-demo-judge --base-url {}#2 --base-url {}#2",
            concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data"),
            env!("CARGO_BIN_EXE_jury"),
            db.display(),
            a.base_url(),
            b.base_url(),
        ),
    );
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    s.keys(&["/", "k-0", "Enter"]);
    wait_for(&s.name, "the search", |x| x.contains("items 22/94")).await;
    s.keys(&["R"]);
    let screen = wait_for(&s.name, "the confirmation", |x| {
        x.contains("judge the list?")
    })
    .await;
    let missing = missing_requests(&screen);
    s.keys(&["Enter"]);
    wait_until("every request", || posts(&a) + posts(&b) >= missing).await;
    wait_for(&s.name, "every run ended", |x| {
        x.contains("last run") || x.contains(" runs ended") || x.contains(" runs done")
    })
    .await;
    s.keys(&["q"]);
    assert_eq!(posts(&a) + posts(&b), missing);
    assert!(posts(&a) > 0 && posts(&b) > 0, "both servers were asked");
    let store = jury::store::Store::open(&db).unwrap();
    let mut servers: Vec<String> = store
        .runs()
        .unwrap()
        .iter()
        .flat_map(|r| store.verdicts_for_run(r.id).unwrap())
        .filter_map(|v| v.server)
        .collect();
    servers.sort();
    servers.dedup();
    let shown = |s: &TestServer| jury::provider::url::shown(&s.base_url());
    assert_eq!(servers.len(), 2, "{servers:?}");
    assert!(
        servers.contains(&shown(&a)) && servers.contains(&shown(&b)),
        "{servers:?}"
    );
}
