//! `jury assign`: each item to `--overlap` people, balanced and seeded,
//! stored with who assigned it and when; a re-run adds only what no one
//! holds; `--list` counts each person's assigned, labelled and left; bad
//! people, overlap and items are refused before anything is written.
#![cfg(feature = "tui")]

use crate::common;

use common::{generated_workspace, text};
use serde_json::Value;
use std::collections::HashMap;

fn loads(ws: &common::Workspace) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for a in ws.store().assignments().unwrap() {
        *m.entry(a.who).or_default() += 1;
    }
    m
}

#[test]
fn overlap_two_over_three_people_is_balanced_stored_and_not_repeated() {
    let ws = generated_workspace(7, 2);
    let args = [
        "assign",
        "--who",
        "alice,bob,carol",
        "--overlap",
        "2",
        "--seed",
        "5",
    ];
    let out = ws.ok(&args);
    assert!(
        out.contains("assigned 7 items to 2 people each: 14 assignments"),
        "{out}"
    );
    let all = ws.store().assignments().unwrap();
    assert_eq!(all.len(), 14);
    // Who ran it and when are stored with each assignment.
    assert!(all.iter().all(|a| a.assigned_by == "tester"), "{all:?}");
    assert!(
        all.iter().all(|a| a.assigned_at.starts_with("20")),
        "{all:?}"
    );
    let by_item = all.iter().fold(HashMap::<&str, usize>::new(), |mut m, a| {
        *m.entry(a.item_id.as_str()).or_default() += 1;
        m
    });
    assert!(by_item.values().all(|&n| n == 2), "{by_item:?}");
    let l = loads(&ws);
    let (lo, hi) = (l.values().min().unwrap(), l.values().max().unwrap());
    assert!(hi - lo <= 1, "{l:?}");
    // The same command again: nothing new, and said so.
    let out = ws.ok(&args);
    assert!(
        out.contains("nothing new: all 7 items chosen were assigned already"),
        "{out}"
    );
    assert_eq!(ws.store().assignments().unwrap().len(), 14);
    // A new item later: only it is assigned, to the least loaded.
    let more = ws.write("more.jsonl", format!("{}\n", common::item_json(99, 2)));
    ws.ok(&["import", more.to_str().unwrap()]);
    let out = ws.ok(&args);
    assert!(out.contains("assigned 1 items to 2 people each"), "{out}");
    assert!(
        out.contains("left 7 items as they were: someone holds them already"),
        "{out}"
    );
    let l = loads(&ws);
    assert_eq!(l.values().sum::<usize>(), 16);
    assert!(l.values().all(|&n| n == 5 || n == 6), "{l:?}");
}

#[test]
fn the_same_seed_gives_the_same_people_in_another_store() {
    let plan = |seed: &str| {
        let ws = generated_workspace(20, 1);
        ws.ok(&[
            "assign",
            "--who",
            "ann,ben,cy,di",
            "--overlap",
            "2",
            "--sample",
            "8",
            "--seed",
            seed,
        ]);
        ws.store()
            .assignments()
            .unwrap()
            .into_iter()
            .map(|a| (a.item_id, a.who))
            .collect::<Vec<_>>()
    };
    let a = plan("9");
    assert_eq!(a.len(), 16);
    assert_eq!(a, plan("9"));
}

#[test]
fn list_counts_assigned_labelled_and_left_per_person() {
    let ws = generated_workspace(3, 1);
    ws.ok(&["assign", "--who", "alice,bob", "--overlap", "2"]);
    let rows: Vec<Value> = serde_json::from_str(&ws.ok(&["assign", "--list", "--json"])).unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["left"], 3);
    ws.ok(&[
        "label",
        "g-000000",
        "urgency",
        "4",
        "--persona",
        "tester",
        "--perspective",
        "classification",
        "--who",
        "alice",
    ]);
    let out = ws.ok(&["assign", "--list"]);
    assert!(out.contains("who    assigned  labelled   left"), "{out}");
    assert!(out.contains("alice         3         1      2"), "{out}");
    assert!(out.contains("bob           3         0      3"), "{out}");
}

#[test]
fn bad_people_overlap_and_items_are_refused_and_nothing_is_written() {
    let ws = generated_workspace(2, 1);
    let cases: [(&[&str], &str); 5] = [
        (
            &["--who", "alice", "--overlap", "2"],
            "--overlap 2 needs at least 2 people, and --who names 1",
        ),
        (&["--who", "alice,,bob"], "cannot be empty or blank"),
        (&["--who", "alice,bob:x"], "'bob:x' cannot name a person"),
        (&["--who", "alice,alice"], "--who names alice twice"),
        (
            &["--who", "alice", "--items", "g-000000,nope"],
            "--items: no item 'nope' in the store",
        ),
    ];
    for (args, want) in cases {
        let out = ws.run(&[&["assign"], args].concat());
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    assert!(ws.store().assignments().unwrap().is_empty());
}
