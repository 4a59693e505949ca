//! The workbench's active order (issue #33): `o` after "random sample"
//! asks for the order off the UI thread; once it arrives the items come by
//! their first draw, as `jury sample --order active` draws them (same seed
//! and π), and each label given in it is recorded as a draw with that π.
//! Both sample orders show what the next label on the focused row is
//! worth ("±0.061 → ±0.058"), narrowing as labels are given (80 and 160
//! columns).
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::report::active_order::{OrderKind, order, population};
use jury::report::active_walk::{ActiveWalk, WORKBENCH_SEED};
use jury::report::label_worth::Worth;
use jury::report::pairs::{Confident, Readings};
use jury::store::{ActiveDraw, Selected};
use jury::tui::app::App;
use jury::tui::app::queue::Order;
use jury::tui::msg::{Effect, Msg};
use std::collections::HashMap;
use std::sync::Arc;

/// The judge's readings on the fixture's three items, urgency and
/// work-pers, as kenton: sure on k-001, unsure on k-002 and k-003.
fn readings() -> Readings {
    let mut r = Readings {
        verdicts: Vec::new(),
        labels: Vec::new(),
        confidences: Vec::new(),
    };
    for (item, c) in [("k-001", 0.99), ("k-002", 0.55), ("k-003", 0.6)] {
        for cls in ["urgency", "work-pers"] {
            let value = Value::Agreement(Agreement::Agree);
            r.verdicts.push((
                Arc::from("judge"),
                Arc::from("kenton"),
                Arc::new(ComboKey::new(item, cls, "classification")),
                value,
            ));
            r.confidences.push(Some(Confident {
                value,
                confidence: Confidence {
                    value: c,
                    source: ConfidenceSource::Logprobs,
                    expected_score: None,
                },
            }));
        }
    }
    r
}

fn to_active(app: &mut App) -> Vec<Effect> {
    let mut fx = Vec::new();
    for _ in 0..8 {
        if app.list.order == Order::Active {
            return fx;
        }
        fx.extend(key(app, 'o'));
    }
    panic!("o never reached the active order");
}

fn active_marks(fx: &[Effect]) -> Vec<(ComboKey, ActiveDraw)> {
    fx.iter()
        .filter_map(|f| match f {
            Effect::MarkSampled {
                key,
                how: Selected::Active(d),
                ..
            } => Some((key.clone(), *d)),
            _ => None,
        })
        .collect()
}

#[test]
fn the_active_order_lists_items_by_first_draw_and_records_labels_as_draws() {
    let mut app = app();
    let fx = to_active(&mut app);
    // Asked for off the UI thread, once; the widths too.
    assert!(
        fx.iter()
            .any(|f| matches!(f, Effect::LoadActiveOrder { who } if who == "alice")),
        "{fx:?}"
    );
    assert!(fx.iter().any(|f| matches!(f, Effect::LoadLabelWorth)));
    assert!(message(&app).contains("laying out the active order"));
    // A label before the order arrives is saved, not recorded as a draw.
    let early = key(&mut app, '4');
    assert!(active_marks(&early).is_empty());
    assert!(
        message(&app).contains("not recorded as a draw"),
        "{}",
        message(&app)
    );

    let r = readings();
    let walk = ActiveWalk::new(&r, &HashMap::new(), "alice", WORKBENCH_SEED);
    update(&mut app, Msg::ActiveOrderLoaded(Ok(Box::new(walk))));
    // The items by their first draw in jury sample's order.
    let drawn = order(
        &population(&r, None),
        OrderKind::Active,
        WORKBENCH_SEED,
        0,
        200,
        &|_| false,
    );
    let mut want: Vec<String> = Vec::new();
    for d in &drawn {
        if !want.contains(&d.item_id) {
            want.push(d.item_id.clone());
        }
    }
    assert_eq!(listed(&app), want);

    // The focus is on draw 1's row; each label moves it to the next draw's.
    let first = &drawn[0];
    assert_eq!(
        app.focused_combo()
            .map(|(_, k)| (k.item_id, k.classification_id)),
        Some((first.item_id.clone(), first.classification_id.clone()))
    );
    let mut marks = Vec::new();
    for _ in 0..4 {
        marks.extend(active_marks(&key(&mut app, '4')));
    }
    // Four combinations labelled: the draws up to the first of a fifth,
    // each recorded with jury sample's π and first draw.
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut walked = 0;
    for d in &drawn {
        let k = (d.item_id.clone(), d.classification_id.clone());
        if !seen.contains(&k) {
            if seen.len() == 4 {
                break;
            }
            seen.push(k);
        }
        walked += 1;
    }
    let total: u32 = marks.iter().map(|(_, d)| d.draws).sum();
    assert_eq!(total as usize, walked, "{marks:?}");
    let (_, d) = marks
        .iter()
        .find(|(k, _)| k.item_id == first.item_id && k.classification_id == first.classification_id)
        .expect("draw 1 recorded");
    assert_eq!(
        (d.p, d.draw, d.seed),
        (first.pi, Some(1), Some(WORKBENCH_SEED))
    );
    for (k, d) in &marks {
        let listed = drawn
            .iter()
            .find(|x| x.item_id == k.item_id && x.classification_id == k.classification_id)
            .expect("a drawn combination");
        assert_eq!((d.p, d.draw), (listed.pi, Some(listed.draw)), "{k:?}");
    }
    // The focus is on the fifth combination's first draw.
    let next = &drawn[walked];
    assert_eq!(
        app.focused_combo()
            .map(|(_, k)| (k.item_id, k.classification_id)),
        Some((next.item_id.clone(), next.classification_id.clone()))
    );
    assert!(
        message(&app).contains(&format!("draw {} next", walked + 1)),
        "{}",
        message(&app)
    );
}

