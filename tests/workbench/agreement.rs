//! The agreement view on the real figures: opening it asks for them (off the
//! UI thread), the answer fills a table of every comparison, and the selected
//! group's confusion matrix and distributions are drawn.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::report::pairs::Comparison;
use jury::tui::app::{FiguresState, View};
use jury::tui::msg::{AgreementPart, Effect};

/// Sample data with a mode 2 run whose values are known, in a real store.
fn figures() -> Vec<jury::report::GroupFigures> {
    let dir = tempfile::tempdir().unwrap();
    let mut store = sample_store(&dir.path().join("j.db"));
    judge_labelled(&mut store, Mode::Two, |_, l| {
        (l.key.item_id == "k-001").then_some(Value::Likert(4))
    });
    jury::report::compute(&store, None, Some(50), 1).unwrap()
}

#[test]
fn opening_asks_for_the_figures_and_the_answer_draws_table_matrix_and_chart() {
    let mut app = app();
    app.chrome.size = (170, 44);
    let fx = key(&mut app, 'A');
    assert!(
        fx.iter().any(|e| matches!(
            e,
            Effect::LoadAgreement {
                scope: jury::report::Scope {
                    side: None,
                    items: None,
                    estimates: true,
                    ..
                },
                ..
            }
        )),
        "{fx:?}"
    );
    assert!(screen(&app).contains("computing the figures"));
    let groups = figures();
    let jh = groups
        .iter()
        .position(|g| g.comparison == Comparison::JudgeVsHuman)
        .expect("a judge-vs-human group");
    answer_agreement(&mut app, AgreementPart::Figures(Ok(groups.clone())));
    let View::Agreement(state) = &app.chrome.view else {
        panic!("not the agreement view")
    };
    assert!(matches!(&state.figures, FiguresState::Ready(g) if g.len() == groups.len()));
    let s = screen(&app);
    assert!(
        s.contains("judge·human") && s.contains("human·human"),
        "{s}"
    );
    assert!(s.contains("confusion: rows"), "{s}");
    assert!(s.contains("distribution"), "{s}");
    // j moves the selection to the next group; it stops at the last.
    for _ in 0..jh {
        key(&mut app, 'j');
    }
    let View::Agreement(state) = &app.chrome.view else {
        panic!()
    };
    assert_eq!(state.cursor, jh);
    let s = screen(&app);
    assert!(s.contains("awag mode 2 · demo"), "{s}");
    // The selected group's every figure, with its interval.
    assert!(s.contains("figures · n"), "{s}");
    assert!(
        s.contains("Cohen's kappa") && s.contains("Krippendorff"),
        "{s}"
    );
    assert!(s.contains("accuracy (judge)"), "{s}");
    assert!(s.contains("resamples"), "{s}");
    // The next group is on the Likert scale: the ordinal figures join in.
    key(&mut app, 'j');
    let s = screen(&app);
    assert!(
        s.contains("kappa (quadratic)") && s.contains("Spearman") && s.contains("within one"),
        "{s}"
    );
    // The matrix keeps its right-aligned header (category names over columns).
    assert!(s.contains("        1     2     3     4     5"), "{s}");
    for _ in 0..groups.len() + 3 {
        key(&mut app, 'j');
    }
    let View::Agreement(state) = &app.chrome.view else {
        panic!()
    };
    assert_eq!(state.cursor, groups.len() - 1);
}

#[test]
fn an_error_is_shown_with_the_quick_counts() {
    let mut app = app();
    key(&mut app, 'A');
    answer_agreement(
        &mut app,
        AgreementPart::Figures(Err("database is locked".into())),
    );
    let s = screen(&app);
    assert!(
        s.contains("could not be computed: database is locked"),
        "{s}"
    );
}

