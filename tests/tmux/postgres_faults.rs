//! Faults on PostgreSQL with the real workbench open (issue 32 §5): the
//! server restarted mid-session, and a workbench killed with SIGKILL
//! mid-label. Labels typed while the server is down are kept in the
//! unsaved-labels file at once (the workbench says so), and saved once,
//! on their own, when it is back; what the screen showed saved is in the
//! store once after a kill -9, and a label kept in the file is replayed
//! once at the next start. Each test runs a PostgreSQL cluster of its own
//! (`.ci/postgres.sh`), so stopping it takes no other test's server down.
//! Skips without tmux or a test PostgreSQL.
#![cfg(all(feature = "tui", feature = "postgres"))]

use super::pg_ann::{ann_labels_k001, sample_in, workbench};
use crate::tui_tmux_common;
use jury::domain::Label;
use jury::store::testing::{OwnCluster, TestDatabase};
use tui_tmux_common::*;

/// ann's labels in the store.
fn anns(db: &TestDatabase) -> Vec<Label> {
    let mut out = Vec::new();
    db.store()
        .for_each_label(|l| {
            if l.who == "ann" {
                out.push(l)
            }
        })
        .unwrap();
    out
}

/// How many times the store's history holds `l` as given (its value at
/// its instant): once, when nothing was stored twice.
fn times_stored(db: &TestDatabase, l: &Label) -> usize {
    db.store()
        .label_history(&l.key)
        .unwrap()
        .into_iter()
        .filter(|e| {
            e.slot.who == l.who && e.slot.persona_id == l.persona_id && e.created_at == l.created_at
        })
        .count()
}

/// The unsaved-labels files under `dir` (where the data directory is).
fn unsaved_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else if p.to_string_lossy().ends_with(".unsaved-labels.jsonl") {
                out.push(p);
            }
        }
    }
    out
}

/// The labels kept in the one unsaved-labels file under `dir`.
fn kept(dir: &std::path::Path) -> Vec<Label> {
    let files = unsaved_files(dir);
    assert_eq!(files.len(), 1, "{files:?}");
    let (labels, bad) = jury::tui::effects::recovery::read(&files[0]).unwrap();
    assert_eq!(bad, 0);
    labels
}

