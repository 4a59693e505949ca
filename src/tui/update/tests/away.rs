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
