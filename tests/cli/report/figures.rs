//! The report's other figures: self-consistency between runs, the delta of
//! an edited prompt set, `--estimate` against ppi_python, and modes ranked
//! as each item's owner.

use super::*;

#[test]
fn self_consistency_counts_flips_between_runs_and_under_double_checks() {
    let ws = Workspace::new();
    ws.import_sample();
    let srv = ServerRt::demo();
    let mode2 = kenton_run("2", &["--limit", "4"]);
    // The same judge twice: a test-retest pair per combination.
    for _ in 0..2 {
        assert_success(&ws.run_with(&srv.url(), &mode2), &mode2);
    }
    let claim = [
        "run",
        "--protocol",
        "proposition",
        "--claim",
        "The item asks for a reply",
        "--double-check",
        "--items",
        "k-001,k-002,k-003",
        "--model",
        "demo",
    ];
    // Twice as well: its retest pairs and its double checks share one row.
    for _ in 0..2 {
        assert_success(&ws.run_with(&srv.url(), &claim), &claim);
    }
    let r = report_json(&ws, &[]);
    let flips = r["self_consistency"].as_array().unwrap();
    let m2 = flips
        .iter()
        .find(|f| f["judge"] == "awag mode 2 · demo")
        .unwrap();
    assert_eq!(m2["retest_pairs"], 20, "4 items × 5 classifications");
    // The demo judge is deterministic: nothing changes between runs.
    assert_eq!(m2["retest_changed"], 0);
    assert_eq!(m2["retest_flip_rate"], 0.0);
    // A share: its exact interval, never a point at n = 20.
    let ci = m2["retest_flip_ci"].as_array().expect("an interval");
    assert_eq!(ci[0], 0.0);
    assert!(ci[1].as_f64().unwrap() > 0.1, "{ci:?}");
    let p = flips
        .iter()
        .find(|f| f["judge"] == "proposition · demo")
        .unwrap();
    assert_eq!(
        flips
            .iter()
            .filter(|f| f["judge"].as_str().unwrap().ends_with("· demo")
                && f["judge"].as_str().unwrap().starts_with("proposition"))
            .count(),
        1,
        "{flips:#?}"
    );
    assert_eq!(p["retest_pairs"], 3, "3 items × 1 claim, two runs");
    assert_eq!(p["double_checked"], 6);
    let flipped = p["double_check_flipped"].as_u64().unwrap();
    assert!(flipped <= 6);
    assert_eq!(
        p["double_check_flip_rate"].as_f64().unwrap(),
        flipped as f64 / 6.0
    );
    let table = ws.ok(&["report", "--bootstrap", "0"]);
    assert!(
        table.contains("self-consistency") && table.contains("proposition · demo"),
        "{table}"
    );
}

