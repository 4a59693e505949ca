//! `R` over a mixed list judges each item as its owner:
//! Maren's mail is judged speaking as Maren, not as whoever the picker shows.

use super::super::app::App;

/// The content items to judge, grouped by the persona each is judged as:
/// its owner when "each item's owner" is the choice and the owner is a
/// persona of the workspace, else the fixed persona. Groups come in the
/// order their first item does, so one run starts per persona.
pub fn group_by_persona(app: &App, ids: Vec<String>) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for id in ids {
        let owner = app
            .data
            .index_of
            .get(&id)
            .and_then(|i| app.data.items.get(*i as usize))
            .and_then(|row| row.owner.as_deref());
        let persona = app
            .data
            .persona_for(app.choices.persona, app.choices.by_owner, owner)
            .map(|p| p.id.clone())
            .unwrap_or_default();
        match groups.iter_mut().find(|(p, _)| *p == persona) {
            Some((_, g)) => g.push(id),
            None => groups.push((persona, vec![id])),
        }
    }
    groups
}
