//! The docs name files and tests that exist: every path docs/*.md and
//! README.md name (`src/…`, `tests/…`, and module paths such as
//! `tui/update/`) is in the tree, and every test docs/reliability.md names
//! is a function in the file its row says it is in today. Files move (split,
//! renamed); this keeps the docs from pointing at what is gone.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Top-level directories whose paths the docs name from the repository root.
const ROOTS: &[&str] = &[
    "src/",
    "tests/",
    "benches/",
    "prompts/",
    "themes/",
    "sample-data/",
    "docs/",
    ".ci/",
];

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file and directory under the roots, as repository-relative paths
/// (directories end in `/`).
fn tree() -> BTreeSet<String> {
    fn walk(dir: &Path, rel: &str, out: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = format!("{rel}{name}");
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                out.insert(format!("{path}/"));
                walk(&e.path(), &format!("{path}/"), out);
            } else {
                out.insert(path);
            }
        }
    }
    let mut out = BTreeSet::new();
    for root in ROOTS {
        let dir = repo().join(root);
        if dir.is_dir() {
            out.insert(root.to_string());
            walk(&dir, root, &mut out);
        }
    }
    out
}

fn docs() -> Vec<(String, String)> {
    let mut docs: Vec<(String, String)> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .map(|p| {
            let name = format!(
                "docs/{}",
                p.file_name().unwrap_or_default().to_string_lossy()
            );
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{name}: {e}"));
            (name, text)
        })
        .collect();
    docs.sort();
    let readme = std::fs::read_to_string(repo().join("README.md")).expect("README.md");
    docs.push(("README.md".into(), readme));
    docs
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '{' | '}' | ',' | '*')
}

/// `a/b_{1,2}.json` → `a/b_1.json`, `a/b_2.json` (one brace group).
fn expand(path: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (path.find('{'), path.find('}')) else {
        return vec![path.to_string()];
    };
    if close < open {
        return vec![path.to_string()];
    }
    path[open + 1..close]
        .split(',')
        .map(|alt| format!("{}{alt}{}", &path[..open], &path[close + 1..]))
        .collect()
}

/// Whether `path` (possibly with a `*` in its last part) names something in
/// the tree.
fn exists(tree: &BTreeSet<String>, path: &str) -> bool {
    match path.split_once('*') {
        Some((before, after)) => tree
            .iter()
            .any(|p| p.starts_with(before) && p.ends_with(after) && p.len() >= path.len() - 1),
        None => tree.contains(path) || tree.contains(&format!("{path}/")),
    }
}

/// Paths from the repository root in `line`: runs of path characters that
/// start with one of [`ROOTS`] where no path character precedes them.
fn rooted_paths(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in line.char_indices() {
        if line[..i].chars().next_back().is_some_and(is_path_char) {
            continue;
        }
        let rest = &line[i..];
        if !ROOTS.iter().any(|r| rest.starts_with(r)) {
            continue;
        }
        let end = rest.find(|c| !is_path_char(c)).unwrap_or(rest.len());
        // A sentence's full stop or comma is not part of the path.
        let p = rest[..end].trim_end_matches(['.', ',']);
        out.push(p.to_string());
    }
    out
}

/// Module paths in backticks (`tui/update/`, `engine/run/servers.rs`): a
/// path with a `/` ending in `.rs` or `/`, not from the root.
fn module_paths(line: &str) -> Vec<String> {
    line.split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| t.contains('/') && (t.ends_with(".rs") || t.ends_with('/')))
        .filter(|t| t.chars().all(is_path_char) && t.chars().any(|c| c.is_ascii_alphabetic()))
        .filter(|t| !ROOTS.iter().any(|r| t.starts_with(r)))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_path_the_docs_name_exists() {
    let tree = tree();
    let mut missing = Vec::new();
    for (doc, text) in docs() {
        for (n, line) in text.lines().enumerate() {
            for p in rooted_paths(line) {
                for p in expand(&p) {
                    if !exists(&tree, &p) {
                        missing.push(format!("{doc}:{}: {p}", n + 1));
                    }
                }
            }
            for p in module_paths(line) {
                // A module path is the end of a path in the tree.
                let tail = format!("/{p}");
                if !tree.iter().any(|t| format!("/{t}").ends_with(&tail)) {
                    missing.push(format!("{doc}:{}: {p} (as the end of a path)", n + 1));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths named but not in the tree:\n{}",
        missing.join("\n")
    );
}

/// Whether `text` defines a function `name`.
fn defines(text: &str, name: &str) -> bool {
    text.match_indices(&format!("fn {name}")).any(|(i, m)| {
        let after = text[i + m.len()..].chars().next();
        let before = text[..i].chars().next_back();
        matches!(after, Some('(' | '<'))
            && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// The backticked identifiers in a table cell (`a_test`, not `jury run`).
fn identifiers(cell: &str) -> Vec<&str> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .filter(|t| !t.is_empty())
        .filter(|t| {
            t.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
        .collect()
}

#[test]
fn every_test_reliability_md_names_is_in_the_file_its_row_names() {
    let text = std::fs::read_to_string(repo().join("docs/reliability.md")).expect("reliability.md");
    let mut wrong = Vec::new();
    let mut rows = 0;
    for (n, line) in text.lines().enumerate() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // `| tests | file |`: a leading and trailing empty cell around two.
        let [_, tests, file, _] = cells[..] else {
            continue;
        };
        if !file.ends_with(".rs") {
            continue;
        }
        let source = std::fs::read_to_string(repo().join(file)).unwrap_or_default();
        for name in identifiers(tests) {
            rows += 1;
            if !defines(&source, name) {
                wrong.push(format!(
                    "docs/reliability.md:{}: {name} not in {file}",
                    n + 1
                ));
            }
        }
    }
    assert!(
        rows > 100,
        "only {rows} named tests found: has the table's shape changed?"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_checks_find_what_is_gone() {
    // The checks themselves, on lines that name what does not exist.
    let tree = tree();
    assert_eq!(
        rooted_paths("see `src/tui/effects.rs`, and tests/core/main.rs."),
        ["src/tui/effects.rs", "tests/core/main.rs"]
    );
    assert!(!exists(&tree, "src/tui/effects.rs"));
    assert!(exists(&tree, "tests/core/main.rs"));
    assert!(exists(&tree, "themes/*.toml"));
    assert_eq!(expand("prompts/awag/schema_result_mode{1,2}.json").len(), 2);
    assert_eq!(
        module_paths("`tui/event_loop.rs` and `crate::cli`/`x`"),
        ["tui/event_loop.rs"]
    );
    let me = include_str!("docs_paths.rs");
    assert!(defines(me, "defines") && !defines(me, "define"));
    assert_eq!(
        identifiers("`a_test`, `jury run --x` (`b2`)"),
        ["a_test", "b2"]
    );
}
