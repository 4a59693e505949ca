//! Issue 32's "done when", on the real binary: three people, each their own
//! PostgreSQL role (dana and eli annotate, fay adjudicates), label one study
//! in three workbenches open at once, each item assigned to two of them.
//! Each sees the other's labels on a shared item only after their own;
//! the adjudication queue holds exactly the item they disagree on; only
//! the adjudicator may settle it; `jury report` gives the people's
//! agreement from all three. Skips without a test PostgreSQL.
#![cfg(all(feature = "tui", feature = "postgres"))]

use crate::tui_tmux_common;
use jury::store::testing::{TestDatabase, TestRole};
use std::collections::BTreeSet;
use tui_tmux_common::*;

const ITEMS: [&str; 3] = ["k-006", "k-008", "k-015"];

/// `jury ARGS` on `url` (the owner's or a role's); (success, stdout, stderr).
fn jury(url: &str, dir: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
        .args(args)
        .env("JURY_DB", url)
        .env("JURY_CONFIG", "/nonexistent/config.toml")
        .env("XDG_DATA_HOME", dir)
        .env_remove("JURY_USER")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn workbench(role: &TestRole, dir: &std::path::Path) -> String {
    format!(
        "exec env -u OPENAI_API_KEY -u JURY_USER XDG_DATA_HOME={} JURY_CONFIG=/nonexistent/config.toml {} tui --db '{}'",
        dir.display(),
        env!("CARGO_BIN_EXE_jury"),
        role.url
    )
}

/// The study's items assigned to `who`, in the list's order.
fn items_of(db: &TestDatabase, who: &str) -> Vec<&'static str> {
    let mine = db.store().assigned_to(who).unwrap();
    ITEMS.into_iter().filter(|i| mine.contains(*i)).collect()
}

/// `who`'s labels on the study's items: (item, classification, value).
fn labels_of(db: &TestDatabase, who: &str) -> BTreeSet<(String, String, String)> {
    let store = db.store();
    ITEMS
        .iter()
        .flat_map(|i| store.labels_for_item(i).unwrap())
        .filter(|l| l.who == who)
        .map(|l| {
            (
                l.key.item_id.clone(),
                l.key.classification_id.clone(),
                format!("{:?}", l.value),
            )
        })
        .collect()
}

