//! Importing 100 000 items (3 classifications each) from JSONL.
//!
//! `cargo bench --bench import_100k` times the release `jury import` into a
//! fresh store three times and prints the median wall time and the peak RSS
//! (from `wait4`'s rusage). Targets: < 5 s and < 600 MB.

#[path = "common/mod.rs"]
mod common;

use std::process::Stdio;
use std::time::Duration;

const ITEMS: usize = 100_000;
const RUNS: usize = 3;

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let items = dir.path().join("items.jsonl");
    common::write_items(&items, ITEMS);
    let size = std::fs::metadata(&items).expect("size").len();
    let mut times: Vec<Duration> = Vec::new();
    let mut peaks = Vec::new();
    for i in 0..RUNS {
        let ws = dir.path().join(format!("ws{i}"));
        std::fs::create_dir_all(&ws).expect("mkdir");
        let mut cmd = common::jury_in(&ws);
        cmd.arg("import").arg(&items).stdout(Stdio::null());
        let (wall, rss_kib, code) = common::run_measured(&mut cmd);
        assert_eq!(code, 0, "import failed");
        println!(
            "run {}: {:.3} s, peak RSS {:.1} MB",
            i + 1,
            wall.as_secs_f64(),
            rss_kib as f64 / 1024.0
        );
        times.push(wall);
        peaks.push(rss_kib);
    }
    let n = common::jury_in(&dir.path().join("ws0"))
        .args(["list", "items", "--json"])
        .output()
        .expect("list");
    let listed = n.stdout.iter().filter(|b| **b == b'\n').count();
    assert_eq!(listed, ITEMS, "not every item landed");
    peaks.sort();
    println!(
        "import_100k: {ITEMS} items ({:.1} MB JSONL): median {:.3} s (target < 5 s), median peak RSS {:.1} MB (target < 600 MB)",
        size as f64 / 1e6,
        common::median(times).as_secs_f64(),
        peaks[peaks.len() / 2] as f64 / 1024.0
    );
}
