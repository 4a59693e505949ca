//! The real binary at 80×24 in tmux: the first minutes without an endpoint
//! (claim rows give way to one line, the popup names the demo judge), the
//! agreement view's columns, a run's end said alike in the message and the
//! runs view, and `q` asking while a run goes. Skips (with a note) when
//! tmux is missing.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

use std::time::Duration;

fn small(s: &Session) {
    tmux(&["resize-window", "-t", &s.name, "-x", "80", "-y", "24"]);
}

/// The screen's rows joined and their runs of spaces made one (a sentence a
/// pane wraps reads whole), without the pane borders.
fn flat_text(screen: &str) -> String {
    screen
        .lines()
        .map(|l| l.replace(['│', '┌', '┐', '└', '┘', '─'], " "))
        .collect::<Vec<_>>()
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_an_endpoint_the_first_screen_says_what_to_do_at_80x24() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("first.db");
    let cmd = format!(
        "exec env -u OPENAI_API_KEY -u OPENAI_BASE_URL JURY_CONFIG=/nonexistent/config.toml JURY_USER=tester JURY_SAMPLE_DATA={} {} tui --db {}",
        concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data"),
        env!("CARGO_BIN_EXE_jury"),
        db.display()
    );
    let s = Session::start_cmd(&format!("jury-small-{}", std::process::id()), &cmd);
    small(&s);
    wait_for(&s.name, "the first screen at 80x24", |x| {
        x.contains("what the marks mean") && x.lines().count() <= 24
    })
    .await;
    s.keys(&["Escape"]);
    // k-001 holds labels on two claims no claims.toml names: one line.
    let screen = wait_for(&s.name, "the legend hidden", |x| {
        !x.contains("what the marks mean")
    })
    .await;
    eprintln!("--- k-001, 80x24 ---\n{screen}");
    let text = flat_text(&screen);
    assert!(!text.contains("· proposition"), "{screen}");
    assert!(
        // Under 120 columns the short line: the ids, and where they go.
        text.contains("claim(s) hidden") && text.contains("claims.toml"),
        "{screen}"
    );
    assert!(!screen.contains('⏎'), "{screen}");

    // Enter: no endpoint; the popup gives the demo judge's two commands, each on one row.
    s.keys(&["Enter"]);
    let screen = wait_for(&s.name, "the no-endpoint popup", |x| {
        x.contains("cannot judge: no endpoint")
    })
    .await;
    eprintln!("--- no endpoint ---\n{screen}");
    for want in [
        "jury demo-judge --port 8089 &",
        "OPENAI_BASE_URL=http://127.0.0.1:8089/v1 JURY_MODEL=jury-demo-judge jury",
    ] {
        assert!(screen.contains(want), "{want}:\n{screen}");
    }
    s.keys(&["Escape"]);
    wait_for(&s.name, "the popup closed", |x| !x.contains("cannot judge")).await;

    // The agreement view: sides, n, agree, kappa and AC1 at 80 columns; w
    // shows the others a set at a time, then the first again.
    s.keys(&["A"]);
    let screen = wait_for(&s.name, "the agreement table", |x| {
        x.contains("kappa") && x.contains("alice vs bob")
    })
    .await;
    eprintln!("--- agreement, 80x24 ---\n{screen}");
    let header = screen.lines().find(|l| l.contains("sides")).unwrap();
    for want in ["sides", "n", "agree", "kappa", "AC1"] {
        assert!(header.contains(want), "{want}: {header}");
    }
    assert!(screen.contains("w more columns"), "{screen}");
    s.keys(&["w"]);
    let screen = wait_for(&s.name, "PABAK and the scale", |x| {
        x.lines()
            .any(|l| l.contains("sides") && l.contains("PABAK") && l.contains("scale"))
    })
    .await;
    eprintln!("--- agreement, w ---\n{screen}");
    s.keys(&["w"]);
    let screen = wait_for(&s.name, "the people's agreement", |x| {
        x.lines()
            .any(|l| l.contains("sides") && l.contains("people agree"))
    })
    .await;
    assert!(screen.contains("w back to agree, kappa, AC1"), "{screen}");
    eprintln!("--- agreement, w w ---\n{screen}");
    s.keys(&["Escape"]);
    wait_for(&s.name, "the main screen", |x| x.contains("items 94/94")).await;
    s.keys(&["q"]);
    wait_gone(&s.name).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runs_end_reads_alike_and_q_asks_while_a_run_goes() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let server = jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(20))
    })
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("runs.db");
    let s = Session::start(
        &format!("jury-small-runs-{}", std::process::id()),
        &db,
        &server.base_url(),
    );
    small(&s);
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    // A key right after Escape would reach jury in the same read, as alt-key.
    s.keys(&["Escape"]);
    wait_for(&s.name, "the legend hidden", |x| {
        !x.contains("what the marks mean")
    })
    .await;
    // One item judged: the end message, then the runs view's session line.
    s.keys(&["Enter"]);
    let screen = wait_for(&s.name, "the run's end", |x| x.contains("run 1 done:")).await;
    eprintln!("--- the run's end, 80x24 ---\n{screen}");
    let said = screen
        .lines()
        .find(|l| l.contains("run 1 done:"))
        .unwrap()
        .split("run 1 done:")
        .nth(1)
        .unwrap()
        .split(" failed")
        .next()
        .unwrap()
        .to_string();
    s.keys(&["U"]);
    let screen = wait_for(&s.name, "the runs view", |x| {
        x.contains("this session: last run")
    })
    .await;
    eprintln!("--- runs view, 80x24 ---\n{screen}");
    let session = screen.lines().find(|l| l.contains("this session")).unwrap();
    assert!(
        session.contains(&format!("last run 1 done:{said} failed")),
        "{said}\n{session}"
    );
    assert!(screen.contains("started (UTC)"), "{screen}");
    s.keys(&["Escape"]);
    wait_for(&s.name, "the main screen", |x| x.contains("items 94/94")).await;
    s.keys(&["q"]);
    wait_gone(&s.name).await;

    // The whole list, slowly enough to still be going: q asks.
    let slow = jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(20_000))
    })
    .await
    .unwrap();
    drop(s);
    let s = Session::start(
        &format!("jury-small-quit-{}", std::process::id()),
        &db,
        &slow.base_url(),
    );
    small(&s);
    wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    s.keys(&["R"]);
    wait_for(&s.name, "the confirmation", |x| {
        x.contains("judge the list?")
    })
    .await;
    s.keys(&["Enter"]);
    wait_for(&s.name, "the run going", |x| x.contains("judging")).await;
    s.keys(&["q"]);
    let screen = wait_for(&s.name, "the quit prompt", |x| {
        x.contains("quit? runs are going")
    })
    .await;
    eprintln!("--- q with a run going, 80x24 ---\n{screen}");
    s.keys(&["n"]);
    wait_for(&s.name, "still there", |x| x.contains("not quitting")).await;
    s.keys(&["q"]);
    wait_for(&s.name, "the quit prompt again", |x| {
        x.contains("quit? runs are going")
    })
    .await;
    s.keys(&["y"]);
    wait_gone(&s.name).await;
}
