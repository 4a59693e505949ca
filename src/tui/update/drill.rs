//! From figure to items: in the agreement view, tab moves the
//! focus into the selected group's confusion matrix, the arrows move between
//! its cells, and Enter lists exactly the items behind the cell (or, from
//! the group table, behind the whole group). Esc on that list comes back to
//! the agreement view as it was; Esc there goes back to the full list.

use super::super::app::*;
use super::super::input::action::Action;

/// Per annotator, of the items listed that a comparison can hold (judged,
/// or labelled by someone): how many they labelled (every row shown under
/// the current persona and perspective).
pub fn annotator_progress(app: &App) -> (Vec<(String, usize)>, usize) {
    let judged: Vec<usize> = app
        .list
        .filtered
        .iter()
        .map(|&i| i as usize)
        .filter(|&i| app.data.marks[i] & (mark::JUDGED | mark::LABELLED) != 0)
        .collect();
    let mut people: Vec<&str> = app
        .data
        .labels
        .values()
        .flatten()
        .map(|e| e.label.who.as_str())
        .collect();
    people.sort_unstable();
    people.dedup();
    let counts = people
        .into_iter()
        .map(|who| {
            let n = judged
                .iter()
                .filter(|&&i| app.data.labelled_by(i, who))
                .count();
            (who.to_string(), n)
        })
        .collect();
    (counts, judged.len())
}

/// The selected group's matrix size, when its figures are in.
fn matrix_size(a: &AgreementState) -> Option<usize> {
    match &a.figures {
        FiguresState::Ready(groups) => groups
            .get(a.cursor)
            .map(|g| g.figures.confusion_matrix.len()),
        _ => None,
    }
}

/// Tab in the agreement view: into the matrix (its first cell) and back to
/// the group table. True when the agreement view took the key.
pub fn toggle_matrix(app: &mut App) -> bool {
    let View::Agreement(a) = &mut app.chrome.view else {
        return false;
    };
    a.cell = match (a.cell, matrix_size(a)) {
        (None, Some(k)) if k > 0 => Some((0, 0)),
        _ => None,
    };
    true
}

/// Arrows inside the matrix: one cell up, down, left or right (clamped).
/// False when the focus is not in a matrix (the keys move the group table).
pub fn move_cell(app: &mut App, action: Action) -> bool {
    let View::Agreement(a) = &mut app.chrome.view else {
        return false;
    };
    let (Some((r, c)), Some(k)) = (a.cell, matrix_size(a)) else {
        return false;
    };
    let last = k.saturating_sub(1);
    a.cell = Some(match action {
        Action::MoveDown => ((r + 1).min(last), c),
        Action::MoveUp => (r.saturating_sub(1), c),
        Action::MoveRight => (r, (c + 1).min(last)),
        Action::MoveLeft => (r, c.saturating_sub(1)),
        _ => return false,
    });
    true
}

/// Enter in the agreement view: the list narrowed to the items behind the
/// selected cell (or group); the view is kept for Esc.
pub fn open(app: &mut App) {
    let View::Agreement(a) = &app.chrome.view else {
        return;
    };
    let FiguresState::Ready(groups) = &a.figures else {
        return;
    };
    let (Some(g), Some(cells)) = (groups.get(a.cursor), a.cells.get(a.cursor)) else {
        app.chrome.info(crate::tui::strings::msg::CELLS_COMING);
        return;
    };
    let mut members = vec![false; app.data.items.len()];
    let mut rows = std::collections::HashMap::new();
    let (mut pairs, mut undecided) = (0, 0);
    let mut modes = std::collections::BTreeSet::new();
    let mut personas = std::collections::BTreeSet::new();
    let mut perspectives = std::collections::BTreeSet::new();
    for p in cells {
        // A cell lists its pairs; the group every pair it counts, the
        // undecided ones too (as its n and `jury report` count them).
        if a.cell.is_some_and(|cell| p.cell != Some(cell)) {
            continue;
        }
        match p.cell {
            Some(_) => pairs += 1,
            None => undecided += 1,
        }
        modes.insert(p.mode);
        personas.insert(p.persona.clone());
        perspectives.insert(p.key.perspective_id.clone());
        if let Some(&i) = app.data.index_of.get(&p.key.item_id) {
            members[i as usize] = true;
            rows.entry(i).or_insert_with(Vec::new).push((
                p.key.classification_id.clone(),
                p.key.perspective_id.clone(),
                p.run,
            ));
        }
    }

    let names: Vec<String> = g.scale.values().iter().map(|v| v.as_text()).collect();
    let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| i.to_string());
    // The count and cell first: a narrow list pane cuts the group's name.
    let what = match a.cell {
        Some((r, c)) => format!("{pairs} pairs: {}×{} · {}", name(r), name(c), g.group),
        None if undecided > 0 => format!("{pairs}+{undecided} undecided pairs: {}", g.group),
        None => format!("{pairs} pairs: {}", g.group),
    };
    let label = crate::tui::strings::flat(&what, 80);
    // A judge's pairs: the pane shows the verdicts they counted (their runs:
    // the group's model and prompt set), and says whose.
    let counted = (g.comparison == crate::report::pairs::Comparison::JudgeVsHuman
        && cells.iter().any(|p| p.run.is_some()))
    .then(|| format!("verdicts of {}", crate::tui::strings::flat(&g.left, 50)));
    let View::Agreement(state) = std::mem::replace(&mut app.chrome.view, View::Main) else {
        return;
    };
    app.chrome.back = Some(Box::new(state));
    app.chrome.focus = Pane::List;
    app.list.drill = Some(Drill {
        label,
        members,
        rows,
        made_under: (app.list.filter, app.list.search.clone()),
    });
    let opened_as = match (open_as(app, &modes, &personas, &perspectives), counted) {
        (Some(said), Some(whose)) => Some(format!("{said}, {whose}")),
        (None, Some(whose)) => Some(format!("shown as the figure's pairs were judged: {whose}")),
        (said, None) => said,
    };
    // The marks, progress and the judge≠human filter read the mode and
    // persona now in view.
    app.refresh_all_marks();
    app.refilter();
    app.list.cursor = 0;
    app.list.list_offset = 0;
    // A new item for the detail: the drilled row is focused on it.
    app.list.detail.index = None;
    app.refresh_detail();
    if let Some(said) = opened_as {
        app.chrome.info(said);
    }
}

