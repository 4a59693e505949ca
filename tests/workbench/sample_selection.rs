//! Which labels count as a random sample (issue #30 §4): only a label given
//! on the random order's next item with nothing narrowing the list; a `j`
//! skip or a search makes a label chosen, and a list made of the judge's
//! verdicts makes it selected by the judge.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::store::Selected;
use jury::tui::app::queue::Order;
use jury::tui::msg::Effect;

fn order(app: &mut jury::tui::app::App, o: Order) {
    for _ in 0..8 {
        if app.list.order == o {
            return;
        }
        key(app, 'o');
    }
    panic!("o never reached {o:?}");
}

/// How the effects of one key say the label was chosen (None: not recorded).
fn selected(fx: &[Effect]) -> Option<Selected> {
    assert!(
        fx.iter().any(|f| matches!(f, Effect::SaveLabel { .. })),
        "no label was given: {fx:?}"
    );
    fx.iter().find_map(|f| match f {
        Effect::MarkSampled { how, .. } => Some(how.clone()),
        _ => None,
    })
}

#[test]
fn the_sample_orders_next_item_is_sampled() {
    let mut app = app();
    order(&mut app, Order::Sample);
    assert_eq!(selected(&key(&mut app, '4')), Some(Selected::Sample(1)));
}

#[test]
fn a_label_after_a_j_skip_is_not_sampled() {
    let mut app = app();
    order(&mut app, Order::Sample);
    let first = app.list.current_index();
    key(&mut app, 'j');
    assert_ne!(app.list.current_index(), first, "j moved on");
    // The item the sample order put first is unlabelled: this one was chosen.
    assert_eq!(selected(&key(&mut app, '4')), None);
    assert!(
        message(&app).contains("not recorded as sampled"),
        "{}",
        message(&app)
    );
}

#[test]
fn a_label_under_a_search_is_not_sampled() {
    let mut app = app();
    order(&mut app, Order::Sample);
    key(&mut app, '/');
    for c in "kettle".chars() {
        key(&mut app, c);
    }
    code(&mut app, crossterm::event::KeyCode::Enter);
    assert!(!app.list.search.is_empty());
    assert!(!app.list.filtered.is_empty());
    assert_eq!(selected(&key(&mut app, '4')), None);
}

#[test]
fn a_label_in_the_disagreement_first_queue_is_selected_by_the_judge() {
    let mut app = app();
    order(&mut app, Order::JudgeHuman);
    assert_eq!(
        selected(&key(&mut app, '4')),
        Some(Selected::Judge(Order::JudgeHuman.name()))
    );
}
