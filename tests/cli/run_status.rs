//! Run status and the command-line contract: a run never lies about how it
//! ended, and another process never declares a live run dead. Each test
//! drives the real binary against the fake server on 127.0.0.1 and reads the
//! real store.
#![cfg(feature = "tui")]

use crate::common;

use common::{ServerRt, Workspace, generated_workspace, text};
use jury::domain::{Mode, Protocol, RunSpec};
use jury::testserver::{Reply, demo_judge};
use serde_json::Value;
use std::process::Stdio;
use std::time::Duration;

fn runs(ws: &Workspace) -> Vec<Value> {
    let out = ws.ok(&["runs", "--json"]);
    serde_json::from_str::<Value>(&out)
        .expect("runs --json")
        .as_array()
        .expect("a list of runs")
        .clone()
}

fn run_row(ws: &Workspace, id: i64) -> Value {
    runs(ws)
        .into_iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no run {id}"))
}

const RUN: &[&str] = &[
    "run",
    "--mode",
    "2",
    "--persona",
    "tester",
    "--perspective",
    "classification",
];

/// While a run waits on a slow judge, other commands on the same
/// store leave it `running`; SIGTERM ends it `cancelled`.
#[test]
fn other_commands_leave_a_live_run_running_and_sigterm_cancels_it() {
    let ws = generated_workspace(2, 2);
    // The answer would take a minute: long enough to stay in flight for the
    // whole test; the cancellation cuts it short.
    let srv =
        ServerRt::start(|r| demo_judge::reply(r, Duration::ZERO).delayed(Duration::from_secs(60)));
    let mut child = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .args(RUN)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn jury run");
    // Wait (bounded) until the request is at the server: the run is live.
    let mut waited = 0;
    while srv.completions().is_empty() {
        assert!(
            child.try_wait().expect("try_wait").is_none(),
            "the run ended before its request arrived"
        );
        assert!(waited < 1200, "the run never sent its request");
        std::thread::sleep(Duration::from_millis(50));
        waited += 1;
    }
    // The writer refreshes the heartbeat while the answer is awaited.
    let conn = rusqlite::Connection::open(&ws.db).expect("open the store");
    let beat = || -> (String, String) {
        conn.query_row(
            "SELECT created_at, heartbeat_at FROM runs WHERE id = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .expect("the run's heartbeat")
    };
    let mut waited = 0;
    while {
        let (created, beat) = beat();
        beat == created
    } {
        assert!(waited < 1200, "the heartbeat was never refreshed");
        std::thread::sleep(Duration::from_millis(50));
        waited += 1;
    }
    drop(conn);
    // Commands that open the store (and used to mark every running run failed).
    ws.ok(&["list", "items"]);
    ws.ok(&["failures"]);
    let row = run_row(&ws, 1);
    assert_eq!(row["status"], "running", "{row}");
    assert!(row["note"].is_null(), "{row}");

    // SAFETY: signalling our own child process.
    let rc = unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert_eq!(rc, 0);
    let out = child.wait_with_output().expect("wait for jury run");
    assert_eq!(
        out.status.code(),
        Some(2),
        "a cancelled run exits 2\nstdout: {}\nstderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("run 1 cancelled"),
        "{}",
        text(&out.stdout)
    );
    let row = run_row(&ws, 1);
    assert_eq!(row["status"], "cancelled", "{row}");
    assert_eq!(row["note"], "cancelled", "{row}");
    assert!(!row["finished_at"].is_null(), "{row}");
}

fn spec() -> RunSpec {
    RunSpec {
        protocol: Protocol::Awag,
        mode: Some(Mode::Two),
        persona_id: "tester".into(),
        perspective_ids: vec!["classification".into()],
        model: "m".into(),
        prompt_hash: "h".into(),
        record: None,
    }
}

/// A pid that belonged to a process that has ended (and been reaped).
fn dead_pid() -> u32 {
    let mut c = std::process::Command::new("true")
        .spawn()
        .expect("spawn true");
    let pid = c.id();
    c.wait().expect("reap true");
    pid
}

/// Only a run whose owner is gone is marked interrupted: a dead pid
/// on this host, or a heartbeat gone stale (a reused pid, a hung process,
/// another host). A live owner with a fresh heartbeat keeps its run.
#[test]
fn only_runs_whose_owner_is_gone_are_marked_interrupted() {
    let ws = generated_workspace(1, 1);
    let (dead, stale, live, elsewhere) = {
        let mut store = ws.store();
        let ids: Vec<i64> = (0..4)
            .map(|_| store.create_run(&spec(), 1).unwrap())
            .collect();
        (ids[0], ids[1], ids[2], ids[3])
    };
    let conn = rusqlite::Connection::open(&ws.db).expect("open the store");
    conn.execute(
        "UPDATE runs SET owner_pid = ?2 WHERE id = ?1",
        rusqlite::params![dead, dead_pid()],
    )
    .unwrap();
    // This test process is alive, but its heartbeat is a minute old.
    let old = (chrono::Utc::now() - chrono::Duration::seconds(60))
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    conn.execute(
        "UPDATE runs SET heartbeat_at = ?2 WHERE id = ?1",
        rusqlite::params![stale, old],
    )
    .unwrap();
    // Another host's pid means nothing here: a fresh heartbeat keeps it.
    conn.execute(
        "UPDATE runs SET owner_host = 'another-host', owner_pid = ?2 WHERE id = ?1",
        rusqlite::params![elsewhere, dead_pid()],
    )
    .unwrap();
    drop(conn);

    let rows = runs(&ws);
    let status = |id: i64| {
        rows.iter()
            .find(|r| r["id"] == id)
            .map(|r| (r["status"].clone(), r["note"].clone()))
            .unwrap()
    };
    let interrupted = (
        Value::from("failed"),
        Value::from(jury::store::INTERRUPTED_NOTE),
    );
    assert_eq!(status(dead), interrupted);
    assert_eq!(status(stale), interrupted);
    assert_eq!(status(live), (Value::from("running"), Value::Null));
    assert_eq!(status(elsewhere), (Value::from("running"), Value::Null));
}

/// A run that got not one verdict, only failures, is `failed`
/// (exit 2: failures were recorded), and points at them.
#[test]
fn a_run_with_only_failures_is_failed_not_done() {
    let ws = generated_workspace(2, 2);
    let srv = ServerRt::start(|_| Reply::tool("get_evaluations", "{\"resultItems\": [ not json"));
    let mut args = RUN.to_vec();
    args.extend(["--max-attempts", "2", "--json"]);
    let out = ws.run_with(&srv.url(), &args);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let summary: Value = serde_json::from_slice(&out.stdout).expect("JSON summary");
    assert_eq!(summary["status"], "failed", "{summary}");
    assert_eq!(summary["verdicts"], 0, "{summary}");
    assert_eq!(summary["note"], jury::engine::NO_VERDICT_NOTE, "{summary}");
    let row = run_row(&ws, 1);
    assert_eq!(row["status"], "failed", "{row}");
    assert!(row["failures"].as_u64().unwrap() > 0, "{row}");

    // Without --json the pointer names this run, which has failures.
    let args: Vec<&str> = RUN.to_vec();
    let out = ws.run_with(&srv.url(), &args);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("see the failures with: jury failures 2"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        !text(&out.stderr).contains("stopped at"),
        "not a fatal stop"
    );
    let listed = ws.ok(&["failures", "2"]);
    assert!(listed.contains("run 2 ·"), "{listed}");
}

/// `jury failures N` for a run that does not exist is an error.
#[test]
fn failures_of_a_run_that_does_not_exist_exit_1() {
    let ws = generated_workspace(1, 1);
    let out = ws.run(&["failures", "42"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("no run 42"),
        "{}",
        text(&out.stderr)
    );
    let out = ws.run(&["failures", "42", "--json"]);
    assert_eq!(out.status.code(), Some(1));
}

/// A budget stop leaves combinations that were never sent; it
/// records no failure, so it does not send the user to `jury failures`.
#[test]
fn a_budget_stop_does_not_point_at_a_run_without_failures() {
    let ws = generated_workspace(6, 1);
    let srv = ServerRt::demo();
    let mut args = RUN.to_vec();
    args.extend([
        "--budget",
        "0.0000001",
        "--batch-size",
        "1",
        "--concurrency",
        "1",
    ]);
    let out = ws.run_with(&srv.url(), &args);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        text(&out.stdout).contains("budget of"),
        "{}",
        text(&out.stdout)
    );
    let row = run_row(&ws, 1);
    assert_eq!(row["status"], "failed", "{row}");
    assert_eq!(row["failures"], 0, "{row}");
    assert!(!err.contains("jury failures"), "{err}");
    assert!(err.contains("--resume"), "{err}");
}

/// A usage error exits 1 with the parser's message (2 is "failures
/// were recorded"); help and version exit 0.
#[test]
fn a_bad_flag_exits_1_and_help_exits_0() {
    let ws = Workspace::new();
    let out = ws.run(&["run", "--no-such-flag"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("unexpected argument '--no-such-flag'"),
        "{}",
        text(&out.stderr)
    );
    let out = ws.run(&["no-such-command"]);
    assert_eq!(out.status.code(), Some(1));
    let out = ws.run(&["run", "--mode", "two"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    for args in [&["--help"][..], &["--version"], &["run", "--help"]] {
        let out = ws.run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(!out.stdout.is_empty(), "{args:?}");
    }
    let help = text(&ws.run(&["run", "--help"]).stdout);
    assert!(help.contains("Exit codes: 0"), "{help}");
    assert!(help.contains("1 a fatal error: bad flags"), "{help}");
}

/// Two `jury run --resume` started together on the same combinations: the
/// second leaves to the first (alive, judging) what it has claimed, says
/// so, and sends nothing; every combination is paid for once.
#[test]
fn a_resume_leaves_to_a_live_run_what_it_has_claimed() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let ws = generated_workspace(3, 2);
    // The judge holds its answers until the second run has had its say.
    let open = Arc::new(AtomicBool::new(false));
    let gate = open.clone();
    let srv = ServerRt::start(move |r| {
        for _ in 0..6000 {
            if gate.load(Ordering::SeqCst) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        demo_judge::reply(r, Duration::ZERO)
    });
    let mut resume = RUN.to_vec();
    resume.push("--resume");
    let first = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .args(&resume)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the first run");
    let mut waited = 0;
    while srv.completions().is_empty() {
        assert!(waited < 1200, "the first run never sent its request");
        std::thread::sleep(Duration::from_millis(50));
        waited += 1;
    }
    let second = ws.run_with(&srv.url(), &resume);
    let said = text(&second.stderr) + &text(&second.stdout);
    assert_eq!(second.status.code(), Some(0), "{said}");
    assert!(
        said.contains("6 combination(s) skipped") && said.contains("run 1"),
        "the second run says what it left to which run: {said}"
    );
    assert_eq!(srv.completions().len(), 1, "the second run sent nothing");
    open.store(true, Ordering::SeqCst);
    let out = first.wait_with_output().expect("wait for the first run");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let store = ws.store();
    assert_eq!(store.verdicts_for_run(1).unwrap().len(), 6);
    assert_eq!(store.verdicts_for_run(2).unwrap().len(), 0);
    let second_run = run_row(&ws, 2);
    assert_eq!(second_run["total"], 0, "{second_run}");
    assert_eq!(second_run["status"], "done", "{second_run}");
    // The first run's end released its claims.
    assert_eq!(store.claims_of(1).unwrap(), 0);
}

/// Claims hold only while their run lives: a run whose owner is gone holds
/// nothing (its claims are cleared), an ended run has released its own, and
/// a run that is not a `--resume` (a deliberate repeat) claims everything.
#[test]
fn claims_of_ended_or_dead_runs_hold_nothing() {
    use jury::domain::ComboKey;
    use jury::store::VerdictFilter;
    let ws = generated_workspace(1, 1);
    let mut store = ws.store();
    let keys = vec![
        ComboKey::new("a", "urgency", "classification"),
        ComboKey::new("b", "urgency", "classification"),
    ];
    let s = spec();
    let f = VerdictFilter {
        persona_id: &s.persona_id,
        protocol: s.protocol,
        mode: s.mode,
        model: &s.model,
        prompt_hash: &s.prompt_hash,
    };
    let first = store.create_run(&s, 2).unwrap();
    assert!(
        store
            .claim_combinations(first, &f, &keys, true)
            .unwrap()
            .held
            .is_empty()
    );
    let second = store.create_run(&s, 2).unwrap();
    let c = store.claim_combinations(second, &f, &keys, true).unwrap();
    assert_eq!(c.held.len(), 2);
    assert_eq!(c.by_runs, vec![first]);
    assert_eq!(store.run(second).unwrap().unwrap().total, 0);
    store
        .finish_run(second, jury::domain::RunStatus::Done, None)
        .unwrap();
    // A repeat run (no --resume) claims and judges everything.
    let repeat = store.create_run(&s, 2).unwrap();
    let c = store.claim_combinations(repeat, &f, &keys, false).unwrap();
    assert!(c.held.is_empty());
    assert_eq!(store.claims_of(repeat).unwrap(), 2);
    store
        .finish_run(
            repeat,
            jury::domain::RunStatus::Cancelled,
            Some("cancelled"),
        )
        .unwrap();
    assert_eq!(
        store.claims_of(repeat).unwrap(),
        0,
        "an ended run releases its claims"
    );
    // The first run's process is gone: its claims hold nothing.
    let conn = rusqlite::Connection::open(&ws.db).expect("open the store");
    conn.execute(
        "UPDATE runs SET owner_pid = ?2 WHERE id = ?1",
        rusqlite::params![first, dead_pid()],
    )
    .unwrap();
    drop(conn);
    let third = store.create_run(&s, 2).unwrap();
    let c = store.claim_combinations(third, &f, &keys, true).unwrap();
    assert!(c.held.is_empty(), "{c:?}");
    assert_eq!(store.claims_of(first).unwrap(), 0);
    assert_eq!(store.claims_of(third).unwrap(), 2);
}
