//! Moving around: panes, rows, the list's filter and order, the views
//! besides the main screen (and what their background loads answer).

use super::super::app::*;
use super::super::input::action::Action;
use super::super::msg::{AgreementPart, Effect};
use crate::domain::Agreement;

/// Help, compare, personas, runs, agreement and prompt views.
pub fn open_view(app: &mut App, action: Action, fx: &mut Vec<Effect>) {
    // Both views are judge values side by side or figures made of them.
    if app.choices.blind && matches!(action, Action::Compare | Action::Agreement) {
        app.chrome.info(crate::tui::strings::msg::blind_hides(
            &app.chrome.keymap.hint(Action::ToggleBlind),
        ));
        return;
    }
    // Each table opens on its first columns.
    app.chrome.column_page = 0;
    app.chrome.view = match action {
        Action::Help => View::Help { scroll: 0 },
        Action::Compare => View::Compare,
        Action::Personas => View::Personas {
            cursor: app
                .choices
                .persona
                .min(app.data.personas.len().saturating_sub(1)),
        },
        Action::Runs => {
            fx.push(Effect::LoadRuns);
            View::Runs(RunsView::Loading)
        }
        Action::Agreement => {
            let side = app.choices.split_side;
            let items = listed_items(app);
            let heads_on_all = items.is_some() && super::selection::list_chosen_by_judge(app);
            let req = app.data.take_req();
            fx.push(Effect::LoadAgreement {
                req,
                scope: crate::report::Scope {
                    side,
                    items: items.clone(),
                    estimates: true,
                    heads_on_all,
                },
            });
            View::Agreement(AgreementState {
                req,
                quick: agreement_rows(app),
                figures: FiguresState::Computing,
                cursor: 0,
                notes: Vec::new(),
                ranking: Vec::new(),
                estimates: Vec::new(),
                side,
                items,
                heads_on_all,
                cells: Vec::new(),
                cell: None,
                progress: super::drill::annotator_progress(app),
            })
        }
        Action::Prompt => View::Prompt {
            text: super::request_preview::preview_text(app),
            scroll: 0,
        },
        _ => return,
    };
}

/// The runs view's store read answered.
pub fn runs_loaded(
    app: &mut App,
    r: Result<(Vec<crate::domain::Run>, Vec<crate::domain::Failure>), String>,
) {
    if let View::Runs(rv) = &mut app.chrome.view {
        // A read again while open keeps the selected run selected, wherever
        // a new run puts it; the first read selects the newest.
        let selected = match rv {
            RunsView::Loaded { runs, cursor, .. } => runs.get(*cursor).map(|r| r.run.id),
            _ => None,
        };
        *rv = match r {
            Ok((mut runs, failures)) => {
                runs.sort_by_key(|r| std::cmp::Reverse(r.id));
                let cursor = selected
                    .and_then(|id| runs.iter().position(|r| r.id == id))
                    .unwrap_or(0);
                RunsView::Loaded {
                    runs: runs.into_iter().map(ListedRun::new).collect(),
                    failures,
                    cursor,
                }
            }
            Err(e) => RunsView::Error(e),
        };
    }
}

/// In the agreement and runs views on a narrow screen: the next set of
/// columns that gave way, in place of the others, and back to the first
/// after the last. Elsewhere, or when every column fits, it says so and
/// changes nothing.
pub fn other_columns(app: &mut App) {
    use crate::tui::layout::columns;
    let cols = match app.chrome.view {
        View::Agreement(_) => columns::AGREEMENT,
        View::Runs(_) => columns::RUNS,
        _ => {
            app.chrome
                .info(crate::tui::strings::msg::OTHER_COLUMNS_WHERE);
            return;
        }
    };
    let pages = columns::pages(cols, crate::tui::layout::table_width(app.chrome.size)).len();
    if pages < 2 {
        app.chrome.column_page = 0;
        app.chrome
            .info(crate::tui::strings::msg::EVERY_COLUMN_SHOWN);
        return;
    }
    app.chrome.column_page = (app.chrome.column_page + 1) % pages;
}

