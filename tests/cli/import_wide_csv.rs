//! A CSV with very many columns: read in time linear in its cells (the
//! duplicate-header check, the mapping and the classification look-ups were
//! quadratic in the columns: 16 000 columns took 3.7 s and 100 000 ran for
//! minutes), and a file past the column limit is refused, saying the limit.
//! Measured times are in docs/reliability.md; nothing here is timed, but a
//! run that does not end within a generous deadline fails rather than hangs.
#![cfg(feature = "tui")]

use crate::common;

use common::{Workspace, text};
use std::fmt::Write as _;
use std::process::Output;
use std::time::{Duration, Instant};

/// A spreadsheet of `rows` items: `id`, `text`, then `classes`
/// classification columns, then `plain` columns nothing reads.
fn sheet(rows: usize, classes: usize, plain: usize) -> String {
    let mut s = String::from("id,text");
    for c in 0..classes {
        let _ = write!(s, ",classification:c{c}");
    }
    for c in 0..plain {
        let _ = write!(s, ",col{c}");
    }
    s.push('\n');
    for r in 0..rows {
        let _ = write!(s, "w-{r},item {r}");
        for c in 0..classes + plain {
            s.push_str(if (r + c) % 2 == 0 { ",yes" } else { ",no" });
        }
        s.push('\n');
    }
    s
}

/// `jury import PATH`, failing the test if it has not ended after five
/// minutes (the quadratic reading of a 100 000-column file ran longer).
fn import(ws: &Workspace, path: &std::path::Path) -> Output {
    let mut child = ws
        .cmd()
        .args(["import", path.to_str().expect("utf-8 path")])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn jury");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > Duration::from_secs(300) {
            let _ = child.kill();
            panic!("jury import of {} did not end", path.display());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("output")
}

#[test]
fn a_file_of_100_000_columns_is_refused_naming_the_limit() {
    let ws = Workspace::new();
    let path = ws.write("wide.csv", sheet(3, 10, 100_000 - 12));
    let out = import(&ws, &path);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        err.contains("wide.csv") && err.contains("line 1"),
        "names file and line: {err}"
    );
    assert!(
        err.contains("has 100000 columns; jury reads at most 10000"),
        "{err}"
    );
}

#[test]
fn a_file_at_the_column_limit_imports_every_classification() {
    let ws = Workspace::new();
    // 10 000 columns: id, text, 4 000 classifications, 5 998 unread.
    let path = ws.write("wide.csv", sheet(4, 4_000, 5_998));
    let out = import(&ws, &path);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("imported 4 items"),
        "{}",
        text(&out.stdout)
    );
    let items = common::jsonl(&ws.ok(&["list", "items", "--json"]));
    assert_eq!(items.len(), 4);
    let n = items[0]["classifications"].as_array().map_or(0, Vec::len);
    assert_eq!(n, 4_000, "{}", items[0]);
}
