//! `jury import items.csv` (issue 16.6): RFC 4180 CSV mapped by `--map` or a
//! guess from the headers, errors naming file, line and column with nothing
//! written, and `jury export --format csv` → `jury import` round-tripping
//! items and labels.
#![cfg(feature = "tui")]

mod common;

use common::{Workspace, jsonl, persona_json, text};
use serde_json::{Value, json};

fn items(ws: &Workspace) -> Vec<Value> {
    jsonl(&ws.ok(&["list", "items", "--json"]))
}

/// Runs an import expected to fail; returns its stderr.
fn refused(ws: &Workspace, args: &[&str]) -> String {
    let out = ws.run(args);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    text(&out.stderr)
}

const SHEET: &[u8] = b"\xEF\xBB\xBFID,Subject,Body,Urgent?,Owner,Notes\r\n\
a1,\"Hello, world\",\"Line one\r\nline \"\"two\"\"\",yes,tester,x\r\n\
a2,Second,Body two,no,,\r\n\
a3,Third,,,tester,\r\n";

#[test]
fn a_mapped_spreadsheet_imports_quoted_cells_bom_and_crlf() {
    let ws = Workspace::new();
    ws.write("p.json", persona_json().to_string());
    let csv = ws.write("items.csv", SHEET);
    let out = ws.run(&[
        "import",
        ws.path("p.json").to_str().unwrap(),
        csv.to_str().unwrap(),
        "--map",
        "id=ID,title=Subject,text=Body,classification:urgency=Urgent?",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("imported 3 items, 1 personas"),
        "{}",
        text(&out.stdout)
    );
    // The mapping used is said, with what was guessed and what was not read.
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "items.csv: read with --map id=ID,title=Subject,text=Body,classification:urgency=Urgent?,persona=Owner \
             (guessed from the headers: persona); columns not read: Notes"
        ),
        "{err}"
    );
    let got = items(&ws);
    assert_eq!(got.len(), 3);
    assert_eq!(got[0]["id"], "a1");
    assert_eq!(got[0]["title"], "Hello, world");
    assert_eq!(got[0]["text"], "Line one\r\nline \"two\"");
    assert_eq!(got[0]["owner"], "tester");
    // A classification's values are those its column holds.
    assert_eq!(
        got[0]["classifications"],
        json!([{"id": "urgency", "description": "", "available": ["yes", "no"], "selected": "yes"}])
    );
    assert_eq!(got[1]["owner"], Value::Null);
    // An empty cell is "the classifier chose nothing".
    assert_eq!(got[2]["classifications"][0]["selected"], Value::Null);
    assert_eq!(got[2]["text"], "");
}

#[test]
fn without_map_the_headers_are_guessed_and_said() {
    let ws = Workspace::new();
    let csv = ws.write(
        "mail.csv",
        "itemId,subject,body,sent,tags,classification:urgency\n\
         m1,Lunch?,Are you free at 12,2026-03-16T09:20:00Z,\"inbox:nobody;social\",not\n\
         m2,Outage,The site is down,2026-03-16T10:00:00Z,,urgent\n",
    );
    let out = ws.run(&["import", csv.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "mail.csv: read with --map id=itemId,title=subject,text=body,sent=sent,tags=tags,classification:urgency=classification:urgency \
             (guessed from the headers: id, title, text, sent, tags, classification:urgency)"
        ),
        "{err}"
    );
    // An inbox naming no persona stays a tag and is said once.
    assert!(
        err.contains("note: 'nobody' (owner of 1 item(s)) is no persona"),
        "{err}"
    );
    let got = items(&ws);
    assert_eq!(got[0]["tags"], json!(["inbox:nobody", "social"]));
    assert_eq!(got[0]["sent_text"], "2026-03-16T09:20:00Z");
    // "not" means not relevant: it is no value of the scale.
    assert_eq!(got[1]["classifications"][0]["available"], json!(["urgent"]));
}