/// Every label in `labels` is in the store as given, each stored once.
fn each_stored_once(db: &TestDatabase, labels: &[Label]) {
    let stored = anns(db);
    for l in labels {
        assert!(
            stored
                .iter()
                .any(|s| s.key == l.key && s.value == l.value && s.created_at == l.created_at),
            "not in the store: {l:?}\nstored: {stored:?}"
        );
        assert_eq!(times_stored(db, l), 1, "{l:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgresql_restarted_mid_session_labels_are_kept_then_saved_once_on_their_own() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let Some(cluster) = OwnCluster::start() else {
        return;
    };
    let db = cluster.database();
    // Not made yet: the file's directory is made when a label is kept.
    let (_dir, data_home) = sample_in(&db);
    let ann = ann_labels_k001(&db, &data_home, "pg-restart").await;
    let before = anns(&db);
    assert_eq!(before.len(), 1);

    // The server goes down; two labels are typed meanwhile.
    cluster.stop();
    ann.keys(&["5"]);
    wait_for(&ann.name, "the first label kept and said so", |s| {
        s.contains("store unreachable") && s.contains("1 label(s) kept in")
    })
    .await;
    ann.keys(&["2"]);
    let screen = wait_for(&ann.name, "both labels kept", |s| {
        s.contains("2 label(s) kept in") && s.contains("2 UNSAVED")
    })
    .await;
    eprintln!("--- server down ---\n{screen}");
    let held = kept(&data_home);
    let mut values: Vec<String> = held.iter().map(|l| l.value.as_text()).collect();
    values.sort();
    assert_eq!(values, ["2", "5"], "{held:?}");

    // Back: saved without a key, once each, and the file is gone.
    cluster.start_again();
    let screen = wait_for(&ann.name, "the kept labels saved on their own", |s| {
        s.contains("2 kept label(s) saved") && !s.contains("UNSAVED")
    })
    .await;
    eprintln!("--- server back ---\n{screen}");
    assert!(!screen.contains("store unreachable"), "{screen}");
    each_stored_once(&db, &held);
    each_stored_once(&db, &before);
    assert_eq!(anns(&db).len(), 3);
    assert!(unsaved_files(&data_home).is_empty());
    ann.keys(&["q"]);
    wait_gone(&ann.name).await;
    assert_eq!(anns(&db).len(), 3);
}

/// SIGKILL to jury (the pane's process is jury itself).
fn kill_9(s: &Session) {
    // SAFETY: a plain kill(2) on the jury process this test started.
    assert_eq!(unsafe { libc::kill(s.pane_pid(), libc::SIGKILL) }, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_mid_label_keeps_what_was_saved_and_replays_the_kept_label_once() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let Some(cluster) = OwnCluster::start() else {
        return;
    };
    let db = cluster.database();
    let (_dir, data_home) = sample_in(&db);
    let name = format!("jury-pg-kill9-{}", std::process::id());

    // A label shown saved, then one typed and killed at once (its write
    // may or may not have reached the store).
    let ann = ann_labels_k001(&db, &data_home, "pg-kill9").await;
    let shown_saved = anns(&db);
    ann.keys(&["3"]);
    kill_9(&ann);
    wait_gone(&ann.name).await;
    each_stored_once(&db, &shown_saved);
    let after = anns(&db);
    assert!(after.len() <= 2, "{after:?}");
    for l in &after {
        assert_eq!(times_stored(&db, l), 1, "{l:?}");
    }

    // The server down, a label typed and kept, then kill -9.
    let ann = Session::start_cmd(&name, &workbench(&db, &data_home));
    wait_for(&ann.name, "the workbench again", |s| s.contains("│k-")).await;
    cluster.stop();
    ann.keys(&["Tab", "Tab", "1"]);
    wait_for(&ann.name, "the label kept", |s| {
        s.contains("1 label(s) kept in")
    })
    .await;
    kill_9(&ann);
    wait_gone(&ann.name).await;
    cluster.start_again();
    let held = kept(&data_home);
    assert_eq!(held.len(), 1, "{held:?}");
    let file = unsaved_files(&data_home).remove(0);
    let copy = std::fs::read(&file).unwrap();

    // The next start offers it; replayed, it is stored once.
    let ann = Session::start_cmd(&name, &workbench(&db, &data_home));
    wait_for(&ann.name, "the offer to replay", |s| {
        s.contains("could not be saved when jury last closed")
    })
    .await;
    ann.keys(&["r"]);
    wait_for(&ann.name, "the replayed label saved", |s| {
        s.contains("the recovered labels are saved")
    })
    .await;
    each_stored_once(&db, &held);
    assert!(unsaved_files(&data_home).is_empty());
    ann.keys(&["q"]);
    wait_gone(&ann.name).await;

    // A crash between the store's commit and the file's removal leaves
    // the file: the next start finds the label stored, offers nothing,
    // removes the file, and stores nothing twice.
    std::fs::write(&file, &copy).unwrap();
    let ann = Session::start_cmd(&name, &workbench(&db, &data_home));
    wait_for(&ann.name, "the workbench", |s| s.contains("│k-")).await;
    let screen = capture(&ann.name);
    assert!(
        !screen.contains("could not be saved when jury last closed"),
        "{screen}"
    );
    assert!(unsaved_files(&data_home).is_empty());
    each_stored_once(&db, &held);
    ann.keys(&["q"]);
    wait_gone(&ann.name).await;
    each_stored_once(&db, &held);
}

/// The leases others hold on `db` now, as (item, who).
fn leases(db: &TestDatabase) -> Vec<(String, String)> {
    db.store()
        .leases_of_others("nobody", &jury::store::now())
        .unwrap()
        .into_iter()
        .map(|l| (l.item_id, l.who))
        .collect()
}

fn person(db: &TestDatabase, data_home: &std::path::Path, who: &str, lease_ms: u64) -> String {
    format!(
        "exec env -u OPENAI_API_KEY XDG_DATA_HOME={} JURY_CONFIG=/nonexistent/config.toml JURY_USER={who} JURY_TEST_LEASE_MS={lease_ms} {} tui --db '{}'",
        data_home.display(),
        env!("CARGO_BIN_EXE_jury"),
        db.url
    )
}

/// A lease holder that vanishes (kill -9 of the workbench holding the
/// item open from its queue): while the lease runs the next person's queue
/// passes over the item; the lease ends by time alone (no process has to
/// be alive to end it), and the person after that opens on the item and
/// holds it. Nothing stays locked.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lease_holder_killed_loses_the_item_to_the_next_person_when_the_lease_runs_out() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let (_dir, data_home) = sample_in(&db);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
        .args([
            "assign",
            "--who",
            "alice,bob,carol",
            "--overlap",
            "3",
            "--items",
            "k-006,k-008",
        ])
        .env("JURY_DB", &db.url)
        .env("JURY_CONFIG", "/nonexistent/config.toml")
        .env("XDG_DATA_HOME", &data_home)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pid = std::process::id();

    // alice opens k-006 from her queue (a 15 s lease) and is killed.
    let alice = Session::start_cmd(
        &format!("jury-lease-alice-{pid}"),
        &person(&db, &data_home, "alice", 15_000),
    );
    wait_for(&alice.name, "alice on k-006", |s| s.contains("│k-006 · ")).await;
    let t0 = std::time::Instant::now();
    while !leases(&db).contains(&("k-006".into(), "alice".into())) {
        assert!(t0.elapsed().as_secs() < 30, "alice never leased k-006");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    kill_9(&alice);
    wait_gone(&alice.name).await;
    assert!(leases(&db).contains(&("k-006".into(), "alice".into())));

    // bob, while it runs: his queue passes over k-006.
    let bob = Session::start_cmd(
        &format!("jury-lease-bob-{pid}"),
        &person(&db, &data_home, "bob", 300_000),
    );
    let screen = wait_for(&bob.name, "bob on k-008", |s| s.contains("│k-008 · ")).await;
    eprintln!("--- bob ---\n{screen}");
    bob.keys(&["q"]);
    wait_gone(&bob.name).await;

    // The lease runs out with no one alive to end it.
    while leases(&db).iter().any(|(_, who)| who == "alice") {
        assert!(t0.elapsed().as_secs() < 120, "alice's lease never ran out");
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let carol = Session::start_cmd(
        &format!("jury-lease-carol-{pid}"),
        &person(&db, &data_home, "carol", 300_000),
    );
    wait_for(&carol.name, "carol on k-006", |s| s.contains("│k-006 · ")).await;
    let t1 = std::time::Instant::now();
    while !leases(&db).contains(&("k-006".into(), "carol".into())) {
        assert!(t1.elapsed().as_secs() < 30, "carol never leased k-006");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    carol.keys(&["q"]);
    wait_gone(&carol.name).await;
}

/// A network cut with the workbench open, through a TCP proxy between it
/// and the server (every connection closed, new ones refused, then the
/// proxy listens again): as for a restart, the label typed meanwhile is
/// kept and said so, and saved once on its own when the network is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_network_cut_keeps_the_label_and_saves_it_once_when_the_network_is_back() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let (_dir, data_home) = sample_in(&db);
    let proxy = jury::store::testing::CutProxy::to(&db);
    let cmd = format!(
        "exec env -u OPENAI_API_KEY XDG_DATA_HOME={} JURY_CONFIG=/nonexistent/config.toml JURY_USER=ann {} tui --db '{}'",
        data_home.display(),
        env!("CARGO_BIN_EXE_jury"),
        proxy.url
    );
    let ann = Session::start_cmd(&format!("jury-pg-cut-{}", std::process::id()), &cmd);
    wait_for(&ann.name, "the workbench on k-001", |s| {
        s.contains("│k-001 · ") && focused(s) == "work-pers"
    })
    .await;
    ann.keys(&["Tab", "Tab", "4"]);
    wait_for(&ann.name, "the label saved", |s| s.contains("H 4 ✓saved")).await;
    proxy.cut();
    ann.keys(&["5"]);
    wait_for(&ann.name, "the label kept while cut", |s| {
        s.contains("store unreachable") && s.contains("1 label(s) kept in")
    })
    .await;
    let held = kept(&data_home);
    assert_eq!(held.len(), 1, "{held:?}");
    proxy.mend();
    wait_for(&ann.name, "the kept label saved on its own", |s| {
        s.contains("1 kept label(s) saved") && !s.contains("UNSAVED")
    })
    .await;
    each_stored_once(&db, &held);
    assert_eq!(anns(&db).len(), 2);
    assert!(unsaved_files(&data_home).is_empty());
    ann.keys(&["q"]);
    wait_gone(&ann.name).await;
}
