//! `jury runs` lists as the workbench's runs view does: newest first, with
//! its start (UTC) and its prompt version named by folder and hash
//! (`prompts-v2 (34eb1475)`).
#![cfg(feature = "tui")]

use crate::common;

use common::SampleRun;

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn jury_runs_lists_newest_first_with_the_start_and_the_prompt_version() {
    let run = SampleRun::demo();
    let out = run.judge(None, &["--mode", "2", "--limit", "1"]);
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    let v2 = run.ws.path("prompts-v2");
    copy_dir(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/prompts")),
        &v2,
    );
    let out = run.judge(
        None,
        &[
            "--mode",
            "2",
            "--limit",
            "1",
            "--prompts",
            v2.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", common::text(&out.stderr));
    let listed = run.ws.ok(&["runs"]);
    let lines: Vec<&str> = listed.lines().collect();
    assert!(
        lines[0].contains("started (UTC)") && lines[0].contains("prompts"),
        "{listed}"
    );
    let rows: Vec<&str> = lines[1..]
        .iter()
        .copied()
        .filter(|l| l.contains(" kenton "))
        .collect();
    assert_eq!(rows.len(), 2, "{listed}");
    assert!(
        rows[0].trim_start().starts_with("2 "),
        "newest first:\n{listed}"
    );
    assert!(rows[1].trim_start().starts_with("1 "), "{listed}");
    // The second run's prompts: the folder and the hash's start.
    let json: serde_json::Value = serde_json::from_str(&run.ws.ok(&["runs", "--json"])).unwrap();
    let hash = |i: usize| json[i]["spec"]["prompt_hash"].as_str().unwrap()[..8].to_string();
    assert_eq!(json[0]["id"], 1, "--json keeps the stored order");
    assert!(
        rows[0].contains(&format!("prompts-v2 ({})", hash(1))),
        "{listed}"
    );
    assert!(
        rows[1].contains(&format!("embedded ({})", hash(0))),
        "{listed}"
    );
    // The start, as the workbench shows it: `2026-11-24 04:00`.
    let started = rows[0].split_whitespace().nth(1).unwrap();
    assert!(
        started.len() == 10 && started.as_bytes()[4] == b'-' && started.as_bytes()[7] == b'-',
        "{listed}"
    );
}