/// Focus the current item's urgency row (rows do not wrap: `[` then `]`).
fn to_urgency(app: &mut App) {
    for _ in 0..4 {
        key(app, '[');
    }
    for _ in 0..4 {
        if app
            .focused_combo()
            .is_some_and(|(_, k)| k.classification_id == "urgency")
        {
            return;
        }
        key(app, ']');
    }
    panic!("no urgency row: {:?}", app.focused_combo());
}

fn worth(now: f64, next: f64) -> Worth {
    Worth {
        classification: "urgency".into(),
        perspective: "classification".into(),
        persona: "kenton".into(),
        judge: "awag mode 3 · demo".into(),
        uniform: (Some(now + 0.01), Some(next + 0.01)),
        active: (Some(now), Some(next)),
        n_uniform: 4,
        n_active: 9,
    }
}

#[test]
fn the_sample_orders_show_what_the_next_label_is_worth_and_the_narrowing() {
    for (w, h) in [(80u16, 24u16), (160, 45)] {
        let mut app = app();
        to_active(&mut app);
        let walk = ActiveWalk::new(&readings(), &HashMap::new(), "alice", WORKBENCH_SEED);
        update(&mut app, Msg::ActiveOrderLoaded(Ok(Box::new(walk))));
        // Focus the urgency row of the first item.
        to_urgency(&mut app);
        update(&mut app, Msg::LabelWorth(Ok(vec![worth(0.061, 0.058)])));
        app.chrome.size = (w, h);
        let s = screen(&app);
        assert!(s.contains("±0.061 → ±0.058"), "{s}");
        if w == 160 {
            assert!(s.contains("next label: urgency ±0.061 → ±0.058"), "{s}");
        }
        // A label saved asks again; the answer shows the narrowing.
        let fx = key(&mut app, '4');
        let req = fx
            .iter()
            .find_map(|f| match f {
                Effect::SaveLabel { req, .. } => Some(*req),
                _ => None,
            })
            .expect("a label");
        let fx = update(
            &mut app,
            Msg::LabelSaved {
                req,
                result: Ok(()),
            },
        );
        assert!(
            fx.iter().any(|f| matches!(f, Effect::LoadLabelWorth)),
            "{fx:?}"
        );
        update(&mut app, Msg::LabelWorth(Ok(vec![worth(0.058, 0.056)])));
        to_urgency(&mut app);
        let s = screen(&app);
        assert!(s.contains("±0.058 → ±0.056"), "{w}×{h}:\n{s}");
        if w == 160 {
            assert!(s.contains("±0.058 → ±0.056 (from ±0.061)"), "{s}");
        }
        insta::assert_snapshot!(format!("active_worth_{w}x{h}"), s);
        // The random sample order shows its own (uniform) widths.
        key(&mut app, 'o');
        key(&mut app, 'o');
        key(&mut app, 'o');
        key(&mut app, 'o');
        key(&mut app, 'o');
        key(&mut app, 'o');
        assert_eq!(app.list.order, Order::Sample);
        to_urgency(&mut app);
        let s = screen(&app);
        assert!(s.contains("±0.068 → ±0.066"), "{w}×{h}:\n{s}");
        // Elsewhere, nothing.
        key(&mut app, 'o');
        key(&mut app, 'o');
        assert_eq!(app.list.order, Order::File);
        assert!(!screen(&app).contains("→ ±0.0"));
    }
}

/// A classification name with escape sequences is drawn neutralised.
#[test]
fn the_worth_line_neutralises_the_classification_name() {
    let w = jury::tui::app::active::RowWorth {
        classification: "urg\u{1b}[31mency".into(),
        now: 0.061,
        next: 0.058,
        first: 0.061,
    };
    let s = jury::tui::strings::msg::worth(&w, 200).unwrap();
    assert!(!s.contains('\u{1b}'), "{s:?}");
    assert!(s.ends_with("±0.061 → ±0.058 "), "{s}");
    // A narrow border keeps the widths.
    assert_eq!(
        jury::tui::strings::msg::worth(&w, 20).as_deref(),
        Some(" ±0.061 → ±0.058 ")
    );
}

/// Cycled away and back to an active order already laid out, the focus is
/// on the next draw's row again, not on the first item's first row.
#[test]
fn back_in_the_active_order_the_focus_is_on_the_next_draw() {
    let mut app = app();
    to_active(&mut app);
    let r = readings();
    let walk = ActiveWalk::new(&r, &HashMap::new(), "alice", WORKBENCH_SEED);
    update(&mut app, Msg::ActiveOrderLoaded(Ok(Box::new(walk))));
    let first = app.focused_combo().map(|(_, k)| k);
    assert!(first.is_some());
    // Away (the next order), the focus moved to the first row there.
    key(&mut app, 'o');
    assert_ne!(app.list.order, Order::Active);
    app.list.row = 0;
    to_active(&mut app);
    assert_eq!(app.focused_combo().map(|(_, k)| k), first);
}