/// In the agreement view: the figures on all pairs, then on the held-out
/// `test` side only, then on `train` (what `jury report --split` gives).
pub fn cycle_split(app: &mut App, fx: &mut Vec<Effect>) {
    use crate::domain::Side;
    let View::Agreement(a) = &mut app.chrome.view else {
        app.chrome
            .info(crate::tui::strings::msg::SPLIT_IN_AGREEMENT);
        return;
    };
    a.side = match a.side {
        None => Some(Side::Test),
        Some(Side::Test) => Some(Side::Train),
        Some(Side::Train) => None,
    };
    a.figures = FiguresState::Computing;
    a.notes.clear();
    a.ranking.clear();
    a.estimates.clear();
    a.cells.clear();
    a.cell = None;
    a.cursor = 0;
    // A new request: what the last one still sends is for the other side.
    a.req = app.data.take_req();
    app.choices.split_side = a.side;
    fx.push(Effect::LoadAgreement {
        req: a.req,
        scope: crate::report::Scope {
            side: a.side,
            items: a.items.clone(),
            estimates: true,
            heads_on_all: a.heads_on_all,
        },
    });
}

/// The items the list shows, when it shows fewer than all (a filter, a
/// search or a drill): the agreement view's figures are made on these, so
/// that a figure and the items behind it are about the same items.
fn listed_items(app: &App) -> Option<std::sync::Arc<crate::report::ItemSet>> {
    if app.list.filtered.len() == app.data.items.len() {
        return None;
    }
    Some(std::sync::Arc::new(
        app.list
            .filtered
            .iter()
            .filter_map(|&i| app.data.items.get(i as usize))
            .map(|item| item.id.to_string())
            .collect(),
    ))
}

/// A part of the agreement report arrived: taken when it answers the
/// request the open agreement view waits for, dropped when it answers an
/// earlier one (another side, or a view since closed).
pub fn agreement_answered(app: &mut App, req: u64, part: AgreementPart) {
    let View::Agreement(a) = &mut app.chrome.view else {
        return;
    };
    if a.req != req {
        return;
    }
    match part {
        AgreementPart::Figures(r) => {
            a.figures = match r {
                Ok(groups) => FiguresState::Ready(groups),
                Err(e) => FiguresState::Error(crate::tui::strings::flat(&e, 300)),
            };
            a.cursor = 0;
            a.cell = None;
        }
        AgreementPart::Notes(lines) => a.notes = lines,
        AgreementPart::Ranking(rankings) => a.ranking = rankings,
        AgreementPart::Estimates(lines) => a.estimates = lines,
        AgreementPart::Cells(cells) => a.cells = cells,
        AgreementPart::Changes(changes) => super::fewshot_loop::changes(app, changes),
    }
}

/// Tab and shift-tab: the next or previous pane of the main screen.
pub fn focus(app: &mut App, action: Action) {
    if app.chrome.view != View::Main {
        return;
    }
    let next = action == Action::FocusNext;
    app.chrome.focus = match (app.chrome.focus, next) {
        (Pane::List, true) | (Pane::Verdicts, false) => Pane::Item,
        (Pane::Item, true) | (Pane::List, false) => Pane::Verdicts,
        (Pane::Verdicts, true) | (Pane::Item, false) => Pane::List,
    }
}

/// The escalation queue arrived: every item's mark follows it.
pub fn escalations_loaded(app: &mut App, r: Result<crate::tui::msg::Escalations, String>) {
    app.data.escalations_asked = false;
    let crate::tui::msg::Escalations {
        queue,
        judges,
        trusted,
    } = match r {
        Ok(q) => q,
        Err(e) => {
            app.chrome
                .error(crate::tui::strings::msg::escalations_failed(
                    &crate::tui::strings::flat(&e, 200),
                ));
            return;
        }
    };
    let n = queue.len();
    let mut by_item: std::collections::HashMap<String, Vec<_>> = Default::default();
    for (persona, key) in queue {
        by_item
            .entry(key.item_id.clone())
            .or_default()
            .push((persona, key));
    }
    app.data.escalations = Some(by_item);
    app.data.escalations_trusted = trusted;
    for i in 0..app.data.items.len() {
        app.data.refresh_marks(i);
    }
    app.refilter();
    if app.list.filter == Filter::NeedsPerson {
        let judges: Vec<String> = judges
            .iter()
            .map(|j| crate::tui::strings::flat(j, 60))
            .collect();
        app.chrome.info(crate::tui::strings::msg::escalations(
            n,
            app.list.filtered.len(),
            &judges,
            trusted,
        ));
    }
}

