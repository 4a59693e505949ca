//! `Report::cells`: each group's pairs as confusion-matrix cells, in the
//! groups' order, count exactly the group's matrix and its undecided pairs
//! (what the workbench's figure-to-items drill lists).

use jury::domain::*;

#[test]
fn every_groups_cells_add_up_to_its_confusion_matrix() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = jury::store::Store::open(&dir.path().join("c.db")).unwrap();
    jury::import::import_sample(&mut store, "me").unwrap();
    let spec = RunSpec {
        protocol: Protocol::Awag,
        mode: Some(Mode::Three),
        persona_id: "kenton".into(),
        perspective_ids: vec!["classification".into()],
        model: "demo".into(),
        prompt_hash: "h".into(),
        record: None,
    };
    let run = store.create_run(&spec, 0).unwrap();
    let mut ids: Vec<String> = store.labelled_item_ids().unwrap().into_iter().collect();
    ids.sort();
    let mut vs = Vec::new();
    for (n, id) in ids.iter().enumerate() {
        for l in store.labels_for_item(id).unwrap() {
            vs.push(Verdict {
                run_id: run,
                key: l.key.clone(),
                persona_id: l.persona_id.clone(),
                protocol: Protocol::Awag,
                mode: Some(Mode::Three),
                model: "demo".into(),
                value: Value::Agreement(if n % 3 == 0 {
                    Agreement::Disagree
                } else {
                    Agreement::Agree
                }),
                text: "ok".into(),
                evaluated_selection: None,
                selection_mismatch: false,
                latency_ms: 1,
                tokens: 1,
                raw: String::new(),
                created_at: "2026-11-24T00:00:00Z".into(),
                position: None,
                confidence: None,
                server: None,
            });
        }
    }
    store.insert_verdicts(&vs).unwrap();
    for by in [None, Some(jury::report::GroupBy::Classification)] {
        let report = jury::report::Report::build(&store, by, Some(20), 7, &mut ()).unwrap();
        let cells = report.cells();
        assert_eq!(cells.len(), report.groups.len());
        // Mapped (cross-scale) and same-scale groups both present.
        assert!(report.groups.iter().any(|g| g.mapped));
        assert!(report.groups.iter().any(|g| !g.mapped));
        // Some of them with undecided pairs (a Likert 3 against AGREE).
        assert!(report.groups.iter().any(|g| g.undecided > 0));
        for (g, cs) in report.groups.iter().zip(&cells) {
            let m = &g.figures.confusion_matrix;
            let mut counted = vec![vec![0u64; m.len()]; m.len()];
            let mut undecided = 0;
            for p in cs {
                match p.cell {
                    Some((row, col)) => counted[row][col] += 1,
                    None => undecided += 1,
                }
            }
            assert_eq!(&counted, m, "{} ({})", g.group, g.scale_name());
            // The undecided pairs are there too, without a cell.
            assert_eq!(undecided, g.undecided, "{}", g.group);
            assert_eq!(cs.len(), g.figures.n + g.undecided, "{}", g.group);
        }
    }
}
