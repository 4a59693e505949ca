//! Resident memory of the workbench state with 100 000 items. Prints VmRSS
//! (Linux) before and after; the target is < 300 MB for the state.
#![cfg(feature = "tui")]

use jury::domain::*;
use jury::tui::app::{App, Loaded};
use jury::tui::input::keymap::Keymap;
use jury::tui::theme::Theme;

fn rss_kb() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn items(n: usize) -> impl Iterator<Item = Item> {
    let cls = |id: &str, avail: &[&str], sel: &str| Classification {
        id: id.into(),
        description: format!("Is this item about {id}? One sentence the classifier was given."),
        available: avail.iter().map(|s| s.to_string()).collect(),
        selected: Some(sel.into()),
    };
    (0..n)
        .map(move |i| Item {
            id: format!("item-{i:06}"),
            sent_text: Some("2026-03-16T07:12:00Z".into()),
            sent_ms: Some(1_773_645_120_000),
            title: format!("Message {i}: stock-out on BM-440 kettles, stores escalating"),
            // ~480 bytes of text, about the size of the sample items.
            text: "Kenton, 38 of our stores have had no BM-440 kettles on the shelf since Friday and the spring promotion starts on Thursday. Please ring me as soon as you land. ".repeat(3),
            source: Source { kind: "email".into(), originator: "Priya Nair <priya@example.com>".into(), channel: "work-mail".into() },
            tags: vec!["inbox:kenton".into(), "source:email".into()],
            classifications: vec![
                cls("work-pers", &["work", "personal"], "work"),
                cls("urgency", &["urgent", "not"], "not"),
                cls("work-logistics", &["logistics", "not"], "not"),
                cls("football", &["football", "not"], "not"),
                cls("interested", &["work", "personal", "not"], "work"),
            ],
            ..Default::default()
        })
}

/// Set in the process that measures (see `measured_alone`).
const ALONE: &str = "JURY_MEMORY_TEST_ALONE";

/// Resident memory is the whole process's, and the crate's other tests run
/// beside this one: the measurement runs in a process of its own, this test
/// binary again with only `test`. True in that process, where the caller
/// measures; elsewhere it runs that process and asserts that it passed.
fn measured_alone(test: &str) -> bool {
    if std::env::var_os(ALONE).is_some() {
        return true;
    }
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    let name = format!("{module}::{test}");
    let out = std::process::Command::new(std::env::current_exe().expect("the test binary"))
        .args([
            name.as_str(),
            "--exact",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(ALONE, "1")
        .output()
        .expect("run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprint!("{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success() && stdout.contains(" 1 passed"),
        "{name} in a process of its own:\n{stdout}"
    );
    false
}

#[test]
fn state_with_100k_items_fits_in_300_mb() {
    if !measured_alone("state_with_100k_items_fits_in_300_mb") {
        return;
    }
    let Some(before) = rss_kb() else {
        eprintln!("no /proc/self/status: skipped");
        return;
    };
    // Items arrive one at a time, as a streaming store read gives them.
    let after_items = before;
    let t = std::time::Instant::now();
    let app = App::with_items(
        items(100_000),
        Loaded::default(),
        Keymap::default_map(),
        Theme::builtin("dark"),
        "m",
        "me",
    );
    let build = t.elapsed();
    let after = rss_kb().unwrap_or(0);
    let state_mb = (after.saturating_sub(before)) as f64 / 1024.0;
    eprintln!(
        "VmRSS: before {:.1} MB ({:.1}), App built {:.1} MB; state ≈ {state_mb:.1} MB; App::with_items took {build:?}; {} listed",
        before as f64 / 1024.0,
        after_items as f64 / 1024.0,
        after as f64 / 1024.0,
        app.list.filtered.len()
    );
    assert_eq!(app.list.filtered.len(), 100_000);
    assert!(state_mb < 300.0, "state takes {state_mb:.1} MB");
}

#[test]
fn the_streamed_item_read_gives_every_item_in_order_with_its_classifications() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    let mut store = jury::store::Store::open(&db).unwrap();
    jury::import::import_sample(&mut store, "me").unwrap();
    let bulk = store.items().unwrap();
    drop(store);
    let (rx, reader) = jury::tui::stream_items(&db);
    let streamed: Vec<Item> = rx.into_iter().collect();
    reader.join().unwrap().unwrap();
    assert_eq!(streamed.len(), 94);
    assert_eq!(streamed, bulk);
    assert!(
        streamed
            .iter()
            .filter(|i| i.kind.is_empty())
            .all(|i| !i.classifications.is_empty())
    );
}
