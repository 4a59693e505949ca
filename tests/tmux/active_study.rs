//! Issue #33's done-when on the real binary: a study on the lab data
//! (`sample-data/`), judged with token-probability confidences against the
//! test server; 60 labels given in the workbench's active order (tmux,
//! `auto_advance = "item"`: each key labels the focused row and moves on);
//! then `jury estimate` shows the active line beside PPI++ and labels
//! alone, with as many draws as the walk of `jury sample --order active`'s
//! draws over the labelled combinations gives, and `jury plan` says how
//! many more for ±0.05. On SQLite, and with `JURY_TEST_POSTGRES_URL` on
//! PostgreSQL (the draws written and read back there).
#![cfg(feature = "tui")]

use crate::forty_items::next_screen;
use crate::live::TestStore;
use crate::tui_tmux_common;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use tui_tmux_common::*;

const LABELS: usize = 60;

/// The draws the walk covers, per classification: draws 1..K of the
/// order while each picks a combination `tester` labelled (as its owner).
fn expected_draws(
    draws: &[Value],
    labelled: &HashSet<(String, String, String)>,
) -> BTreeMap<String, u64> {
    let mut out: BTreeMap<String, u64> = BTreeMap::new();
    for d in draws {
        let field = |f: &str| d[f].as_str().unwrap().to_string();
        let cls = field("classification_id");
        if !labelled.contains(&(field("item_id"), cls.clone(), field("persona_id"))) {
            break;
        }
        *out.entry(cls).or_default() += 1;
    }
    out
}

