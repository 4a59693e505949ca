//! Forty items labelled on the real binary in tmux, with `auto_advance` set
//! to `row` and to `item`: before each key the screen is read (the item
//! shown, the row marked `▶`), and at the end every label in the store is
//! on exactly the row the screen showed focused when its key was typed —
//! none overwrote another, none went to a row the eye was not on.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The item the item pane shows: its header `│k-001 · email · …`.
fn shown_item(screen: &str) -> Option<String> {
    screen.lines().find_map(|l| {
        l.split('│').find_map(|seg| {
            let (id, rest) = seg.split_once(' ')?;
            let b = id.as_bytes();
            (rest.starts_with("· ")
                && b.len() == 5
                && b[1] == b'-'
                && b[2..].iter().all(u8::is_ascii_digit))
            .then(|| id.to_string())
        })
    })
}

/// The ids of the sample data's first `n` items, in the list's order.
fn first_items(n: usize) -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data/items.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .take(n)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["itemId"].as_str().unwrap().to_string()
        })
        .collect()
}

/// The screen once it differs from `before` and has stopped changing.
pub(crate) async fn next_screen(s: &str, before: &str) -> String {
    let t0 = Instant::now();
    let mut last = String::new();
    loop {
        let now = capture(s);
        if now != before && now == last {
            return now;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the screen never changed after the key:\n{before}"
        );
        last = now;
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
}

/// Labels the first `n` items through in `mode`; returns the keys typed and
/// what the screen showed for each label key: (item, row) → value.
async fn label_items(
    mode: &str,
    n: usize,
) -> (
    usize,
    BTreeMap<(String, String), u8>,
    std::path::PathBuf,
    tempfile::TempDir,
) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, format!("auto_advance = \"{mode}\"\n")).unwrap();
    let db = dir.path().join("forty.db");
    let name = format!("jury-forty-{mode}-{}", std::process::id());
    let s = Session::start_with_config(&name, &db, &config);
    let mut screen = wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    // The first start's legend away.
    s.hide_legend().await;
    if screen.contains("what the marks mean") {
        screen = next_screen(&s.name, &screen).await;
    }
    let items = first_items(n);
    let mut typed: BTreeMap<(String, String), u8> = BTreeMap::new();
    let mut keys = 0;
    loop {
        let item = shown_item(&screen).unwrap_or_else(|| panic!("no item shown:\n{screen}"));
        let row = focused(&screen);
        if typed.len() == n * 5 {
            break;
        }
        assert!(
            items.contains(&item),
            "{mode}: went past the {n} items to {item}:\n{screen}"
        );
        let here = (item.clone(), row.clone());
        let key = if typed.contains_key(&here) {
            // Done with this item (row mode stays on its last row): next.
            "j".to_string()
        } else {
            let v = (typed.len() % 5 + 1) as u8;
            typed.insert(here, v);
            v.to_string()
        };
        s.keys(&[&key]);
        keys += 1;
        screen = next_screen(&s.name, &screen).await;
    }
    wait_for(&s.name, "every label saved", |_| {
        items.iter().map(|i| labels(&db, i).len()).sum::<usize>() == n * 5
    })
    .await;
    s.keys(&["q"]);
    wait_gone(&s.name).await;
    (keys, typed, db, dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forty_items_in_row_and_item_mode_every_key_lands_on_the_focused_row() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    const N: usize = 40;
    let mut keys_by_mode = Vec::new();
    for mode in ["row", "item"] {
        let (keys, typed, db, _dir) = label_items(mode, N).await;
        // Every label is where the screen's focus was, with that key's value.
        let mut stored = BTreeMap::new();
        for i in first_items(N) {
            for l in labels(&db, &i) {
                let Value::Likert(v) = l.value else {
                    panic!("{l:?}")
                };
                stored.insert(
                    (
                        l.key.item_id.to_string(),
                        l.key.classification_id.to_string(),
                    ),
                    v,
                );
            }
        }
        assert_eq!(stored, typed, "{mode}: the store against the screen");
        eprintln!(
            "auto_advance = {mode}: {keys} keys for {} labels ({:.2} per label)",
            typed.len(),
            keys as f64 / typed.len() as f64
        );
        keys_by_mode.push(keys);
    }
    // Row mode: one `j` per item after the first; item mode: none.
    assert_eq!(keys_by_mode, [N * 5 + N - 1, N * 5]);
}

use jury::domain::Value;