#[test]
fn an_edited_prompt_set_shows_its_agreement_delta_per_classification() {
    let ws = Workspace::new();
    ws.import_sample();
    let srv = ServerRt::demo();
    // A copy of the default AwAg prompt set with one sentence added.
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("prompts/awag");
    let edited = ws.path("prompts-v2");
    std::fs::create_dir_all(&edited).unwrap();
    for f in std::fs::read_dir(&src).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, edited.join(f.file_name().unwrap())).unwrap();
    }
    let likert = edited.join("user_likert.txt");
    let mut text = std::fs::read_to_string(&likert).unwrap();
    text.push_str("\nWhen in doubt, prefer the middle of the scale.\n");
    std::fs::write(&likert, text).unwrap();
    let base = kenton_run("2", &["--items", "k-001,k-003,k-005"]);
    assert_success(&ws.run_with(&srv.url(), &base), &base);
    // The new version on a subset only, as the few-shot loop runs it.
    let mut v2 = kenton_run("2", &["--items", "k-001,k-003"]).to_vec();
    v2.extend(["--prompts", edited.to_str().unwrap()]);
    assert_success(&ws.run_with(&srv.url(), &v2), &v2);
    let r = report_json(&ws, &[]);
    // The two prompt versions are never pooled into one judge.
    let jh = r["judge_vs_human"].as_array().unwrap();
    assert!(
        jh.iter()
            .all(|g| g["left"].as_str().unwrap().contains(" · prompts ")),
        "{jh:?}"
    );
    let deltas = r["prompt_versions"].as_array().unwrap();
    assert!(!deltas.is_empty(), "{r:#}");
    for d in deltas {
        let vs = d["versions"].as_array().unwrap();
        assert_eq!(vs.len(), 2, "{d}");
        assert!(vs[0]["change"].is_null());
        // The second version judged a subset: its change is measured on the
        // combinations both judged only, and the demo judge, deterministic,
        // answered them alike — whatever the two versions' own n.
        let c = &vs[1]["change"];
        let paired = c["n"].as_u64().unwrap();
        assert!(paired <= vs[1]["n"].as_u64().unwrap(), "{d}");
        assert!(paired > 0, "{d}");
        assert_eq!(c["delta_agree"]["value"].as_f64(), Some(0.0), "{d}");
        assert!(
            c["delta_kappa"]["value"].is_null() || c["delta_kappa"]["value"].as_f64() == Some(0.0),
            "{d}"
        );
        // A handful of combinations: no interval, and the reason.
        assert!(c["delta_agree"]["ci95"].is_null(), "{d}");
        assert_eq!(c["delta_agree"]["no_ci"], "few_pairs", "{d}");
        assert!(d["classification"].as_str().is_some_and(|c| !c.is_empty()));
    }
    let table = ws.ok(&["report", "--bootstrap", "0"]);
    assert!(table.contains("prompt versions"), "{table}");
}

/// `jury estimate` end to end: the docs/design.md §7.10 fixture as a store holds it
/// (12 combinations a person labelled and the judge read, 30 the judge
/// alone read) gives ppi-python 0.2.3's numbers in JSON, and says in the
/// table that 12 labels take finite-sample intervals.
#[test]
fn estimate_gives_ppi_pythons_numbers_from_the_store() {
    use jury::domain::{Agreement, ComboKey, Label, Mode, Protocol, RunSpec, Value as V, Verdict};
    let ws = generated_workspace(42, 1);
    let y = [1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1];
    let yh = [1, 1, 1, 1, 1, 0, 1, 0, 1, 0, 1, 1];
    let yu = [
        1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1,
    ];
    let ag = |b: i32| {
        V::Agreement(if b == 1 {
            Agreement::Agree
        } else {
            Agreement::Disagree
        })
    };
    let mut store = ws.store();
    let spec = RunSpec {
        protocol: Protocol::Awag,
        mode: Some(Mode::Three),
        persona_id: "tester".into(),
        perspective_ids: vec!["classification".into()],
        model: "m".into(),
        prompt_hash: "h".into(),
        record: None,
    };
    let run = store.create_run(&spec, 0).unwrap();
    let cls = "work-urgent";
    let key = |i: usize| ComboKey::new(&format!("g-{i:06}"), cls, "classification");
    let verdicts: Vec<Verdict> = yh
        .iter()
        .chain(&yu)
        .enumerate()
        .map(|(i, &b)| Verdict {
            run_id: run,
            key: key(i),
            persona_id: "tester".into(),
            protocol: Protocol::Awag,
            mode: Some(Mode::Three),
            model: "m".into(),
            value: ag(b),
            text: "t".into(),
            evaluated_selection: None,
            selection_mismatch: false,
            latency_ms: 1,
            tokens: 1,
            raw: String::new(),
            created_at: "2026-11-26T00:00:00.000Z".into(),
            position: None,
            confidence: None,
            server: None,
        })
        .collect();
    store.insert_verdicts(&verdicts).unwrap();
    for (i, &b) in y.iter().enumerate() {
        store
            .upsert_label(&Label {
                key: key(i),
                persona_id: "tester".into(),
                value: ag(b),
                note: String::new(),
                who: "alice".into(),
                created_at: "2026-11-26T00:00:00Z".into(),
                replaced_judge_value: None,
                blind: false,
                tags: Vec::new(),
            })
            .unwrap();
    }
    let out: Value =
        serde_json::from_str(&ws.ok(&["estimate", "--alpha", "0.1", "--format", "json"])).unwrap();
    let e = out
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["classification"] == cls)
        .unwrap_or_else(|| panic!("{out:#}"));
    assert_eq!(
        (e["n"].as_u64(), e["N"].as_u64()),
        (Some(12), Some(30)),
        "{e:#}"
    );
    let close =
        |v: &Value, want: f64| assert!((v.as_f64().unwrap() - want).abs() < 1e-9, "{v} vs {want}");
    close(&e["ppi"]["lambda"], 0.431397306397306);
    close(&e["ppi"]["estimate"], 0.771569865319865);
    // ppi_py's normal intervals, beside the ones that hold at 12 labels.
    close(&e["ppi_normal_ci"][0], 0.591115962226891);
    close(&e["ppi_normal_ci"][1], 0.95202376841284);
    close(&e["human_only_normal_ci"][0], 0.544393296631066);
    close(&e["human_only_normal_ci"][1], 0.955606703368934);
    assert_eq!(e["ppi_method"], "betting");
    assert_eq!(e["judge"], "awag mode 3 · m");
    let table = ws.ok(&["estimate"]);
    assert!(
        table.contains("finite-sample intervals (fewer than 30 labels)"),
        "{table}"
    );
    let csv = ws.ok(&["estimate", "--format", "csv"]);
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .starts_with("classification,perspective,judge,persona,n,N,")
    );
    let bad = ws.run(&["estimate", "--alpha", "1.5"]);
    assert_eq!(bad.status.code(), Some(1), "a bad flag is fatal");
    assert!(
        text(&bad.stderr).contains("from 0.000001 to 0.5"),
        "{bad:?}"
    );
}

