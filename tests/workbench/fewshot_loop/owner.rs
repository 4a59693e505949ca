//! `L` in owner mode: each held-out item runs as its owner.

use super::*;

/// 24 items, the even ones Kenton's and the odd ones Maren's, each labelled
/// as its owner on both classifications; split by item.
fn store_with_owners(path: &std::path::Path) -> Vec<Item> {
    let mut s = jury::store::Store::open(path).unwrap();
    let d = loaded();
    let mut personas = d.personas.clone();
    personas.push(Persona {
        id: "maren".into(),
        name: "Maren, gardener".into(),
        definition: serde_json::json!({"type": "personal", "does": "gardens"}),
    });
    let owner = |i: usize| {
        if i.is_multiple_of(2) {
            "kenton"
        } else {
            "maren"
        }
    };
    let items: Vec<Item> = (0..24)
        .map(|i| Item {
            owner: Some(owner(i).into()),
            ..item(
                &format!("g-{i:03}"),
                &format!("Message {i}"),
                "Lunch on Thursday?",
            )
        })
        .collect();
    s.upsert_all(&items, &personas, &d.perspectives, &[])
        .unwrap();
    for (i, it) in items.iter().enumerate() {
        for (c, v) in [("urgency", i % 5 + 1), ("work-pers", (i * 3) % 5 + 1)] {
            s.upsert_label(&Label {
                persona_id: owner(i).into(),
                ..label(&it.id, c, Value::Likert(v as u8))
            })
            .unwrap();
        }
    }
    s.make_split(SplitRule::new(0.3, 7).unwrap(), "tester", false)
        .unwrap();
    items
}

/// With each item's owner the choice, `L` runs each held-out item as its
/// owner — one run per owner persona — and says so, instead of running
/// only the items labelled as the picker's persona, as that persona.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn l_in_owner_mode_runs_each_held_out_item_as_its_owner() {
    let mut b = bench_on(store_with_owners, |r| {
        jury::testserver::demo_judge::reply(r, Duration::from_millis(0))
    })
    .await;
    assert!(b.app.choices.by_owner, "items have owners");
    b.press('L', is_ready).await;
    let r = confirm(&b.app);
    assert!(r.by_owner);
    let store = jury::store::Store::open(&b.db).unwrap();
    let split = store.split().unwrap().unwrap();
    let owner_of = |id: &str| {
        let i: usize = id[2..].parse().unwrap();
        if i.is_multiple_of(2) {
            "kenton"
        } else {
            "maren"
        }
    };
    let held_out: Vec<String> = (0..24)
        .map(|i| format!("g-{i:03}"))
        .filter(|id| split.item_side(id) == Side::Test)
        .collect();
    let personas: Vec<&str> = r.plans().map(|p| p.persona_id()).collect();
    assert_eq!(personas, ["kenton", "maren"], "{r:?}");
    let mut planned: Vec<String> = Vec::new();
    for p in r.plans() {
        for item in &p.item_ids {
            assert_eq!(owner_of(item), p.persona_id(), "{item} judged as its owner");
        }
        planned.extend(p.item_ids.iter().cloned());
    }
    planned.sort();
    assert_eq!(
        planned.len() + r.left_out,
        held_out.len(),
        "every held-out item, as its owner: {planned:?} of {held_out:?}"
    );
    let s = screen(&b.app);
    assert!(s.contains("as each item's owner (kenton "), "{s}");
    assert!(
        s.contains(&format!("Run it on {} held-out", planned.len())),
        "{s}"
    );
    // Yes: one run per owner persona.
    let fx = key(&mut b.app, 'y');
    let started: Vec<&str> = fx
        .iter()
        .filter_map(|f| match f {
            Effect::StartLoopRun { plan, .. } => Some(plan.persona_id()),
            _ => None,
        })
        .collect();
    assert_eq!(started, ["kenton", "maren"], "{fx:?}");
}
