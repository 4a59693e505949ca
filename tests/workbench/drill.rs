//! From figure to items: Enter on a confusion-matrix cell (or a group row) of
//! the agreement view lists exactly the items of the pairs `jury::report`
//! counts there; Esc comes back, a second Esc to the full list.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use crossterm::event::KeyCode;
use jury::domain::*;
use jury::report::pairs::Comparison;
use jury::tui::app::{App, View};
use jury::tui::msg::AgreementPart;
use std::collections::BTreeSet;

/// The sample workspace with a mode 2 run (the fixture's), so the cells differ.
fn workspace() -> (tempfile::TempDir, jury::store::Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = judged_sample(&dir.path().join("j.db"));
    (dir, store)
}

fn listed(app: &App) -> BTreeSet<String> {
    app.list
        .filtered
        .iter()
        .map(|&i| app.data.items[i as usize].id.to_string())
        .collect()
}

#[test]
fn enter_on_a_cell_lists_exactly_its_pairs_items_and_esc_comes_back() {
    let (_dir, store) = workspace();
    let report = jury::report::Report::build(&store, None, Some(50), 42, &mut ()).unwrap();
    let mut app = app_with(jury::tui::load(&store).unwrap());
    app.chrome.size = (170, 44);
    let all = app.list.filtered.len();
    open_agreement_on(&mut app, &report);
    // The judge-vs-human group on the Likert scale.
    let g = report
        .groups
        .iter()
        .position(|g| g.comparison == Comparison::JudgeVsHuman && !g.mapped)
        .expect("a same-scale judge-vs-human group");
    let group = &report.groups[g];
    for _ in 0..g {
        key(&mut app, 'j');
    }
    // Into the matrix, then to the fullest cell (by the report's matrix).
    code(&mut app, KeyCode::Tab);
    let m = &group.figures.confusion_matrix;
    let (r, c) = (0..m.len())
        .flat_map(|r| (0..m.len()).map(move |c| (r, c)))
        .max_by_key(|&(r, c)| (m[r][c], std::cmp::Reverse((r, c))))
        .unwrap();
    assert!(m[r][c] > 0);
    for _ in 0..r {
        key(&mut app, 'j');
    }
    for _ in 0..c {
        code(&mut app, KeyCode::Right);
    }
    let View::Agreement(state) = &app.chrome.view else {
        panic!("not the agreement view")
    };
    assert_eq!(state.cell, Some((r, c)));
    insta::assert_snapshot!("agreement_cell_selected", screen(&app));
    // The pairs that make the cell, as the report pairs them: same judge
    // (left), person (right), scale; values in that row and column.
    let pairs = &report.pairs[&Comparison::JudgeVsHuman];
    let want: BTreeSet<String> = pairs
        .iter()
        .filter(|p| {
            *p.left == *group.left
                && *p.right == *group.right
                && p.a.scale() == group.scale
                && p.b.scale() == group.scale
                && p.a.ordinal() as usize == r
                && p.b.ordinal() as usize == c
        })
        .map(|p| p.ctx.key.item_id.clone())
        .collect();
    assert_eq!(want.len() as u64 > 0, m[r][c] > 0);
    code(&mut app, KeyCode::Enter);
    assert_eq!(app.chrome.view, View::Main);
    assert_eq!(listed(&app), want);
    let s = screen(&app);
    assert!(s.contains(&format!("by me · {} pairs: ", m[r][c])), "{s}");
    // Esc: back to the agreement view as it was (group and cell).
    code(&mut app, KeyCode::Esc);
    let View::Agreement(state) = &app.chrome.view else {
        panic!("Esc did not come back to the agreement view")
    };
    assert_eq!((state.cursor, state.cell), (g, Some((r, c))));
    // Tab back to the groups: Enter lists every item of the group.
    code(&mut app, KeyCode::Tab);
    code(&mut app, KeyCode::Enter);
    let group_items: BTreeSet<String> = pairs
        .iter()
        .filter(|p| {
            *p.left == *group.left
                && *p.right == *group.right
                && p.a.scale() == group.scale
                && p.b.scale() == group.scale
        })
        .map(|p| p.ctx.key.item_id.clone())
        .collect();
    assert_eq!(listed(&app), group_items);
    assert!(group_items.is_superset(&want));
    // Esc, Esc: the agreement view, then the full list.
    code(&mut app, KeyCode::Esc);
    assert!(matches!(app.chrome.view, View::Agreement(_)));
    code(&mut app, KeyCode::Esc);
    assert_eq!(app.chrome.view, View::Main);
    assert!(app.list.drill.is_none());
    assert_eq!(app.list.filtered.len(), all);
}