/// The default workflow judges each item as its owner (`--persona owner`:
/// one run per owner persona). `jury report --rank` then ranks the modes on
/// every labelled combination, each mode one configuration ("one persona per
/// item"), instead of nine configurations that share no combination.
#[test]
fn modes_judged_as_each_items_owner_are_ranked_on_every_combination() {
    let ws = Workspace::new();
    ws.import_sample();
    let srv = ServerRt::demo();
    for mode in ["1", "2", "3"] {
        let args = [
            "run",
            "--mode",
            mode,
            "--persona",
            "owner",
            "--perspective",
            "classification",
            "--model",
            "demo",
        ];
        assert_success(&ws.run_with(&srv.url(), &args), &args);
    }
    let ranking: Value =
        serde_json::from_str(&ws.ok(&["report", "--rank", "--format", "json"])).unwrap();
    let rankings = ranking.as_array().unwrap();
    assert_eq!(rankings.len(), 1, "{ranking:#}");
    let r = &rankings[0];
    let configs = r["configurations"].as_array().unwrap();
    assert_eq!(configs.len(), 3, "{ranking:#}");
    for c in configs {
        let persona = c["persona"].as_str().unwrap();
        assert!(
            persona.starts_with("one persona per item (") && persona.contains("kenton"),
            "{persona}"
        );
        assert_eq!(c["n_own"], r["n_shared"], "{ranking:#}");
    }
    assert!(r["n_shared"].as_u64().unwrap() >= 20, "{ranking:#}");
    let table = ws.ok(&["report", "--rank"]);
    assert!(
        !table.contains("no combination was judged by every configuration"),
        "{table}"
    );
    assert!(
        table.contains("awag mode 2 · demo as one persona per item (kenton, maren, tomasz)"),
        "{table}"
    );
}
