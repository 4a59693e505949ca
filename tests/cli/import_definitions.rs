//! `jury import inbox.csv --map …` says what it did with a classification's
//! definition: a warning for one without a description, and a refusal
//! (unless `--replace`) for an id an earlier import defined with another
//! description or value set, naming file, line and field, nothing written.
#![cfg(feature = "tui")]

use crate::common;

use common::{Workspace, text};

const FIRST: &str = "ID,Subject,Urgent?\na1,One,urgent\na2,Two,not\n";

fn import(
    ws: &Workspace,
    file: &str,
    body: &str,
    map: &str,
    extra: &[&str],
) -> std::process::Output {
    let csv = ws.write(file, body);
    let mut args = vec!["import", csv.to_str().unwrap(), "--map", map];
    args.extend_from_slice(extra);
    ws.run(&args)
}

#[test]
fn a_classification_without_a_description_is_imported_with_a_warning() {
    let ws = Workspace::new();
    let out = import(
        &ws,
        "inbox.csv",
        FIRST,
        "id=ID,title=Subject,classification:urgency=Urgent?",
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("warning: ")
            && err.contains("inbox.csv: classification urgency has no description")
            && err.contains("--map description:urgency="),
        "{err}"
    );
    // Given one: no warning.
    let ws = Workspace::new();
    let out = import(
        &ws,
        "inbox.csv",
        FIRST,
        "id=ID,title=Subject,classification:urgency=Urgent?,description:urgency=Is it urgent?",
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("no description"),
        "{}",
        text(&out.stderr)
    );
    // --json carries the warnings.
    let ws = Workspace::new();
    let out = import(
        &ws,
        "inbox.csv",
        FIRST,
        "id=ID,title=Subject,classification:urgency=Urgent?",
        &["--json"],
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["warnings"].as_array().map(Vec::len), Some(1), "{v}");
}

#[test]
fn a_classification_redefined_by_a_later_import_is_refused_unless_replace() {
    let ws = Workspace::new();
    let map =
        "id=ID,title=Subject,classification:urgency=Urgent?,description:urgency=Is it urgent?";
    let out = import(&ws, "first.csv", FIRST, map, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The same definition again, on new items: fine.
    let same = "ID,Subject,Urgent?\nb1,Three,not\nb2,Four,urgent\n";
    let out = import(&ws, "same.csv", same, map, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Another description: refused, nothing written.
    let other = "ID,Subject,Urgent?\nc1,Five,not\n";
    let out = import(
        &ws,
        "other.csv",
        other,
        "id=ID,title=Subject,classification:urgency=Urgent?,description:urgency=Should he act today?,values:urgency=urgent|not",
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let err = text(&out.stderr);
    assert!(
        err.contains("other.csv")
            && err.contains("line 1")
            && err.contains("classification:urgency"),
        "{err}"
    );
    assert!(
        err.contains("an earlier import defined this classification as \"Is it urgent?\"")
            && err.contains("--replace"),
        "{err}"
    );
    let listed = ws.ok(&["list", "items", "--json"]);
    assert!(!listed.contains("\"c1\""), "nothing written: {listed}");
    // Another value set (the column holds a third value): refused too.
    let three = "ID,Subject,Urgent?\nd1,Six,maybe\nd2,Seven,not\n";
    let out = import(&ws, "three.csv", three, map, &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stderr).contains("with values urgent|not"),
        "{}",
        text(&out.stderr)
    );
    // --replace: the person means it.
    let out = import(&ws, "three.csv", three, map, &["--replace"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
}
