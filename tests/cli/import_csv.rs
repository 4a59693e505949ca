//! `jury import items.csv`: RFC 4180 CSV mapped by `--map` or a guess from
//! the headers, errors naming file, line and column with nothing written, and
//! `jury export --format csv` → `jury import` round-tripping items and
//! labels.
#![cfg(feature = "tui")]

use crate::common;

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
    // A spreadsheet's "not" is a value like "urgent" (in a JSON record
    // `selected: "not"` still means "not relevant").
    assert_eq!(
        got[1]["classifications"][0]["available"],
        json!(["not", "urgent"])
    );
    assert_eq!(got[0]["classifications"][0]["selected"], "not");
    // Each classification's values are said.
    assert!(err.contains("; urgency values: not, urgent"), "{err}");
}

/// `--map` gives a classification its description (a column, or the text
/// itself) and its full list of values: listed values nobody chose are
/// still available; a cell outside the list is refused with its line and
/// column, and --skip-invalid imports the rest.
#[test]
fn map_gives_descriptions_and_value_lists() {
    let ws = Workspace::new();
    let csv = ws.write(
        "mail.csv",
        "ID,Body,Urgent?,Why,Work?
         m1,Server down,urgent,Needs action today,work
         m2,Lunch?,not,Can wait,personal
         m3,Invoice,,Nothing chosen,work
",
    );
    let map = "id=ID,text=Body,classification:urgency=Urgent?,description:urgency=Why,               values:urgency=urgent|not|later,classification:work=Work?,               description:work=Is this about work?";
    let out = ws.run(&["import", csv.to_str().unwrap(), "--map", map]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("description:urgency=Why,description:work=Is this about work?,values:urgency=urgent|not|later"),
        "{err}"
    );
    assert!(
        err.contains("; urgency values: urgent, not, later; work values: work, personal"),
        "{err}"
    );
    let got = items(&ws);
    let urgency = &got[0]["classifications"][0];
    assert_eq!(urgency["available"], json!(["urgent", "not", "later"]));
    assert_eq!(urgency["description"], "Needs action today");
    assert_eq!(got[1]["classifications"][0]["description"], "Can wait");
    assert_eq!(
        got[0]["classifications"][1]["description"],
        "Is this about work?"
    );
    assert_eq!(got[2]["classifications"][0]["selected"], Value::Null);

    // A value the list does not have: refused, nothing imported.
    let ws = Workspace::new();
    let csv = ws.write(
        "mail.csv",
        "ID,Body,Urgent?
m1,Server down,urgent
m2,Lunch?,maybe
",
    );
    let map = "id=ID,text=Body,classification:urgency=Urgent?,values:urgency=urgent|not";
    let out = ws.run(&["import", csv.to_str().unwrap(), "--map", map]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("line 3, column 'Urgent?'")
            && err.contains(
                "'maybe' is not one of the values --map values:urgency gives (urgent|not)"
            ),
        "{err}"
    );
    assert!(err.contains("nothing was imported"), "{err}");
    let out = ws.run(&[
        "import",
        csv.to_str().unwrap(),
        "--map",
        map,
        "--skip-invalid",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(items(&ws).len(), 1);
    // A description or value list for a classification that is not read.
    let out = ws.run(&[
        "import",
        csv.to_str().unwrap(),
        "--map",
        "values:colour=red|blue",
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--map values:colour: no classification 'colour' is read"),
        "{}",
        text(&out.stderr)
    );
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

    // A quoted cell that ends the file (no newline after it) is closed.
    let last = ws.write("last.csv", "ID,Subject,Urgent?\na1,\"ok, fine\",\"yes\"");
    let out = ws.run(&[
        "import",
        last.to_str().unwrap(),
        "--map",
        map,
        "--db",
        ws.path("other.db").to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));

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
    // The same items, owners, classifications, payloads and times: the
    // CSV shows control characters as visible escapes (it is read by people
    // and spreadsheets), and import turns them back into what was written.
    let (ia, ib) = (items(&a), items(&b));
    assert_eq!(ia.len(), ib.len());
    for (x, y) in ia.iter().zip(&ib) {
        assert_eq!(x, y, "an item changed on the way");
    }
    assert!(first.contains("\\e]0;pwned"), "t-005's title is escaped");
}

/// Tricky pieces of text a random cell is made of: formula starts, a `'`
/// already there, tabs, CR, CRLF, controls, C1, bidi, long combining runs,
/// backslashes and text that looks like jury's own escapes.
const PIECES: &[&str] = &[
    "'",
    "=",
    "+",
    "-",
    "@",
    "\t",
    "\r",
    "\n",
    "\r\n",
    "\\",
    "\\e",
    "\\x07",
    "\\x",
    "\\u{85}",
    "\\u{",
    "\\\\",
    "\u{1b}",
    "\u{7}",
    "\u{1}",
    "\u{7f}",
    "\u{85}",
    "\u{9b}",
    "\u{202e}",
    "\u{feff}",
    "\u{e0041}",
    "\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}\u{301}",
    "\"",
    ",",
    " ",
    "<U+202E>",
    "é",
    "a",
    "Z",
    "0",
    "'=",
    "''",
    "\u{1b}[2J",
    "\t=",
    "{",
    "[\"x\"]",
];

fn random_text(rng: &mut jury::rng::SplitMix64, min: usize) -> String {
    let n = min + rng.below(6) as usize;
    (0..n)
        .map(|_| PIECES[rng.below(PIECES.len() as u64) as usize])
        .collect()
}

/// Property: any text in items and labels comes back exactly through
/// `export --format csv` → `import` (was: `'=already quoted` came back as
/// `=already quoted`, a tab as four spaces, CRLF as LF, `\x07` as BEL...).
#[test]
fn any_text_round_trips_through_the_csv_export() {
    let mut rng = jury::rng::SplitMix64::new(0x5eed_c5f0);
    let a = Workspace::new();
    let meta = a.write(
        "meta.json",
        json!([persona_json(), common::perspective_json()]).to_string(),
    );
    let mut items_jsonl = String::new();
    let mut labels_jsonl = String::new();
    for i in 0..60 {
        let id = format!("r-{i:03}");
        let item = json!({
            "itemId": id,
            "title": random_text(&mut rng, 0),
            "summary": random_text(&mut rng, 1),
            "tags": [random_text(&mut rng, 1), random_text(&mut rng, 0)],
            "source": {"type": random_text(&mut rng, 0), "originator": random_text(&mut rng, 0), "channel": random_text(&mut rng, 0)},
            "classifications": [{"name": "urgency", "desc": random_text(&mut rng, 0),
                "available": ["urgent", "not-urgent"], "selected": "urgent"}],
        });
        items_jsonl.push_str(&format!("{item}\n"));
        let label = json!({"itemId": id, "classificationId": "urgency", "perspectiveId": "classification",
            "personaId": "tester", "value": 1 + i % 5, "who": random_text(&mut rng, 1),
            "note": random_text(&mut rng, 0), "createdAt": "2026-01-01T00:00:00Z",
            "blind": i % 2 == 0, "replacedJudgeValue": (i % 3 == 0).then_some(5 - i % 5)});
        labels_jsonl.push_str(&format!("{label}\n"));
    }
    let items_file = a.write("items.jsonl", items_jsonl);
    let labels_file = a.write("labels.jsonl", labels_jsonl);
    a.ok(&[
        "import",
        meta.to_str().unwrap(),
        items_file.to_str().unwrap(),
        labels_file.to_str().unwrap(),
    ]);
    let first = a.ok(&["export", "--format", "csv"]);
    assert!(
        !first.contains('\u{1b}') && !first.contains('\u{85}'),
        "{first:?}"
    );
    let csv = a.write("export.csv", &first);

    let b = Workspace::new();
    let meta = b.write(
        "meta.json",
        json!([persona_json(), common::perspective_json()]).to_string(),
    );
    b.ok(&["import", meta.to_str().unwrap(), csv.to_str().unwrap()]);
    let (ia, ib) = (items(&a), items(&b));
    assert_eq!(ia.len(), 60);
    for (x, y) in ia.iter().zip(&ib) {
        assert_eq!(x, y, "an item changed on the way");
    }
    let labels = |ws: &Workspace| ws.ok(&["export", "--format", "jsonl"]);
    // A label's blind flag and the judge value it replaced travel too.
    let rows = jsonl(&labels(&a));
    assert!(
        rows.iter().any(|r| r["blind"] == true),
        "blind kept on import"
    );
    assert!(
        rows.iter().any(|r| r["replaced_judge_value"].is_number()),
        "replaced value kept"
    );
    assert_eq!(labels(&a), labels(&b));
    assert_eq!(b.ok(&["export", "--format", "csv"]), first);
}

/// The two cases the review found, by name: a `'` the text already had and
/// a tab inside a cell.
#[test]
fn a_leading_quote_and_a_tab_come_back_as_written() {
    let a = Workspace::new();
    let meta = a.write(
        "meta.json",
        json!([persona_json(), common::perspective_json()]).to_string(),
    );
    let item = json!({"itemId": "q1", "title": "'=already quoted", "summary": "a\tb\tc",
        "classifications": [{"name": "urgency", "available": ["yes", "no"], "selected": "yes"}]});
    let f = a.write("items.jsonl", format!("{item}\n"));
    a.ok(&["import", meta.to_str().unwrap(), f.to_str().unwrap()]);
    let csv = a.write("export.csv", a.ok(&["export", "--format", "csv"]));
    let b = Workspace::new();
    b.ok(&["import", csv.to_str().unwrap()]);
    let got = items(&b);
    assert_eq!(got[0]["title"], "'=already quoted");
    assert_eq!(got[0]["text"], "a\tb\tc");
}

/// Two columns under one header: which one is the id? An error naming both,
/// not a silent pick of the first.
#[test]
fn a_header_named_twice_is_an_error_naming_both_columns() {
    let ws = Workspace::new();
    let sheet = ws.write("twice.csv", "ID,Subject,ID,Urgent?\na1,ok,b1,yes\n");
    let err = refused(
        &ws,
        &[
            "import",
            sheet.to_str().unwrap(),
            "--map",
            "classification:urgency=Urgent?",
        ],
    );
    assert_eq!(
        err.trim_end(),
        format!(
            "error: {}: line 1: columns 1 and 3 are both headed 'ID': rename one so each column says what it holds\nnothing was imported",
            sheet.display()
        )
    );
    assert!(items(&ws).is_empty(), "a refused import wrote items");
}

/// An `Owner` cell naming no persona still leaves the row's `inbox:NAME`
/// tag to name its owner (was: the tag's owner was dropped).
#[test]
fn an_unknown_owner_cell_falls_back_to_the_inbox_tag() {
    let ws = Workspace::new();
    let persona = ws.write("p.json", persona_json().to_string());
    let sheet = ws.write(
        "owners.csv",
        "ID,Subject,Owner,Tags,Urgent?\n\
         o1,first,bob,inbox:tester,yes\n\
         o2,second,bob,generated,no\n\
         o3,third,tester,inbox:bob,no\n",
    );
    let out = ws.run(&[
        "import",
        persona.to_str().unwrap(),
        sheet.to_str().unwrap(),
        "--map",
        "classification:urgency=Urgent?",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let got = items(&ws);
    let owner = |id: &str| got.iter().find(|i| i["id"] == id).unwrap()["owner"].clone();
    assert_eq!(owner("o1"), "tester", "{got:?}");
    assert_eq!(owner("o2"), Value::Null);
    assert_eq!(owner("o3"), "tester");
    let err = text(&out.stderr);
    assert!(
        err.contains("note: 'bob' (owner of 2 item(s)) is no persona"),
        "{err}"
    );
}