async fn sixty_labels_in_the_active_order(store: TestStore, backend: &str) {
    let server = jury::testserver::TestServer::start(|r| {
        jury::testserver::demo_judge::reply(r, std::time::Duration::ZERO)
    })
    .await
    .unwrap();
    store.jury(
        "lead",
        &[
            "import",
            concat!(env!("CARGO_MANIFEST_DIR"), "/sample-data"),
        ],
    );
    let url = server.base_url();
    let db = store.db.clone();
    // The judge's run blocks this thread; the server answers on the other.
    let ran = tokio::task::spawn_blocking({
        let args: Vec<String> = [
            "run",
            // Each item as its owner: the persona the workbench labels it as.
            "--persona",
            "owner",
            "--perspective",
            "classification",
            "--mode",
            "3",
            "--confidence",
            "logprobs",
            "--model",
            "jury-demo-judge",
            "--base-url",
            &url,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let dir = store.dir.path().to_path_buf();
        move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
                .args(&args)
                .env("JURY_DB", &db)
                .env("JURY_CONFIG", "/nonexistent/config.toml")
                .env("XDG_DATA_HOME", &dir)
                .env("JURY_USER", "lead")
                .env_remove("OPENAI_API_KEY")
                .output()
                .unwrap()
        }
    })
    .await
    .unwrap();
    assert!(
        ran.status.success(),
        "jury run: {}",
        String::from_utf8_lossy(&ran.stderr)
    );
    // The order the workbench lays out, from a shell: 4 draws a combination.
    let sampled = store.jury(
        "tester",
        &[
            "sample", "--order", "active", "--n", "2000", "--format", "jsonl",
        ],
    );
    let draws: Vec<Value> = sampled
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();

    let config = store.dir.path().join("config.toml");
    std::fs::write(&config, "auto_advance = \"item\"\n").unwrap();
    let s = Session::start_cmd(
        &format!("jury-active-{backend}-{}", std::process::id()),
        &format!(
            "exec env -u OPENAI_API_KEY XDG_DATA_HOME={} JURY_CONFIG={} JURY_USER=tester {} tui --db '{}'",
            store.dir.path().display(),
            config.display(),
            env!("CARGO_BIN_EXE_jury"),
            store.db
        ),
    );
    let mut screen = wait_for(&s.name, "the item list", |x| x.contains("items 94/94")).await;
    // `o` up to the active order; it is laid out off the UI thread.
    for _ in 0..6 {
        s.keys(&["o"]);
        screen = next_screen(&s.name, &screen).await;
    }
    screen = wait_for(&s.name, "the active order laid out", |x| {
        x.contains("active order: draw 1 next, ")
    })
    .await;
    // The first item is the first draw's; its rows show what a label is worth.
    let first = draws[0]["item_id"].as_str().unwrap();
    assert!(
        screen.contains(&format!("│{first} · ")),
        "{first}:\n{screen}"
    );
    screen = wait_for(&s.name, "what the next label is worth", |x| {
        x.contains("next label: ") && x.contains(" → ±")
    })
    .await;
    eprintln!("--- {backend}: the active order ---\n{screen}");
    // Each label moves the focus to the next draw's row.
    for _ in 0..LABELS {
        s.keys(&["4"]);
        screen = next_screen(&s.name, &screen).await;
        assert!(screen.contains(" next, "), "{screen}");
    }
    let labelled = |who: &str| -> HashSet<(String, String, String)> {
        let st = jury::store::Store::open(std::path::Path::new(&store.db)).unwrap();
        let mut out = HashSet::new();
        for id in st.labelled_item_ids().unwrap() {
            for l in st.labels_for_item(&id).unwrap() {
                if l.who == who {
                    out.insert((
                        l.key.item_id.clone(),
                        l.key.classification_id.clone(),
                        l.persona_id.clone(),
                    ));
                }
            }
        }
        out
    };
    wait_for(&s.name, "every label saved", |_| {
        labelled("tester").len() == LABELS
    })
    .await;
    // The widths followed the labels.
    screen = wait_for(&s.name, "the narrowed width", |x| x.contains("(from ±")).await;
    eprintln!("--- {backend}: after {LABELS} labels ---\n{screen}");
    s.keys(&["q"]);
    wait_gone(&s.name).await;

    let want = expected_draws(&draws, &labelled("tester"));
    let est: Value =
        serde_json::from_str(&store.jury("tester", &["estimate", "--format", "json"])).unwrap();
    let mut got: BTreeMap<String, u64> = BTreeMap::new();
    for e in est.as_array().unwrap() {
        assert!(
            e.get("ppi").is_some() && e.get("human_only").is_some(),
            "{e}"
        );
        if e["classification"] == "all classifications" || e["active"].is_null() {
            continue;
        }
        let a = &e["active"];
        let (lo, hi) = (a["ci"][0].as_f64().unwrap(), a["ci"][1].as_f64().unwrap());
        assert!(lo <= a["estimate"].as_f64().unwrap() && a["estimate"].as_f64().unwrap() <= hi);
        assert_eq!(a["n"], a["n_active"], "{a}");
        *got.entry(e["classification"].as_str().unwrap().to_string())
            .or_default() += a["n"].as_u64().unwrap();
    }
    // 60 labels on the next draw each time: at least 60 draws (a
    // combination drawn again counts again).
    assert!(want.values().sum::<u64>() >= LABELS as u64, "{want:?}");
    assert_eq!(
        got, want,
        "{backend}: the active line's draws per classification"
    );
    let n: u64 = got.values().sum();
    eprintln!("{backend}: {LABELS} labels, {n} draws of the active order: {got:?}");
    assert!(n > 0);
    let table = store.jury("tester", &["estimate"]);
    assert!(table.contains("active: "), "{table}");

    let plan: Value = serde_json::from_str(
        &store.jury("tester", &["plan", "--width", "0.05", "--format", "json"]),
    )
    .unwrap();
    let rows = plan.as_array().unwrap();
    assert!(
        rows.iter()
            .any(|r| r["active"].as_u64().is_some_and(|m| m > 0)),
        "{plan}"
    );
    let said = store.jury("tester", &["plan", "--width", "0.05"]);
    eprintln!("--- {backend}: jury plan --width 0.05 ---\n{said}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_labels_in_the_active_order_on_sqlite() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    sixty_labels_in_the_active_order(TestStore::sqlite(), "sqlite").await;
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sixty_labels_in_the_active_order_on_postgres() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping the end-to-end TUI test");
        return;
    }
    let Some(store) = TestStore::postgres() else {
        return;
    };
    sixty_labels_in_the_active_order(store, "postgres").await;
}
