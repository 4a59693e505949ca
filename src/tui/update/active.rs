//! The workbench's active order and the sample orders' "next label" widths
//! (issue #33). The order is laid out off the UI thread from the store
//! (`jury sample --order active`'s draws, same seed and π); each label
//! given in it walks the order's draws and records the ones now
//! labelled as draws, as `jury sample` + `jury import` record them, so
//! `jury estimate` weighs them. The widths are `jury plan`'s, asked again
//! after each saved label.

use crate::domain::{ComboKey, Label};
use crate::store::Selected;
use crate::tui::app::App;
use crate::tui::app::queue::Order;
use crate::tui::msg::Effect;
use crate::tui::strings::msg;

fn sample_order(app: &App) -> bool {
    matches!(app.list.order, Order::Sample | Order::Active)
}

/// Asks for what the list's order needs and is neither there nor asked
/// for: the active order, and in either sample order the widths.
pub fn want(app: &mut App, fx: &mut Vec<Effect>) {
    if !sample_order(app) {
        return;
    }
    let st = &mut app.data.active;
    if st.worth.is_none() && !st.worth_asked {
        st.worth_asked = true;
        fx.push(Effect::LoadLabelWorth);
    }
    if app.list.order == Order::Active && st.walk.is_none() && !st.walk_asked {
        st.walk_asked = true;
        fx.push(Effect::LoadActiveOrder {
            who: app.data.who.clone(),
        });
        app.chrome.info(msg::FINDING_ACTIVE_ORDER);
    }
}

/// The active order arrived: the list is sorted by it.
pub fn loaded(app: &mut App, r: Result<Box<crate::report::active_walk::ActiveWalk>, String>) {
    let st = &mut app.data.active;
    st.walk_asked = false;
    let walk = match r {
        Ok(w) => w,
        Err(e) => {
            app.chrome
                .error(msg::active_order_failed(&crate::tui::strings::flat(
                    &e, 200,
                )));
            return;
        }
    };
    let n = walk.len();
    st.walk = Some(*walk);
    if app.list.order == Order::Active {
        // The priorities were all 0 while the order was on its way.
        app.list.forget_order();
        app.refilter();
        app.list.cursor = 0;
        app.list.list_offset = 0;
        app.refresh_detail();
        app.chrome.info(msg::active_order(n));
        focus_next_draw(app);
    }
}

/// The widths arrived; a label saved meanwhile asks again.
pub fn worth_loaded(
    app: &mut App,
    r: Result<Vec<crate::report::label_worth::Worth>, String>,
    fx: &mut Vec<Effect>,
) {
    let st = &mut app.data.active;
    st.worth_asked = false;
    match r {
        Ok(rows) => st.worth_arrived(rows),
        // Said once, in the status line; the widths stay as they were.
        Err(e) => app
            .chrome
            .warn(msg::label_worth_failed(&crate::tui::strings::flat(&e, 200))),
    }
    if std::mem::take(&mut st.worth_stale) {
        st.worth_asked = true;
        fx.push(Effect::LoadLabelWorth);
    }
}

/// A label was saved: in a sample order the widths are asked again.
pub fn label_saved(app: &mut App, fx: &mut Vec<Effect>) {
    let shown = sample_order(app);
    let st = &mut app.data.active;
    if st.worth_asked {
        st.worth_stale = true;
    } else if shown {
        st.worth_asked = true;
        fx.push(Effect::LoadLabelWorth);
    } else {
        // Found again when a sample order shows ([`want`]).
        st.worth = None;
    }
}

/// A run wrote verdicts: the order's π and the widths follow them.
pub fn verdicts_changed(app: &mut App) {
    app.data.active.walk = None;
    app.data.active.worth = None;
}

/// `label` was just given (it is in the workspace's labels). In the active
/// order: the draws now labelled (a prefix of the order) are recorded (the
/// store is told before the label's own save, in the same writer). A label
/// no draw reached yet counts as selected by the judge until one does.
pub fn after_label(app: &mut App, label: &Label, fx: &mut Vec<Effect>) {
    if app.list.order != Order::Active {
        return;
    }
    let labels = &app.data.labels;
    let who = label.who.as_str();
    let labelled = labelled_by(labels, who);
    let Some(walk) = app.data.active.walk.as_mut() else {
        fx.push(judge_selected(label));
        app.chrome.info(msg::ACTIVE_NOT_READY);
        return;
    };
    let new = walk.advance(&label.persona_id, &label.key, labelled);
    let drawn = walk.is_drawn(&label.persona_id, &label.key);
    let draws: u32 = new.iter().map(|d| d.draw.draws).sum();
    for d in new {
        fx.push(Effect::MarkSampled {
            key: d.key,
            persona: d.persona,
            who: label.who.clone(),
            how: Selected::Active(d.draw),
        });
    }
    if drawn {
        app.chrome.info(msg::active_draws(draws as usize));
    } else {
        fx.push(judge_selected(label));
        app.chrome.info(msg::ACTIVE_NOT_DRAWN);
    }
}

/// Whether `who` labelled `persona`'s combination, in the workspace.
fn labelled_by<'a>(
    labels: &'a std::collections::HashMap<String, Vec<crate::tui::app::LabelEntry>>,
    who: &'a str,
) -> impl Fn(&str, &ComboKey) -> bool + 'a {
    move |persona: &str, key: &ComboKey| {
        labels.get(key.item_id.as_str()).is_some_and(|ls| {
            ls.iter()
                .any(|e| e.label.who == who && e.label.persona_id == persona && e.label.key == *key)
        })
    }
}

/// In the active order: the focus goes to the next draw's row (the label
/// that counts next), whatever `auto_advance` chose; it stays put when
/// that draw's item is not listed or not shown under the choices in view.
pub fn focus_next_draw(app: &mut App) {
    if app.list.order != Order::Active {
        return;
    }
    let Some(walk) = app.data.active.walk.as_ref() else {
        return;
    };
    let from = (app.current_index().unwrap_or(0), app.list.row);
    let labelled = labelled_by(&app.data.labels, &app.data.who);
    let Some((draw, _, key)) = walk.next_draw(labelled) else {
        return;
    };
    let key = key.clone();
    let Some(&i) = app.data.index_of.get(key.item_id.as_str()) else {
        return;
    };
    if !app.select_item(i as usize) {
        return;
    }
    if let Some(r) = app.row_of(&key, crate::domain::Scale::Likert) {
        app.list.row = r;
    }
    if let Some(a) = app.list.advanced.as_mut() {
        a.to = (i as usize, app.list.row);
    } else if from != (i as usize, app.list.row) {
        app.list.advanced = Some(crate::tui::app::Advanced {
            from,
            to: (i as usize, app.list.row),
            noting: false,
        });
    }
    let next = msg::next_draw(
        draw,
        &crate::tui::strings::flat(&key.item_id, 40),
        &crate::tui::strings::flat(&key.classification_id, 40),
    );
    // After a label: what became of it, then where the focus went.
    let said = app
        .chrome
        .message
        .as_ref()
        .map(|(_, m)| m.clone())
        .filter(|m| m.starts_with("label saved"));
    app.chrome.info(match said {
        Some(m) => format!("{m} · {next}"),
        None => next,
    });
}

fn judge_selected(label: &Label) -> Effect {
    Effect::MarkSampled {
        key: label.key.clone(),
        persona: label.persona_id.clone(),
        who: label.who.clone(),
        how: Selected::Judge(Order::Active.name()),
    }
}