#[test]
fn self_consistency_and_position_bias_show_below_the_table() {
    let mut app = app();
    app.chrome.size = (170, 44);
    key(&mut app, 'A');
    answer_agreement(&mut app, AgreementPart::Figures(Ok(figures())));
    let series = jury::report::pairs::PositionSeries {
        judge: "awag mode 1 · demo".into(),
        placed: vec![(0.0, Value::Likert(5)), (1.0, Value::Likert(2))],
        repeats: vec![vec![(0.0, Value::Likert(5)), (1.0, Value::Likert(2))]],
    };
    let rows = jury::report::position::position_bias(&[series], Some(100), 1);
    let notes = jury::report::position::table(&rows);
    answer_agreement(&mut app, AgreementPart::Notes(notes));
    let s = screen(&app);
    assert!(s.contains("position bias"), "{s}");
    assert!(s.contains("awag mode 1 · demo"), "{s}");
    assert!(s.contains("-3.00"), "{s}");
    // The group table still shows above them.
    assert!(s.contains("judge·human"), "{s}");
}

/// The held-out split in the agreement view: `t` asks for the figures on the
/// held-out test side, then on train, then on all pairs again, and the title
/// says which; elsewhere it only explains.
#[test]
fn the_split_key_cycles_all_test_train_and_asks_for_those_figures() {
    let mut app = app();
    app.chrome.size = (170, 44);
    let fx = key(&mut app, 't');
    assert!(fx.is_empty(), "outside the agreement view: {fx:?}");
    assert!(
        app.chrome
            .message
            .as_ref()
            .is_some_and(|(_, m)| m.contains("agreement view")),
        "{:?}",
        app.chrome.message
    );
    key(&mut app, 'A');
    for (want, title) in [
        (Some(Side::Test), "test side of the held-out split only"),
        (Some(Side::Train), "train side of the held-out split only"),
        (None, "agreement · on every item · all pairs"),
    ] {
        let fx = key(&mut app, 't');
        assert_eq!(
            fx,
            vec![Effect::LoadAgreement {
                req: agreement_req(&app),
                scope: jury::report::Scope {
                    estimates: true,
                    ..jury::report::Scope::on(want)
                },
            }]
        );
        let View::Agreement(state) = &app.chrome.view else {
            panic!("not the agreement view")
        };
        assert_eq!(state.side, want);
        assert!(matches!(state.figures, FiguresState::Computing));
        let s = screen(&app);
        assert!(s.contains(title), "{title}:\n{s}");
    }
}

/// Which judge agrees best heads the view, above the group table: on a tall
/// screen one line per configuration with its gap from the best and the
/// plain-words answer; on a short one the answer alone.
#[test]
fn the_ranking_heads_the_view_with_its_answer_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = sample_store(&dir.path().join("j.db"));
    for mode in [Mode::Two, Mode::Three] {
        judge_labelled(&mut store, mode, |n, l| {
            (l.key.perspective_id == "classification").then(|| match mode {
                Mode::Three if n % 2 == 0 => Value::Agreement(Agreement::Disagree),
                Mode::Three => Value::Agreement(Agreement::Agree),
                _ => Value::Likert((n % 5 + 1) as u8),
            })
        });
    }
    let report = jury::report::Report::build(&store, None, Some(50), 42, &mut ()).unwrap();
    assert!(!report.rankings.is_empty());
    let summary = report.rankings[0].summary.clone();
    for (size, tall) in [((170, 60), true), ((80, 24), false)] {
        let mut app = app();
        app.chrome.size = size;
        key(&mut app, 'A');
        answer_agreement(&mut app, AgreementPart::Figures(Ok(report.groups.clone())));
        answer_agreement(&mut app, AgreementPart::Ranking(report.rankings.clone()));
        let s = screen(&app);
        let lines: Vec<&str> = s.lines().collect();
        let at = |needle: &str| lines.iter().position(|l| l.contains(needle));
        let head = at("which judge agrees best").unwrap_or_else(|| panic!("{s}"));
        let table = at("sides").unwrap_or_else(|| panic!("{s}"));
        assert!(head < table, "the ranking comes first:\n{s}");
        assert!(s.contains(&summary[..30]), "{s}");
        if tall {
            assert!(s.contains(" 1. awag mode"), "{s}");
            assert!(s.contains("best") && s.contains(" 2. awag mode"), "{s}");
            assert!(s.contains("human ceiling"), "{s}");
            // Whole names where the screen has room: the persona (here each
            // item's own, one per item) is at their end.
            assert!(
                s.contains("awag mode 2 · demo as one persona per item (kenton, maren, tomasz)"),
                "{s}"
            );
        }
    }
}
