//! Others' labels, notes and marks, live (issue 32 §3): once a second the
//! loop sends [`Msg::WatchTick`](crate::tui::msg::Msg::WatchTick); one check
//! at a time goes off the screen's thread (`Effect::WatchStore`), and its
//! answer is taken only when it moved the marker this workbench holds (see
//! [`crate::tui::app::live`] for what is taken, and what is kept).

use super::super::app::App;
use super::super::msg::Effect;
use crate::store::{ChangeMarker, Changed};

/// Asks the store what changed, unless a check is still out.
pub fn tick(app: &mut App, fx: &mut Vec<Effect>) {
    if app.data.live.asked || app.chrome.quit {
        return;
    }
    app.data.live.asked = true;
    fx.push(Effect::WatchStore {
        since: app.data.live.marker,
    });
}

/// A check answered. Taken only when it started from the marker held now
/// (an answer to an older one is stale); when it found nothing new only
/// its marker is kept (whose floors move on: see `store::changes`); a store that
/// cannot be read now is asked again at the next tick, quietly: labels are
/// still written, and the writer says when they are not.
pub fn watched(app: &mut App, since: ChangeMarker, result: Result<Changed, String>) {
    app.data.live.asked = false;
    let Ok(changed) = result else {
        return;
    };
    if since != app.data.live.marker {
        return;
    }
    if changed.nothing(&since) {
        app.data.live.marker = changed.marker;
        return;
    }
    app.take_others_changes(changed);
}
