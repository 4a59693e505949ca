//! `jury estimate` and `jury trust` name the configuration the ranking puts
//! first (issue #30 §3), and `jury estimate` gives each configuration's
//! errors against people and the rate corrected for them, in text and JSON
//! (§5).

use crate::common;

fn run(db: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("jury runs");
    common::assert_success(&out, args);
    common::text(&out.stdout)
}

#[test]
fn the_summary_names_the_configuration_ranked_first_and_the_judges_errors_are_given() {
    let (_dir, db) = common::judged_by_two(60);
    let text = run(&db, &["estimate"]);
    let summary = text.split("\n\n").next().unwrap_or_default();
    assert!(
        summary.starts_with("summary (the configuration the ranking puts first"),
        "{text}"
    );
    assert!(
        summary.contains("z-model") && !summary.contains("a-model"),
        "{summary}"
    );
    assert!(
        text.contains("corrected for its errors (Rogan–Gladen)"),
        "{text}"
    );
    assert!(text.contains("at most"), "{text}");
    let chosen = run(&db, &["estimate", "--judge", "a-model"]);
    let summary = chosen.split("\n\n").next().unwrap_or_default();
    assert!(
        summary.contains("a-model") && !summary.contains("z-model"),
        "{summary}"
    );

    let json: serde_json::Value =
        serde_json::from_str(&run(&db, &["estimate", "--format", "json"])).expect("json");
    let rows = json.as_array().expect("an array");
    assert_eq!(rows.len(), 2);
    for r in rows {
        let e = &r["judge_errors"];
        assert!(e["true_positive_rate"].as_f64().is_some(), "{r}");
        assert!(e["true_negative_lower"].as_f64().is_some(), "{r}");
        assert!(e["corrected"].as_f64().is_some(), "{r}");
        assert!(e["most_worth_labels"].as_f64().is_some(), "{r}");
    }
}