/// A run ended: the escalation queue was made of the verdicts before it,
/// and is found again when the list shows it ([`want_escalations`]).
pub fn verdicts_changed(app: &mut App) {
    app.data.escalations = None;
    super::active::verdicts_changed(app);
}

/// Asks for the escalation queue when the list shows it and it is neither
/// there nor already asked for.
pub fn want_escalations(app: &mut App, fx: &mut Vec<Effect>) {
    if app.list.filter != Filter::NeedsPerson
        || app.data.escalations.is_some()
        || app.data.escalations_asked
    {
        return;
    }
    app.data.escalations_asked = true;
    fx.push(Effect::LoadEscalations);
    app.chrome
        .info(crate::tui::strings::msg::FINDING_ESCALATIONS);
}

/// The list's filter or order changed.
pub fn cycle_list(app: &mut App, action: Action) {
    if matches!(action, Action::CycleFilter | Action::CycleFilterBack) {
        let step = |f: Filter| {
            if action == Action::CycleFilter {
                f.next()
            } else {
                f.prev()
            }
        };
        app.list.filter = step(app.list.filter);
        // Blind review: which items the judge disagrees on, or cannot
        // stand by alone, is the judge's answer.
        while app.choices.blind && app.list.filter.reads_judge() {
            app.list.filter = step(app.list.filter);
        }
        app.refilter();
        // My queue opens on the first item assigned to me, not on
        // whatever item the cursor was on.
        app.open_queue_at_my_first();
        // While the queue is still being found, want_escalations says so.
        if app.list.filter != Filter::NeedsPerson || app.data.escalations.is_some() {
            // Named in full: at 80 columns the list's border cuts it.
            app.chrome.info(crate::tui::strings::msg::filter_chosen(
                app.list.filter.name(),
                app.list.filtered.len(),
                app.data.items.len(),
            ));
        }
        return;
    }
    if app.choices.blind {
        // Every other order is made of the judge's verdicts.
        app.chrome.info(crate::tui::strings::msg::blind_hides(
            &app.chrome.keymap.hint(Action::ToggleBlind),
        ));
        return;
    }
    app.list.order = app.list.order.next();
    app.refilter();
    app.list.cursor = 0;
    app.list.list_offset = 0;
    app.refresh_detail();
    app.chrome
        .info(crate::tui::strings::msg::list_order(app.list.order.name()));
    // Back in an active order already laid out: on the next draw's row,
    // as when it first arrived (the first row is not what counts next).
    super::active::focus_next_draw(app);
}

/// Esc: backs out one step — the view, the search, the filter, the message.
/// Runs go on: stopping one is its own key ([`super::cancel::ask`]).
/// Esc backs out one step: a drilled list (to the figure it came from), a
/// view, the search, the filter, then the first start's legend. It never
/// stops a run. (The message went already: any action clears it.)
pub fn cancel(app: &mut App) {
    if super::drill::back(app) {
        return;
    }
    if app.chrome.view != View::Main {
        app.chrome.view = View::Main;
    } else if !app.list.search.is_empty() {
        app.list.search.clear();
        app.refilter();
    } else if app.list.filter != Filter::All {
        app.list.filter = Filter::All;
        app.refilter();
    } else if app.chrome.legend.take().is_some() {
        app.scroll_list_to_cursor();
    }
}