/// The group's pairs were made in one mode (and as one persona): the
/// workbench shows the drilled items the same way, so the verdict beside
/// each label is the one the figure counted. Says what it changed.
fn open_as(
    app: &mut App,
    modes: &std::collections::BTreeSet<Option<crate::domain::Mode>>,
    personas: &std::collections::BTreeSet<std::sync::Arc<str>>,
    perspectives: &std::collections::BTreeSet<String>,
) -> Option<String> {
    let mut said = Vec::new();
    // The pairs' rows must be shown: their perspective, or all of them.
    let shown: Vec<&str> = app
        .active_perspectives()
        .iter()
        .map(|p| p.id.as_str())
        .collect();
    if !perspectives.iter().all(|p| shown.contains(&p.as_str())) {
        let one = match perspectives.iter().collect::<Vec<_>>()[..] {
            [only] => app.data.perspectives.iter().position(|p| p.id == *only),
            _ => None,
        };
        app.choices.perspective = match one {
            Some(i) => PerspectiveSel::One(i),
            None => PerspectiveSel::All,
        };
        said.push(format!(
            "perspective {}",
            crate::tui::strings::flat(&app.perspective_label(), 30)
        ));
    }
    if let [Some(mode)] = modes.iter().collect::<Vec<_>>()[..]
        && *mode != app.choices.mode
    {
        app.choices.mode = *mode;
        said.push(format!("mode {mode}"));
    }
    if let [persona] = personas.iter().collect::<Vec<_>>()[..]
        && let Some(i) = app.data.personas.iter().position(|p| *p.id == **persona)
        && (app.choices.by_owner || app.choices.persona != i)
    {
        // Each item's owner stays when every drilled item is its owner's.
        let members = app.list.drill.as_ref().map(|d| d.members.as_slice());
        let owners_all = app.choices.by_owner
            && members.is_some_and(|m| {
                app.data
                    .items
                    .iter()
                    .zip(m)
                    .all(|(item, &member)| !member || item.owner.as_deref() == Some(&**persona))
            });
        if !owners_all {
            app.choices.by_owner = false;
            app.choices.persona = i;
            said.push(format!(
                "persona {}",
                crate::tui::strings::flat(persona, 30)
            ));
        }
    }
    (!said.is_empty()).then(|| {
        format!(
            "shown as the figure's pairs were judged: {}",
            said.join(", ")
        )
    })
}

/// Esc: from a drilled list back to the agreement view it came from; from
/// the agreement view (or a list drilled without one) to the full list.
/// False when there was no drill to back out of.
pub fn back(app: &mut App) -> bool {
    match &app.chrome.view {
        View::Main => {
            if let Some(state) = app.chrome.back.take() {
                app.chrome.view = View::Agreement(*state);
                return true;
            }
            if app.list.drill.take().is_some() {
                app.refilter();
                return true;
            }
            false
        }
        View::Agreement(_) if app.list.drill.is_some() => {
            app.list.drill = None;
            app.chrome.back = None;
            app.chrome.view = View::Main;
            app.refilter();
            true
        }
        _ => false,
    }
}