#[test]
fn the_agreement_view_says_what_each_annotator_labelled() {
    let (_dir, store) = workspace();
    let mut app = app_with(jury::tui::load(&store).unwrap());
    app.chrome.size = (170, 44);
    key(&mut app, 'A');
    let View::Agreement(state) = &app.chrome.view else {
        panic!()
    };
    let (people, of) = state.progress.clone();
    // The items a comparison can hold: judged, or labelled by someone.
    let judged = app
        .list
        .filtered
        .iter()
        .filter(|&&i| {
            app.data.marks[i as usize]
                & (jury::tui::app::mark::JUDGED | jury::tui::app::mark::LABELLED)
                != 0
        })
        .count();
    assert_eq!(of, judged);
    // The sample's two annotators, each counted by the workspace's own
    // definition (every shown row labelled).
    let names: Vec<&str> = people.iter().map(|(w, _)| w.as_str()).collect();
    assert_eq!(names, ["alice", "bob"]);
    for (who, n) in &people {
        let by_hand = app
            .list
            .filtered
            .iter()
            .map(|&i| i as usize)
            .filter(|&i| {
                app.data.marks[i] & (jury::tui::app::mark::JUDGED | jury::tui::app::mark::LABELLED)
                    != 0
            })
            .filter(|&i| app.data.labelled_by(i, who))
            .count();
        assert_eq!(*n, by_hand, "{who}");
    }
    assert!(people.iter().all(|(_, n)| *n > 0));
    let s = screen(&app);
    let line = format!(
        "judged or labelled items listed: alice {}/{of} · bob {}/{of}",
        people[0].1, people[1].1
    );
    assert!(s.contains(&line), "{s}");
}

/// A drilled item opens as its pair was judged: the group's mode (the
/// workbench was on another), and the row of the pair's classification
/// focused, so the verdict beside the label is the one the figure counted.
#[test]
fn a_drilled_item_opens_in_the_groups_mode_with_the_pairs_row_focused() {
    let (_dir, store) = workspace();
    let report = jury::report::Report::build(&store, None, Some(50), 42, &mut ()).unwrap();
    let mut app = app_with(jury::tui::load(&store).unwrap());
    app.chrome.size = (170, 44);
    app.choices.mode = Mode::One;
    open_agreement_on(&mut app, &report);
    let g = report
        .groups
        .iter()
        .position(|g| g.comparison == Comparison::JudgeVsHuman && !g.mapped)
        .expect("a same-scale judge-vs-human group");
    for _ in 0..g {
        key(&mut app, 'j');
    }
    code(&mut app, KeyCode::Enter);
    assert_eq!(app.chrome.view, View::Main);
    assert_eq!(
        app.choices.mode,
        Mode::Two,
        "the group's pairs are mode 2's"
    );
    assert!(
        app.chrome
            .message
            .as_ref()
            .is_some_and(|(_, m)| m.contains("mode 2")),
        "{:?}",
        app.chrome.message
    );
    // Each listed item: the focused row is one of the group's pairs on it.
    let cells = &report.cells()[g];
    for step in 0..app.list.filtered.len().min(5) {
        let i = app.list.current_index().unwrap();
        let item = &app.data.items[i];
        let row = &app.rows()[app.list.row];
        let cls = &item.classifications[row.classification].meta.id;
        assert!(
            cells
                .iter()
                .any(|p| *p.key.item_id == *item.id && p.key.classification_id == *cls),
            "step {step}: {} / {cls}",
            item.id
        );
        key(&mut app, 'j');
    }
}

