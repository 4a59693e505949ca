//! The agreement view and `jury report` on one store: the same figures,
//! group for group, counted the same way (undecided pairs included), and
//! shown beside each other on the screen.
#![cfg(feature = "tui")]

use crate::effects::{executor, next};
use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::tui::msg::{AgreementPart, Msg};

/// The sample workspace with two judges (mode 2 on Likert, mode 3 on
/// AGREE/DISAGREE) answering every labelled row, values varying by item:
/// the mode 2 judge's Likert 3 on an AGREE/DISAGREE row is undecided.
fn judged_twice(db: &std::path::Path) {
    let mut s = sample_store(db);
    for mode in [Mode::Two, Mode::Three] {
        judge_labelled(&mut s, mode, |n, _| {
            Some(match mode {
                Mode::Three if n % 3 == 0 => Value::Agreement(Agreement::Disagree),
                Mode::Three => Value::Agreement(Agreement::Agree),
                _ => Value::Likert((n * 7 % 5 + 1) as u8),
            })
        });
    }
}

/// One figures engine: the agreement view's figures are `jury report
/// --format json`'s, group for group, interval for interval (the same pairs,
/// seed and resamples), and so is its ranking `jury report --rank`'s.
#[tokio::test]
async fn the_agreement_view_and_jury_report_give_identical_figures() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    judged_twice(&db);
    let (mut exec, mut rx) = executor(&db);
    let mut app = app_with(jury::tui::load(&jury::store::Store::open(&db).unwrap()).unwrap());
    app.chrome.size = (170, 44);
    for fx in key(&mut app, 'A') {
        exec.run(fx);
    }
    let Msg::Agreement {
        part: AgreementPart::Figures(Ok(groups)),
        ..
    } = next(&mut rx).await
    else {
        panic!("no figures")
    };
    let _notes = next(&mut rx).await;
    let Msg::Agreement {
        part: AgreementPart::Ranking(ranking),
        ..
    } = next(&mut rx).await
    else {
        panic!("no ranking")
    };
    // Then the classifier's accuracy per classification, `jury estimate`'s
    // line for each, at the top of the view.
    let Msg::Agreement {
        part: AgreementPart::Estimates(lines),
        ..
    } = next(&mut rx).await
    else {
        panic!("no estimates")
    };
    assert!(
        lines.iter().any(|l| l.starts_with("urgency: ")),
        "{lines:?}"
    );
    answer_agreement(&mut app, AgreementPart::Figures(Ok(groups.clone())));
    answer_agreement(&mut app, AgreementPart::Estimates(lines.clone()));
    let s = screen(&app);
    assert!(s.contains(&lines[0][..30]), "{s}");
    let cli = |extra: &[&str]| -> serde_json::Value {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
            .args(["--db", db.to_str().unwrap(), "report", "--format", "json"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let report = cli(&[]);
    // Through text like the CLI's (serde_json's parser may round the last
    // digit of a float: both sides get the same rounding).
    let text = |v: serde_json::Value| -> serde_json::Value {
        serde_json::from_str(&v.to_string()).unwrap()
    };
    let view = text(jury::report::to_json(&groups));
    let mut compared = 0;
    for c in jury::report::pairs::Comparison::ALL {
        assert_eq!(view[c.key()], report[c.key()], "{}", c.key());
        compared += view[c.key()].as_array().map_or(0, Vec::len);
    }
    assert!(compared >= 4, "{view:#}");
    // Intervals were made, not skipped: some group has 30 pairs or more.
    assert!(
        groups.iter().any(|g| g.figures.cohen_kappa.ci95.is_some()),
        "{view:#}"
    );
    assert!(!ranking.is_empty());
    assert_eq!(
        text(serde_json::to_value(&ranking).unwrap()),
        cli(&["--rank"])
    );
    assert_eq!(report["ranking"], cli(&["--rank"]));
    // Undecided pairs (the mode 2 judge's Likert 3 on AGREE/DISAGREE rows):
    // the view counts them as the report does, and shows AC1 and PABAK
    // beside kappa.
    assert!(groups.iter().any(|g| g.undecided > 0), "{view:#}");
    let printed = {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_jury"))
            .args(["--db", db.to_str().unwrap(), "report"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let cells = loop {
        if let Msg::Agreement {
            part: AgreementPart::Cells(cells),
            ..
        } = next(&mut rx).await
        {
            break cells;
        }
    };
    answer_agreement(&mut app, AgreementPart::Cells(cells.clone()));
    let s = screen(&app);
    let header = s.lines().find(|l| l.contains("sides")).expect(&s);
    for head in ["n", "agree", "3 as .5", "kappa", "AC1", "PABAK"] {
        assert!(header.contains(&format!(" {head} ")), "{head}: {header}");
    }
    for (i, g) in groups.iter().enumerate() {
        let s = screen(&app);
        let f = &g.figures;
        let mut want = vec![
            ("AC1", "Gwet's AC1", &f.gwet_ac1),
            ("PABAK", "PABAK", &f.pabak),
        ];
        if let Some(half) = &g.agreement_undecided_half {
            want.push(("agree with 3 as 0.5", "agree, 3 as 0.5", half));
        }
        for (printed_as, shown_as, figure) in want {
            let t = jury::report::figure_text(figure);
            let line = format!("{printed_as} {t}");
            assert!(printed.contains(&line), "{line}:\n{printed}");
            let line = format!("{shown_as:<18} {t}");
            assert!(s.contains(&line), "group {i}, {line}:\n{s}");
        }
        if g.undecided > 0 {
            let n = format!("figures · n {} (+{} undecided)", f.n, g.undecided);
            assert!(s.contains(&n), "group {i}, {n}:\n{s}");
        }
        key(&mut app, 'j');
    }
    // Enter on a group lists every pair it counts, the undecided ones too.
    let (gi, g) = groups
        .iter()
        .enumerate()
        .max_by_key(|(_, g)| g.undecided)
        .unwrap();
    assert_eq!(cells[gi].len(), g.figures.n + g.undecided);
    for _ in 0..groups.len() {
        key(&mut app, 'k');
    }
    for _ in 0..gi {
        key(&mut app, 'j');
    }
    code(&mut app, crossterm::event::KeyCode::Enter);
    let label = &app.list.drill.as_ref().expect("a drilled list").label;
    let said = format!("{}+{} undecided pairs", g.figures.n, g.undecided);
    assert!(label.starts_with(&said), "{said}: {label}");
    let items: std::collections::BTreeSet<String> =
        cells[gi].iter().map(|p| p.key.item_id.clone()).collect();
    let undecided_only: Vec<&String> = items
        .iter()
        .filter(|i| {
            cells[gi]
                .iter()
                .all(|p| p.key.item_id != **i || p.cell.is_none())
        })
        .collect();
    assert!(
        !undecided_only.is_empty(),
        "an item only undecided pairs make"
    );
    assert_eq!(
        listed(&app)
            .into_iter()
            .collect::<std::collections::BTreeSet<_>>(),
        items
    );
}

/// The agreement view works on the items the list shows and says so: a
/// search that lists three items gives figures made of those three only
/// (the drill-down then lists a subset of them, never an item the list hid).
#[tokio::test]
async fn the_agreement_view_is_made_of_the_listed_items() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("j.db");
    judged_twice(&db);
    let (mut exec, mut rx) = executor(&db);
    let mut app = app_with(jury::tui::load(&jury::store::Store::open(&db).unwrap()).unwrap());
    app.chrome.size = (170, 44);
    key(&mut app, '/');
    for c in "k-00".chars() {
        key(&mut app, c);
    }
    code(&mut app, crossterm::event::KeyCode::Enter);
    let listed: std::collections::BTreeSet<String> = app
        .list
        .filtered
        .iter()
        .map(|&i| app.data.items[i as usize].id.to_string())
        .collect();
    assert!(
        !listed.is_empty() && listed.len() < app.data.items.len(),
        "{listed:?}"
    );
    let fx = key(&mut app, 'A');
    let [jury::tui::msg::Effect::LoadAgreement { scope, .. }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    let items = scope.items.as_ref().expect("the listed items");
    assert_eq!(
        items
            .iter()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>(),
        listed
    );
    let s = screen(&app);
    assert!(
        s.contains(&format!("on {} listed items", listed.len())),
        "{s}"
    );
    for fx in fx {
        exec.run(fx);
    }
    let Msg::Agreement {
        part: AgreementPart::Figures(Ok(groups)),
        ..
    } = next(&mut rx).await
    else {
        panic!("no figures")
    };
    answer_agreement(&mut app, AgreementPart::Figures(Ok(groups.clone())));
    loop {
        match next(&mut rx).await {
            Msg::Agreement {
                part: AgreementPart::Cells(cells),
                ..
            } => {
                assert_eq!(cells.len(), groups.len());
                let seen: std::collections::BTreeSet<String> = cells
                    .iter()
                    .flatten()
                    .map(|p| p.key.item_id.clone())
                    .collect();
                assert!(!seen.is_empty() && seen.is_subset(&listed), "{seen:?}");
                break;
            }
            _ => continue,
        }
    }
    // All items: a larger set of pairs than the listed ones give.
    let all = jury::report::Report::build(
        &jury::store::Store::open(&db).unwrap(),
        None,
        None,
        42,
        &mut (),
    )
    .unwrap();
    let n = |gs: &[jury::report::GroupFigures]| gs.iter().map(|g| g.figures.n).sum::<usize>();
    assert!(n(&groups) < n(&all.groups));
}
