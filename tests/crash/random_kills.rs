//! Crash safety, repeated: N times, start a labelling or a judging process,
//! SIGKILL it at a seeded random moment, then check that everything it
//! reported as saved is in the store exactly once, and that finishing the
//! work (labels again, `run --resume`) leaves every label and every
//! combination exactly once. Assertions are on data only, never on timing.
//!
//! `JURY_CRASH_ITERATIONS=200 cargo test --release --test crash random_kills` runs
//! the full 200; `cargo test` runs a short version.
#![cfg(feature = "tui")]

use crate::common;

use common::{ServerRt, Workspace, generated_workspace};
use std::collections::HashMap;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Stdio};
use std::time::Duration;

const ITEMS: usize = 24;
const CLASSES: [&str; 3] = ["urgency", "work-pers", "work-logistics"];

/// xorshift64*: a seeded sequence of kill delays.
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n
    }
}

fn iterations() -> usize {
    std::env::var("JURY_CRASH_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6)
}

/// SIGKILL a whole process group (a shell loop and the jury it is running).
fn kill_group(child: &mut Child) {
    // SAFETY: plain syscall on our own child's process group.
    unsafe {
        libc::kill(-(child.id() as i32), libc::SIGKILL);
    }
    let _ = child.wait();
}

/// Every label as (item, classification) → value, counting duplicates.
fn stored_labels(ws: &Workspace) -> HashMap<(String, String), Vec<String>> {
    let mut out: HashMap<(String, String), Vec<String>> = HashMap::new();
    for r in ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "label")
    {
        out.entry((
            r["item_id"].as_str().unwrap().to_string(),
            r["classification_id"].as_str().unwrap().to_string(),
        ))
        .or_default()
        .push(r["value"].to_string());
    }
    out
}

fn labelling_round(ws: &Workspace, rng: &mut Rng, round: usize) {
    let value = 1 + round % 5;
    let todo: Vec<(String, &str)> = (0..ITEMS)
        .flat_map(|i| CLASSES.iter().map(move |c| (format!("g-{i:06}"), *c)))
        .collect();
    let script: String = todo
        .iter()
        .map(|(i, c)| format!("\"$JURY\" label {i} {c} {value} --persona tester || exit 1\n"))
        .collect();
    let mut child = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("JURY", env!("CARGO_BIN_EXE_jury"))
        .env("JURY_DB", &ws.db)
        .env("JURY_USER", "tester")
        .env("JURY_CONFIG", ws.path("no-config.toml"))
        .env("XDG_CONFIG_HOME", ws.path("xdg"))
        .process_group(0)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(rng.below(700)));
    kill_group(&mut child);
    let mut printed = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut printed)
        .unwrap();
    let stored = stored_labels(ws);
    // Every label reported as saved is there, once, with its value.
    for line in printed.lines().filter(|l| l.starts_with("labelled ")) {
        let target = line.split_whitespace().nth(1).unwrap();
        let (item, class) = target.split_once('/').unwrap();
        let values = &stored[&(item.to_string(), class.to_string())];
        assert_eq!(values, &vec![value.to_string()], "{line}");
    }
    // Finishing the round leaves every label exactly once.
    for (i, c) in &todo {
        ws.ok(&["label", i, c, &value.to_string(), "--persona", "tester"]);
    }
    let stored = stored_labels(ws);
    assert_eq!(stored.len(), todo.len());
    assert!(stored.values().all(|v| v == &vec![value.to_string()]));
}

fn judging_round(srv: &ServerRt, rng: &mut Rng) {
    let ws = generated_workspace(ITEMS, 3);
    let args = [
        "run",
        "--mode",
        "2",
        "--persona",
        "tester",
        "--perspective",
        "classification",
        "--concurrency",
        "3",
        "--batch-size",
        "4",
    ];
    let mut child = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .args(args)
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(rng.below(900)));
    kill_group(&mut child);
    let before = ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
        .count();
    let mut resume = args.to_vec();
    resume.push("--resume");
    common::assert_success(&ws.run_with(&srv.url(), &resume), &resume);
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    for r in ws
        .export_rows()
        .into_iter()
        .filter(|r| r["kind"] == "verdict")
    {
        *seen
            .entry((r["item_id"].to_string(), r["classification_id"].to_string()))
            .or_default() += 1;
    }
    assert_eq!(seen.len(), ITEMS * 3, "{before} saved before the kill");
    assert!(seen.values().all(|n| *n == 1), "a combination judged twice");
    assert_eq!(ws.store().integrity_check().unwrap(), "ok");
}

#[test]
fn kill_9_at_random_moments_loses_nothing_reported_saved_and_duplicates_nothing() {
    let n = iterations();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let srv =
        ServerRt::start(|r| jury::testserver::demo_judge::reply(r, Duration::from_millis(40)));
    let labels = generated_workspace(ITEMS, 3);
    for round in 0..n {
        if round % 2 == 0 {
            labelling_round(&labels, &mut rng, round);
        } else {
            judging_round(&srv, &mut rng);
        }
    }
    eprintln!("{n} kill -9 rounds: nothing reported as saved was lost, nothing duplicated");
}
