//! The session a person comes back to: persona, perspective, mode, filter,
//! search, order, blind review, the agreement view's split side, compare
//! axis and the selected item, kept per annotator in the store
//! (`workbench_sessions`, a JSON the store never reads). Written by the label writer — on quit, and once the keyboard has
//! been calm for a moment — never on the UI thread; read once at start.
//! Names, not indexes, are kept: a persona or item deleted since, or a value
//! this build does not know, falls back quietly to the default.

use super::super::app::queue::Order;
use super::super::app::{App, CompareAxis, Filter, PerspectiveSel, SessionState};
use super::super::msg::Effect;
use crate::domain::Mode;

/// Ticks (120 ms each) without a key before the session is kept: about a second.
pub const CALM_TICKS: u32 = 8;

/// The kept perspective when every perspective was chosen (ids are names
/// from files; this one cannot be confused with a missing field).
pub const ALL_PERSPECTIVES: &str = "*";

/// What the screen is now, as it would be kept.
pub fn capture(app: &App) -> SessionState {
    SessionState {
        persona: app.fixed_persona().map(|p| p.id.clone()),
        by_owner: Some(app.choices.by_owner),
        perspective: match app.choices.perspective {
            PerspectiveSel::All => Some(ALL_PERSPECTIVES.to_string()),
            PerspectiveSel::One(i) => app.data.perspectives.get(i).map(|p| p.id.clone()),
        },
        mode: Some(app.choices.mode.number()),
        filter: Some(app.list.filter.key().to_string()),
        search: app.list.search.clone(),
        order: Some(app.list.order.name().to_string()),
        blind: app.choices.blind,
        compare_axis: Some(app.choices.compare_axis.name().to_string()),
        split: app.choices.split_side.map(|s| s.as_str().to_string()),
        item: app
            .current_index()
            .map(|i| app.data.items[i].id.to_string()),
    }
}

/// Puts a kept session back; whatever no longer exists keeps its default.
pub fn restore(app: &mut App, s: &SessionState) {
    if let Some(i) = s
        .persona
        .as_ref()
        .and_then(|id| app.data.personas.iter().position(|p| &p.id == id))
    {
        app.choices.persona = i;
    }
    if let Some(by_owner) = s.by_owner {
        app.choices.by_owner = by_owner && app.data.has_owners;
    }
    let perspective = match s.perspective.as_deref() {
        None => None,
        Some(ALL_PERSPECTIVES) => Some(PerspectiveSel::All),
        Some(id) => app
            .data
            .perspectives
            .iter()
            .position(|p| p.id == id)
            .map(PerspectiveSel::One),
    };
    if let Some(p) = perspective.filter(|_| !app.data.perspectives.is_empty()) {
        app.choices.perspective = p;
    }
    if let Some(m) = s
        .mode
        .and_then(|n| Mode::ALL.into_iter().find(|m| m.number() == n))
    {
        app.choices.mode = m;
    }
    if let Some(f) = s.filter.as_deref().and_then(filter_named) {
        app.list.filter = f;
    }
    if let Some(o) = s.order.as_deref().and_then(order_named) {
        app.list.order = o;
    }
    if let Some(a) = s.compare_axis.as_deref().and_then(CompareAxis::parse) {
        app.choices.compare_axis = a;
    }
    app.choices.split_side = s.split.as_deref().and_then(crate::domain::Side::parse);
    app.list.search = crate::tui::strings::flat(&s.search, 200);
    app.choices.blind = s.blind;
    app.refresh_all_marks();
    app.refilter();
    let at = s
        .item
        .as_ref()
        .and_then(|id| app.data.index_of.get(id.as_str()))
        .and_then(|&i| app.list.filtered.iter().position(|&f| f == i));
    app.list.cursor = at.unwrap_or(0);
    app.list.list_offset = 0;
    app.scroll_list_to_cursor();
    app.refresh_detail();
    app.chrome.session.kept = Some(capture(app));
}

/// Reads a kept session; one that does not parse is no session.
pub fn parse(json: &str) -> Option<SessionState> {
    serde_json::from_str(json).ok()
}

/// The effect that keeps the session, when it changed since last kept.
pub fn keep(app: &mut App, fx: &mut Vec<Effect>) {
    app.chrome.session.touched = false;
    app.chrome.session.idle_ticks = 0;
    let now = capture(app);
    if app.chrome.session.kept.as_ref() == Some(&now) {
        return;
    }
    let Ok(state) = serde_json::to_string(&now) else {
        return;
    };
    app.chrome.session.kept = Some(now);
    fx.push(Effect::SaveSession {
        who: app.data.who.clone(),
        state,
    });
}

/// A tick: keeps the session once the keys have been calm for a moment.
pub fn tick(app: &mut App, fx: &mut Vec<Effect>) {
    let s = &mut app.chrome.session;
    if !s.touched {
        return;
    }
    s.idle_ticks += 1;
    if s.idle_ticks >= CALM_TICKS {
        keep(app, fx);
    }
}

fn filter_named(name: &str) -> Option<Filter> {
    let mut f = Filter::All;
    for _ in 0..64 {
        if f.key() == name {
            return Some(f);
        }
        f = f.next();
        if f == Filter::All {
            break;
        }
    }
    None
}

fn order_named(name: &str) -> Option<Order> {
    let mut o = Order::File;
    for _ in 0..64 {
        if o.name() == name {
            return Some(o);
        }
        o = o.next();
        if o == Order::File {
            break;
        }
    }
    None
}