pub fn movement(app: &mut App, action: Action) {
    let page = app.list_height().max(1) as i64;
    let delta: i64 = match action {
        Action::MoveDown => 1,
        Action::MoveUp => -1,
        Action::PageDown => page,
        Action::PageUp => -page,
        Action::Top => i64::MIN / 2,
        _ => i64::MAX / 2,
    };
    // A text view scrolls from its top to where its last page fills the
    // view: `G` shows the last page, `g` the first, whatever came before.
    let limit = i64::from(crate::tui::layout::scroll::scroll_limit(
        app,
        app.chrome.size,
    ));
    let in_view = |v: u16| (v as i64).saturating_add(delta).clamp(0, limit) as u16;
    let step = |v: u16| (v as i64 + delta.clamp(-10_000, 10_000)).clamp(0, u16::MAX as i64) as u16;
    match &mut app.chrome.view {
        View::Help { scroll } | View::Prompt { scroll, .. } => *scroll = in_view(*scroll),
        View::Personas { cursor } => *cursor = clamp_add(*cursor, delta, app.data.personas.len()),
        View::Runs(RunsView::Loaded { runs, cursor, .. }) => {
            *cursor = clamp_add(*cursor, delta, runs.len())
        }
        View::Compare => move_row(app, delta.clamp(-1000, 1000) as i32),
        View::Agreement(AgreementState {
            figures: FiguresState::Ready(groups),
            cursor,
            ..
        }) => *cursor = clamp_add(*cursor, delta, groups.len()),
        View::Main => match app.chrome.focus {
            Pane::List => {
                app.list.cursor = clamp_add(app.list.cursor, delta, app.list.filtered.len());
                app.scroll_list_to_cursor();
                app.refresh_detail();
            }
            Pane::Item => app.list.text_scroll = step(app.list.text_scroll),
            Pane::Verdicts => move_row(app, delta.clamp(-1000, 1000) as i32),
        },
        _ => {}
    }
}

fn clamp_add(v: usize, d: i64, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    (v as i64).saturating_add(d).clamp(0, len as i64 - 1) as usize
}

pub fn move_row(app: &mut App, d: i32) {
    let n = app.row_count();
    app.list.row = clamp_add(app.list.row, d as i64, n);
}

/// Judge vs human per classification over every label and the latest verdict
/// on the same combination and persona.
pub fn agreement_rows(app: &App) -> Vec<AgreementRow> {
    let mut rows: std::collections::BTreeMap<String, AgreementRow> = Default::default();
    for (item, labels) in &app.data.labels {
        // The listed items only, as the figures below them.
        let listed = app
            .data
            .index_of
            .get(item.as_str())
            .is_some_and(|&i| app.list.is_listed(i as usize));
        if !listed {
            continue;
        }
        let Some(vs) = app.data.verdicts.get(item) else {
            continue;
        };
        for e in labels {
            let l = &e.label;
            let Some(v) = vs
                .iter()
                .filter(|v| v.key == l.key && v.persona_id == l.persona_id)
                .filter(|v| {
                    v.value.scale() == l.value.scale()
                        || v.value.as_agreement().is_some()
                        || l.value.as_agreement().is_some()
                })
                .max_by(|a, b| a.created_at.cmp(&b.created_at))
            else {
                continue;
            };
            let r = rows
                .entry(l.key.classification_id.clone())
                .or_insert_with(|| AgreementRow {
                    classification: l.key.classification_id.clone(),
                    n: 0,
                    agree: 0,
                    undecided: 0,
                    half_credit: 0.0,
                    half_n: 0,
                    judge_agree: 0,
                    human_agree: 0,
                });
            let cross = v.value.scale() != l.value.scale();
            if cross
                && let (Some(a), Some(b)) = (
                    crate::analytics::agreement_reading(v.value),
                    crate::analytics::agreement_reading(l.value),
                )
            {
                r.half_credit += 1.0 - (a - b).abs();
                r.half_n += 1;
            }
            if cross && (v.value.as_agreement().is_none() || l.value.as_agreement().is_none()) {
                r.undecided += 1;
                continue;
            }
            r.n += 1;
            if !disagrees(v.value, l.value) {
                r.agree += 1;
            }
            if v.value.as_agreement() == Some(Agreement::Agree) {
                r.judge_agree += 1;
            }
            if l.value.as_agreement() == Some(Agreement::Agree) {
                r.human_agree += 1;
            }
        }
    }
    rows.into_values().collect()
}

/// The compare view's columns: modes → personas → models (opens the view).
pub fn cycle_compare_axis(app: &mut App) {
    if app.chrome.view != View::Compare {
        app.chrome.view = View::Compare;
    } else {
        app.choices.compare_axis = app.choices.compare_axis.next();
    }
    app.chrome.info(crate::tui::strings::session::compare_axis(
        app.choices.compare_axis.name(),
    ));
}