/// Labels every row of each of `person`'s items in their open workbench
/// with `value_on(item)`. On an item someone labelled before, their label
/// is hidden until this person's own, and shown after it.
async fn label_my_queue(
    session: &Session,
    person: &TestRole,
    labelled_before: &[&TestRole],
    db: &TestDatabase,
    value_on: impl Fn(&str) -> &'static str,
) {
    for item in items_of(db, &person.name) {
        let screen = wait_for(&session.name, &format!("{item} open from the queue"), |s| {
            s.contains(&format!("│{item} · ")) && s.contains("assigned to you")
        })
        .await;
        let earlier: Vec<&&TestRole> = labelled_before
            .iter()
            .filter(|r| items_of(db, &r.name).contains(&item))
            .collect();
        assert!(
            !screen.contains("others:"),
            "another person's label on {item} shows before {} labelled:\n{screen}",
            person.name
        );
        let value = value_on(item);
        // Four rows first: the item stays on screen (the fifth label moves
        // on to the next item), and the others' labels show on those rows.
        for _ in 0..4 {
            session.keys(&[value]);
        }
        if let Some(first) = earlier.first() {
            // The role's name is long: its end names the person.
            let tail = first.name.rsplit('_').next().unwrap().to_string();
            let screen = wait_for(&session.name, "the earlier label after one's own", |s| {
                s.contains("others: ") && s.contains(&tail)
            })
            .await;
            eprintln!(
                "--- {} on {item} after labelling ---\n{screen}",
                person.name
            );
        }
        session.keys(&[value]);
        wait_for(
            &session.name,
            &format!("{}'s labels on {item} stored", person.name),
            |_| {
                labels_of(db, &person.name)
                    .iter()
                    .filter(|(i, _, _)| i == item)
                    .count()
                    == 5
            },
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_roles_label_one_study_and_the_adjudicator_settles_their_disagreement() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let Some(db) = TestDatabase::create() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    drop(db.store()); // the owner migrates: the team's group roles exist from here
    let dana = db.login_role("dana", &["jury_annotator"]);
    let eli = db.login_role("eli", &["jury_annotator"]);
    let fay = db.login_role("fay", &["jury_adjudicator"]);
    let owner = |args: &[&str]| {
        let (ok, out, err) = jury(&db.url, dir.path(), args);
        assert!(ok, "{args:?}: {err}");
        out
    };
    owner(&[
        "import",
        concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data"),
    ]);
    let who = format!("{},{},{}", dana.name, eli.name, fay.name);
    let said = owner(&[
        "assign",
        "--who",
        &who,
        "--overlap",
        "2",
        "--items",
        &ITEMS.join(","),
    ]);
    assert!(said.contains("assigned 3 items to 2 people each"), "{said}");

    // Each opens their workbench as their own role when they start, and
    // leaves it open while the next one labels (an item open in a queue is
    // leased: opened all at once, each would wait for the others' items).
    let pid = std::process::id();
    let open = |r: &TestRole| {
        let person = r.name.rsplit('_').next().unwrap();
        Session::start_cmd(
            &format!("jury-team-{person}-{pid}"),
            &workbench(r, dir.path()),
        )
    };
    // dana and fay answer 4 everywhere; eli answers 1 on his second item:
    // the one item two people disagree on.
    let eli_items = items_of(&db, &eli.name);
    let disputed = eli_items[1];
    let mut sessions = Vec::new();
    for (person, before) in [
        (&dana, vec![]),
        (&eli, vec![&dana]),
        (&fay, vec![&dana, &eli]),
    ] {
        let s = open(person);
        wait_for(&s.name, "a workbench on its queue", |x| {
            x.contains("0 of 2 assigned done · 2 left")
        })
        .await;
        // To the verdicts pane, where value keys label the focused row.
        s.keys(&["Tab", "Tab"]);
        label_my_queue(&s, person, &before, &db, |item| {
            if person.name == eli.name && item == disputed {
                "1"
            } else {
                "4"
            }
        })
        .await;
        sessions.push(s);
    }
    for s in &sessions {
        s.keys(&["q"]);
        wait_gone(&s.name).await;
    }
    // Each label under the role that wrote it, none under another name.
    for r in [&dana, &eli, &fay] {
        assert_eq!(labels_of(&db, &r.name).len(), 10, "{}", r.name);
    }

    // The queue: exactly the disputed item among the study's.
    let (ok, listed, err) = jury(&fay.url, dir.path(), &["adjudicate", "--list", "--json"]);
    assert!(ok, "{err}");
    let queue: Vec<serde_json::Value> = serde_json::from_str(&listed).unwrap();
    let ours: BTreeSet<&str> = queue
        .iter()
        .filter_map(|c| c["item_id"].as_str())
        .filter(|i| ITEMS.contains(i))
        .collect();
    assert_eq!(ours, BTreeSet::from([disputed]), "{listed}");

    // Only the adjudicator settles it.
    let args = [
        "adjudicate",
        disputed,
        "urgency",
        "4",
        "--persona",
        "kenton",
    ];
    let (ok, _, err) = jury(&dana.url, dir.path(), &args);
    assert!(!ok, "an annotator adjudicated");
    assert!(err.contains("jury_adjudicator"), "{err}");
    let (ok, out, err) = jury(&fay.url, dir.path(), &args);
    assert!(ok, "{err}");
    assert!(out.contains(&format!("by {}", fay.name)), "{out}");

    // The people's agreement from all three.
    let report = owner(&["report"]);
    let line = report
        .lines()
        .find(|l| l.contains("work-pers (likert): Fleiss"))
        .unwrap_or_else(|| panic!("no people's agreement for work-pers:\n{report}"));
    let at = report.find(line).unwrap();
    let block = &report[at..(at + 1200).min(report.len())];
    for r in [&dana, &eli, &fay] {
        assert!(block.contains(&r.name), "{} missing:\n{block}", r.name);
    }
}
