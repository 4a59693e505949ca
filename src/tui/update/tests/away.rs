//! The store away and back (a PostgreSQL restart, a network cut): a label
//! refused meanwhile goes to the recovery file at once and the screen says
//! so; when the writer says the store is back, the unsaved labels are
//! handed over without a key, and once saved they leave the file.

use crate::domain::*;
use crate::tui::app::SaveState;
use crate::tui::fixtures::*;
use crate::tui::msg::{Effect, Msg};

fn saves(fx: &[Effect]) -> Vec<(u64, Label)> {
    fx.iter()
        .filter_map(|f| match f {
            Effect::SaveLabel { req, label } => Some((*req, label.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn labels_refused_while_the_store_is_away_are_kept_at_once_and_saved_when_it_is_back() {
    let mut app = app();
    let (req, l) = saves(&key(&mut app, '2'))[0].clone();
    let fx = update(
        &mut app,
        Msg::StoreUnreachable("PostgreSQL: connection refused".into()),
    );
    assert!(fx.is_empty(), "{fx:?}");
    let fx = update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Err("cannot connect".into()),
        },
    );
    // Kept in the recovery file now, not only at quit.
    assert_eq!(fx, [Effect::KeepUnsaved(vec![l.clone()])]);
    update(
        &mut app,
        Msg::UnsavedKept(Ok("/x/jury.unsaved-labels.jsonl".into())),
    );
    let s = screen(&app);
    assert!(s.contains("store unreachable"), "{s}");
    assert!(s.contains("kept in /x/jury.unsaved-labels.jsonl"), "{s}");
    // The writer reaches the store again: handed over without a key.
    let fx = update(&mut app, Msg::StoreBack);
    let again = saves(&fx);
    assert_eq!(again.len(), 1, "{fx:?}");
    assert_eq!(again[0].1, l);
    assert!(screen(&app).contains("the store answers again"));
    let fx = update(
        &mut app,
        Msg::LabelSaved {
            req: again[0].0,
            result: Ok(()),
        },
    );
    assert_eq!(fx, [Effect::ForgetUnsaved(vec![l.clone()])]);
    assert_eq!(
        app.my_label(&l.key, Scale::Likert).unwrap().state,
        SaveState::Saved
    );
    assert!(screen(&app).contains("kept label(s) saved"));
    assert!(!screen(&app).contains("store unreachable"));
}

/// A refusal with the store there (a lock held) is not kept at once: the
/// retry key and the quit prompt deal with it, as before.
#[test]
fn a_refusal_with_the_store_there_is_not_written_to_the_file() {
    let mut app = app();
    let (req, _) = saves(&key(&mut app, '2'))[0].clone();
    let fx = update(
        &mut app,
        Msg::LabelSaved {
            req,
            result: Err("the database is busy".into()),
        },
    );
    assert!(
        fx.iter().all(|f| !matches!(f, Effect::KeepUnsaved(_))),
        "{fx:?}"
    );
}

/// A mark refused while the store is away is held (the screen says so)
/// and handed over again, unchanged, when the store is back; refused with
/// the store there, it is said as before and not held.
#[test]
fn a_mark_refused_while_the_store_is_away_is_saved_when_it_is_back() {
    use crossterm::event::KeyCode;
    let mut app = app();
    update(
        &mut app,
        Msg::StoreUnreachable("PostgreSQL: connection refused".into()),
    );
    key(&mut app, 'z');
    let fx = code(&mut app, KeyCode::Enter);
    let [write @ Effect::SaveMark { .. }] = &fx[..] else {
        panic!("one SaveMark: {fx:?}");
    };
    let fx = update(
        &mut app,
        Msg::MarkNotSaved {
            why: "cannot connect".into(),
            retry: Some(write.clone()),
        },
    );
    assert!(fx.is_empty(), "{fx:?}");
    assert!(screen(&app).contains("1 mark(s) held"), "{}", screen(&app));
    let fx = update(&mut app, Msg::StoreBack);
    assert_eq!(
        fx,
        std::slice::from_ref(write),
        "handed over again as it was"
    );
    // Nothing is held twice.
    assert!(update(&mut app, Msg::StoreBack).is_empty());

    // The store there (a lock held): said, not held.
    update(
        &mut app,
        Msg::MarkNotSaved {
            why: "the database is busy".into(),
            retry: Some(write.clone()),
        },
    );
    assert!(message(&app).contains("the mark was not saved"));
    assert!(update(&mut app, Msg::StoreBack).is_empty());
}
