//! Importing 100 000 items (3 classifications each) from JSONL.
//!
//! `cargo bench --bench import_100k` times the release `jury import` into a
//! fresh store three times and prints the median wall time and the peak RSS
//! (from `wait4`'s rusage). Targets: < 5 s and < 600 MB.
//!
//! `JURY_BENCH_MILLION=1 cargo bench --bench import_100k` measures instead
//! the peak RSS of importing 1 000 000 rows, as a spreadsheet CSV, as JSONL
//! and as one JSON array: an import streams, so memory must stay under 600 MB
//! however long the file (it held the whole file and every item before:
//! 2.1 GB for a 65 MB CSV, 1.99 GB for the JSONL).

#[path = "common/mod.rs"]
mod common;

use std::process::Stdio;
use std::time::Duration;

const ITEMS: usize = 100_000;
const RUNS: usize = 3;

fn main() {
    if std::env::var_os("JURY_BENCH_MILLION").is_some_and(|v| v != "0") {
        return million();
    }
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

const MILLION: usize = 1_000_000;
const PEAK_LIMIT_MB: f64 = 600.0;

/// 1 M small rows as CSV and as JSONL: the peak RSS of each import.
fn million() {
    use std::io::Write;
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = dir.path().join("rows.csv");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&csv).expect("create csv"));
    writeln!(w, "ID,Subject,Body,Urgent?").expect("write");
    for i in 0..MILLION {
        let urgent = if i % 3 == 0 { "no" } else { "yes" };
        writeln!(
            w,
            "r-{i:07},Subject {i} about the meeting,Body of row {i},{urgent}"
        )
        .expect("write");
    }
    w.flush().expect("flush");
    drop(w);
    let jsonl = dir.path().join("rows.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&jsonl).expect("create jsonl"));
    for i in 0..MILLION {
        let urgent = if i % 3 == 0 { "no" } else { "yes" };
        writeln!(
            w,
            r#"{{"itemId":"r-{i:07}","title":"Subject {i} about the meeting","summary":"Body of row {i}","classifications":[{{"name":"urgency","available":["yes","no"],"selected":"{urgent}"}}]}}"#
        )
        .expect("write");
    }
    w.flush().expect("flush");
    drop(w);
    // The same rows as one JSON array.
    let json = dir.path().join("rows.json");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&json).expect("create json"));
    write!(w, "[").expect("write");
    for (i, line) in std::fs::read_to_string(&jsonl)
        .expect("read jsonl")
        .lines()
        .enumerate()
    {
        write!(w, "{}{line}", if i == 0 { "" } else { ",\n" }).expect("write");
    }
    writeln!(w, "]").expect("write");
    w.flush().expect("flush");
    drop(w);
    for (name, file, extra) in [
        (
            "csv",
            &csv,
            &["--map", "classification:urgency=Urgent?"][..],
        ),
        ("jsonl", &jsonl, &[][..]),
        ("json", &json, &[][..]),
    ] {
        let ws = dir.path().join(format!("ws-{name}"));
        std::fs::create_dir_all(&ws).expect("mkdir");
        let mut cmd = common::jury_in(&ws);
        cmd.arg("import")
            .arg(file)
            .args(extra)
            .stdout(Stdio::null());
        let (wall, rss_kib, code) = common::run_measured(&mut cmd);
        assert_eq!(code, 0, "{name} import failed");
        let size = std::fs::metadata(file).expect("size").len();
        let peak = rss_kib as f64 / 1024.0;
        println!(
            "import_1m {name}: {MILLION} rows ({:.1} MB): {:.1} s, peak RSS {peak:.1} MB (limit {PEAK_LIMIT_MB} MB)",
            size as f64 / 1e6,
            wall.as_secs_f64(),
        );
        assert!(peak < PEAK_LIMIT_MB, "{name}: peak RSS {peak:.1} MB");
    }
}
