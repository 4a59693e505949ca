//! Leases from my queue (see [`crate::tui::app::team`]): after every
//! message, the item that should hold my lease is compared with the one
//! that does; a change becomes one `Effect::MoveLease` (release, then
//! take). A lease is never renewed in the background: it ends at its
//! stored expiry if the workbench says nothing more.

use super::Now;
use crate::tui::app::App;
use crate::tui::msg::{Effect, LeaseAnswer};

pub fn follow(app: &mut App, now: Now, fx: &mut Vec<Effect>) {
    let want = app.lease_wanted();
    if want == app.data.team.held {
        return;
    }
    let id = |i: Option<u32>| {
        i.and_then(|i| app.data.items.get(i as usize))
            .map(|it| it.id.to_string())
    };
    let until = now
        + chrono::Duration::from_std(app.data.team.lease_for)
            .unwrap_or_else(|_| chrono::Duration::minutes(5));
    fx.push(Effect::MoveLease {
        who: app.data.who.clone(),
        release: id(app.data.team.held),
        take: id(want),
        now: crate::store::timestamp(now),
        until: crate::store::timestamp(until),
    });
    app.data.team.held = want;
}

/// The store answered a lease move: the others' leases as they stand now
/// (my queue is ordered again when they changed), and who has the item
/// when it was not mine to take.
pub fn moved(app: &mut App, item: Option<String>, result: LeaseAnswer) {
    let (holder, others) = match result {
        Ok(r) => r,
        Err(e) => {
            app.chrome.warn(crate::tui::strings::msg::lease_failed(
                &crate::tui::strings::flat(&e, 200),
            ));
            return;
        }
    };
    let idx = app.data.index_of.clone();
    if app.data.team.set_leases(&idx, &others)
        && app.list.filter == crate::tui::app::Filter::NotMine
    {
        app.refilter();
    }
    if let (Some(h), Some(item)) = (holder, item) {
        app.chrome.info(crate::tui::strings::msg::leased_to(
            &crate::tui::strings::flat(&item, 60),
            &crate::tui::strings::flat(&h.who, 40),
            h.expires_at.get(11..16).unwrap_or(""),
        ));
    }
}