#[test]
fn bad_csv_names_file_line_and_column_and_imports_nothing() {
    let ws = Workspace::new();
    let map = "classification:urgency=Urgent?";
    let unbalanced = ws.write(
        "unbalanced.csv",
        "ID,Subject,Body,Urgent?\na1,ok,fine,yes\na2,\"never closed,body,no\na3,x,y,no\n",
    );
    let err = refused(&ws, &["import", unbalanced.to_str().unwrap(), "--map", map]);
    assert_eq!(
        err.trim_end(),
        format!(
            "error: {}: line 3, column 'Subject': unbalanced quote: the quoted cell that starts here is never closed\nnothing was imported",
            unbalanced.display()
        )
    );

    let sheet = ws.write("items.csv", "ID,Subject,Body,Urgent?\na1,ok,fine,yes\n");
    let err = refused(
        &ws,
        &[
            "import",
            sheet.to_str().unwrap(),
            "--map",
            "text=Bdy,classification:urgency=Urgent?",
        ],
    );
    assert_eq!(
        err.trim_end(),
        format!(
            "error: {}: line 1: --map text=Bdy: no column 'Bdy' (columns: ID, Subject, Body, Urgent?)\nnothing was imported",
            sheet.display()
        )
    );

    let dup = ws.write(
        "dup.csv",
        "ID,Subject,Body,Urgent?\na1,ok,fine,yes\n\"a\nb\",multi,line,no\na1,again,twice,no\n",
    );
    let err = refused(&ws, &["import", dup.to_str().unwrap(), "--map", map]);
    // The record after a two-line cell starts on line 5.
    assert_eq!(
        err.trim_end(),
        format!(
            "error: {}: line 5, column 'ID': field 'id': duplicate id 'a1' in this file\n\
             nothing was imported (use --skip-invalid to import the valid records)",
            dup.display()
        )
    );

    let short = ws.write("short.csv", "ID,Subject,Body,Urgent?\na1,ok,yes\n");
    let err = refused(&ws, &["import", short.to_str().unwrap(), "--map", map]);
    assert!(
        err.contains("short.csv: line 2: has 3 cells, the header has 4 (a cell holding a comma must be quoted)"),
        "{err}"
    );

    let err = refused(
        &ws,
        &["import", sheet.to_str().unwrap(), "--map", "colour=Subject"],
    );
    assert!(err.contains("unknown field 'colour'"), "{err}");

    let err = refused(&ws, &["import", sheet.to_str().unwrap()]);
    assert!(
        err.contains("line 1: no classification column: an item needs one; map it with --map classification:NAME=COLUMN"),
        "{err}"
    );
    assert!(items(&ws).is_empty(), "a refused import wrote items");
}

#[test]
fn export_csv_then_import_round_trips_items_and_labels() {
    let a = Workspace::new();
    a.import_sample();
    let first = a.ok(&["export", "--format", "csv"]);
    let csv = a.write("export.csv", &first);

    let b = Workspace::new();
    let dir = common::sample_data();
    let out = b.ok(&[
        "import",
        dir.join("personas.json").to_str().unwrap(),
        dir.join("perspectives.json").to_str().unwrap(),
        csv.to_str().unwrap(),
    ]);
    assert!(
        out.contains("imported 94 items, 3 personas, 3 perspectives, 101 labels"),
        "{out}"
    );
    // The same CSV again, and the same labels.
    assert_eq!(b.ok(&["export", "--format", "csv"]), first);
    assert_eq!(
        b.ok(&["export", "--format", "jsonl"]),
        a.ok(&["export", "--format", "jsonl"])
    );
    // The same items, owners, classifications, payloads and times, except
    // that the CSV shows control characters as visible escapes (it is read
    // by people and spreadsheets), and those come back as written.
    let (ia, ib) = (items(&a), items(&b));
    assert_eq!(ia.len(), ib.len());
    let mut escaped = Vec::new();
    for (x, y) in ia.iter().zip(&ib) {
        if x != y {
            escaped.push(x["id"].as_str().unwrap().to_string());
            assert!(
                y["title"].as_str().unwrap().starts_with("\\e]0;pwned"),
                "{y}"
            );
        }
    }
    assert_eq!(escaped, ["t-005"]);
}