/// A group of one prompt set opens its items with that prompt set's
/// verdicts. The workbench otherwise shows a mode's latest verdict, so a
/// later prompt set that answered otherwise would stand beside the label in
/// place of the verdict the figure counted.
#[test]
fn a_drilled_item_shows_the_verdict_of_the_groups_prompt_set() {
    let (_dir, mut store) = workspace();
    // What the first prompt set ("h") said, per combination and persona.
    let mut first = std::collections::HashMap::new();
    let mut later = Vec::new();
    let spec = RunSpec {
        prompt_hash: "z9".into(),
        ..kenton_spec(Mode::Two, "demo")
    };
    let mut existing = Vec::new();
    store.for_each_verdict(|v| existing.push(v)).unwrap();
    let run = store.create_run(&spec, 0).unwrap();
    for v in existing {
        let Value::Likert(x) = v.value else { continue };
        first.insert((v.key.clone(), v.persona_id.clone()), v.value);
        // Another value everywhere.
        let mut w = v.clone();
        w.run_id = run;
        w.value = Value::Likert(x % 5 + 1);
        later.push(w);
    }
    store.insert_verdicts(&later).unwrap();
    let report = jury::report::Report::build(&store, None, Some(50), 42, &mut ()).unwrap();
    let g = report
        .groups
        .iter()
        .position(|g| {
            g.comparison == Comparison::JudgeVsHuman && !g.mapped && g.left.ends_with("prompts h")
        })
        .expect("the first prompt set's judge-vs-human group");
    let mut app = app_with(jury::tui::load(&store).unwrap());
    app.chrome.size = (170, 44);
    open_agreement_on(&mut app, &report);
    for _ in 0..g {
        key(&mut app, 'j');
    }
    code(&mut app, KeyCode::Enter);
    assert_eq!(app.chrome.view, View::Main);
    assert!(!app.list.filtered.is_empty());
    // And it says whose verdicts they are.
    assert!(
        app.chrome
            .message
            .as_ref()
            .is_some_and(|(_, m)| m.contains("verdicts of awag mode 2 · demo · prompts h")),
        "{:?}",
        app.chrome.message
    );
    for step in 0..app.list.filtered.len().min(5) {
        let row = app.rows()[app.list.row].clone();
        let key_ = app.combo(&row).unwrap();
        let persona = app.persona_id().to_string();
        let shown = jury::tui::update::visible_judge(&app, &key_);
        assert_eq!(
            shown,
            first.get(&(key_.clone(), persona)).copied(),
            "step {step}: {key_:?} shows another prompt set's verdict"
        );
        key(&mut app, 'j');
    }
}

/// A drill opens a group in its own mode, and the marks follow it. The
/// list's filter made the items the figures were computed on; the drill
/// does not apply it again under the group's mode: with judge≠human read
/// in mode 2, a mode 3 group lists every item of its pairs, also those
/// mode 3 agreed on.
#[test]
fn a_drill_lists_every_item_of_its_pairs_whatever_the_filter_reads_in_the_groups_mode() {
    let (_dir, mut store) = workspace();
    // Mode 3 reads each row as its first label does: no ≠ there where one
    // person labelled.
    let read = std::cell::RefCell::new(BTreeSet::new());
    judge_labelled(&mut store, Mode::Three, |_, l| {
        let reading = l.value.as_agreement()?;
        let first = read
            .borrow_mut()
            .insert((l.key.clone(), l.persona_id.clone()));
        first.then_some(Value::Agreement(reading))
    });
    let mut app = app_with(jury::tui::load(&store).unwrap());
    app.chrome.size = (170, 44);
    assert_eq!(app.choices.mode, Mode::Two);
    while app.list.filter != jury::tui::app::Filter::Disagreements {
        key(&mut app, 'f');
    }
    let shown = listed(&app);
    assert!(!shown.is_empty());
    // The figures on the listed items, as the view asks for them.
    let fx = key(&mut app, 'A');
    let [jury::tui::msg::Effect::LoadAgreement { scope, .. }] = fx.as_slice() else {
        panic!("{fx:?}")
    };
    let report =
        jury::report::Report::build_in(&store, None, Some(50), 42, scope, &mut ()).unwrap();
    answer_agreement(&mut app, AgreementPart::Figures(Ok(report.groups.clone())));
    answer_agreement(&mut app, AgreementPart::Cells(report.cells()));
    let g = report
        .groups
        .iter()
        .position(|g| g.comparison == Comparison::JudgeVsHuman && g.left.starts_with("awag mode 3"))
        .expect("a mode 3 judge-vs-human group");
    let items: BTreeSet<String> = report.cells()[g]
        .iter()
        .map(|p| p.key.item_id.clone())
        .collect();
    assert!(items.is_subset(&shown));
    for _ in 0..g {
        key(&mut app, 'j');
    }
    code(&mut app, KeyCode::Enter);
    assert_eq!(app.choices.mode, Mode::Three);
    // The marks (≠, progress, the filter) read the mode now in view.
    assert_eq!(app.data.rows_for, app.row_ctx());
    assert_eq!(listed(&app), items);
    // A filter changed in the drilled list narrows it as usual: every
    // drilled item is judged in mode 3, none is unjudged.
    while app.list.filter != jury::tui::app::Filter::Unjudged {
        key(&mut app, 'f');
    }
    assert!(listed(&app).is_empty(), "{:?}", listed(&app));
    while app.list.filter != jury::tui::app::Filter::Disagreements {
        key(&mut app, 'f');
    }
    assert_eq!(listed(&app), items);
    // Esc back to the view, Esc again: the filtered list as it was.
    code(&mut app, KeyCode::Esc);
    code(&mut app, KeyCode::Esc);
    assert_eq!(app.list.filter, jury::tui::app::Filter::Disagreements);
}
