//! Time bounds that used to be asserted in tests (no timed
//! assertions in tests; the tests named below check the results):
//! - cutting a 10 MB item and 10 000 combining marks for display
//!   (tests/reliability/input.rs::reliability_23_…, was asserted < 500 ms),
//! - importing those two items (same test, was < 20 s),
//! - `jury list items` over them, the release binary (same test, was < 10 s),
//! - `Figures::compute` over 1 000 000 pairs with the recommended resamples
//!   (tests/reference/statistics.rs::large_input_completes_with_intervals, was
//!   < 8 s in release; target 2 s, measured ≈ 0.8 s).
//!
//! `cargo bench --bench bounds` (add a name to run one). Measured 2026-11-24
//! on the shared 2-core machine: cut 34 µs, import 162 ms, list 47 ms,
//! Figures 2.4 ms (the matrix bootstrap), busy wait 402 ms.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use jury::analytics::{Figures, Xoshiro256pp, recommended_resamples};
use jury::domain::{ComboKey, Label, Scale};
use jury::sanitize::{for_display, one_line};
use jury::store::Store;
use serde_json::{Value, json};
use std::hint::black_box;
use std::path::{Path, PathBuf};

fn item(id: &str, title: &str, summary: &str) -> Value {
    json!({
        "itemId": id, "sent": "2026-03-16T07:12:00Z", "title": title, "summary": summary,
        "source": {"type": "email", "originator": "a@b.c", "channel": "mail"}, "tags": ["inbox:pa"],
        "classifications": [{"name": "c1", "desc": "Work?", "available": ["work", "not"], "selected": "work"}]
    })
}

/// The two items as a JSONL file in `dir`.
fn items_file(dir: &Path, huge: &str, zalgo: &str) -> PathBuf {
    let f = dir.join("items.jsonl");
    let body = format!(
        "{}\n{}\n",
        item("huge", "Big", huge),
        item("zalgo", zalgo, zalgo)
    );
    std::fs::write(&f, body).expect("write items");
    f
}

fn import(db: &Path, file: &Path) {
    let mut store = Store::open(db).expect("store");
    jury::import::import_paths(&mut store, &[file.to_path_buf()], false, "tester").expect("import");
}

fn bench(c: &mut Criterion) {
    let huge = "0123456789".repeat(1_000_000);
    let zalgo = format!("Z{}", "\u{0301}\u{0316}".repeat(5_000));
    c.bench_function("cut_10mb_and_10k_marks_for_display", |b| {
        b.iter(|| {
            black_box(for_display(black_box(&huge), 2_000));
            black_box(for_display(black_box(&zalgo), 100_000));
            black_box(one_line(black_box(&zalgo), 80));
        })
    });

    let dir = tempfile::tempdir().expect("tempdir");
    let file = items_file(dir.path(), &huge, &zalgo);
    c.bench_function("import_10mb_item_and_10k_marks", |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("tempdir"),
            |store_dir| import(&store_dir.path().join("jury.db"), &file),
            BatchSize::PerIteration,
        )
    });

    let db = dir.path().join("jury.db");
    import(&db, &file);
    c.bench_function("list_items_10mb_item_release_binary", |b| {
        b.iter(|| {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
                .args(["list", "items"])
                .env("JURY_DB", &db)
                .env("JURY_CONFIG", dir.path().join("no-config.toml"))
                .output()
                .expect("jury list items");
            assert!(out.status.success());
        })
    });

    let other = rusqlite::Connection::open(&db).expect("second connection");
    other
        .execute_batch("BEGIN IMMEDIATE; UPDATE items SET title = title;")
        .expect("lock");
    let mut store = Store::open(&db).expect("store");
    store
        .set_busy_timeout(std::time::Duration::from_millis(400))
        .expect("timeout");
    let label = Label {
        key: ComboKey::new("huge", "c1", "classification"),
        persona_id: "pa".into(),
        value: Scale::Likert.parse("3").expect("likert"),
        note: String::new(),
        who: "bench".into(),
        created_at: jury::store::now(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    };
    c.bench_function("busy_label_400ms_timeout", |b| {
        b.iter(|| {
            let e = store.upsert_label(&label).expect_err("busy");
            assert!(matches!(
                e,
                jury::store::StoreError::Busy { waited_ms: 400 }
            ));
        })
    });
    other.execute_batch("COMMIT").expect("release");
    drop(store);

    let n = 1_000_000usize;
    let mut rng = Xoshiro256pp::seed_from_u64(5);
    let pairs: Vec<(u8, u8)> = (0..n)
        .map(|_| {
            let a = rng.below(5) as u8;
            let b = if rng.below(10) < 7 {
                a
            } else {
                rng.below(5) as u8
            };
            (a, b)
        })
        .collect();
    let resamples = recommended_resamples(n);
    c.bench_function("figures_1m_pairs_recommended_resamples", |b| {
        b.iter(|| Figures::compute(black_box(&pairs), 5, true, resamples, 9).expect("figures"))
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(5));
    targets = bench
}
criterion_main!(benches);
