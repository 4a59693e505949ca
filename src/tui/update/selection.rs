//! How the combination a label is given on was chosen (docs/design.md §7.10):
//! what `jury estimate` and `jury trust` may treat as a random sample.
//!
//! A label counts as sampled only when it is given on the random order's
//! next item: the list in the `sample` order, no filter or search changing
//! what comes next, and every item before it in that order already labelled
//! by this person on the same classification and perspective (an item
//! skipped with `j` makes every later label chosen). A label given in a list
//! made of the judge's verdicts (the disagreement-first orders, the
//! low-confidence order, the judge≠human filter, the "needs a person"
//! filter while a judge is trusted, a `judge:` search term) is selected by
//! the judge: its combination was picked because of what the judge said,
//! which biases PPI and trust the most. While no judge is trusted "needs a
//! person" lists every unlabelled judged combination, whatever any judge
//! said: its labels are chosen, not the judge's (else PPI and trust would
//! drop the very labels the workbench asked for, and no judge would ever
//! become trusted). Anything else is recorded as neither ("not recorded as
//! sampled").

use crate::domain::ComboKey;
use crate::store::Selected;
use crate::tui::app::App;
use crate::tui::app::Filter;
use crate::tui::app::queue::{Order, SAMPLE_SEED};

/// Said when a label given in the sample order is not its next item's.
pub const NOT_SAMPLED: &str = "label saved, not recorded as sampled: an earlier item in the sample order is unlabelled, or a filter or search changed what came next";

/// How the label about to be given on `key` was chosen, when it is known;
/// read before the label itself is added.
pub fn selection(app: &App, key: &ComboKey) -> Option<Selected> {
    let list = &app.list;
    let judge_order = matches!(
        list.order,
        Order::JudgeHuman | Order::ModeMode | Order::PersonaPersona | Order::LowConfidence
    );
    if judge_order {
        return Some(Selected::Judge(list.order.name()));
    }
    if filter_chosen_by_judge(app) {
        return Some(Selected::Judge(list.filter.name()));
    }
    if list.query.reads_judge() {
        return Some(Selected::Judge("a search on the judge's verdicts"));
    }
    if list.order != Order::Sample || !next_in_sample(app, key) {
        return None;
    }
    Some(Selected::Sample(SAMPLE_SEED))
}

/// Whether the list's filter is made of the judge's choices: judge≠human,
/// and "needs a person" only while the queue is a trusted judge's (without
/// one it is every unlabelled judged combination).
pub fn filter_chosen_by_judge(app: &App) -> bool {
    match app.list.filter {
        Filter::NeedsPerson => app.data.escalations.is_some() && app.data.escalations_trusted,
        f => f.reads_judge(),
    }
}

/// Whether the listed items were chosen by the judge's verdicts: its filter
/// ([`filter_chosen_by_judge`]) or a search term on the judge. The
/// agreement view's accuracy and trust then stay on every item.
pub fn list_chosen_by_judge(app: &App) -> bool {
    filter_chosen_by_judge(app) || app.list.query.reads_judge()
}

/// The focused item is the sample order's next one for `key`'s row: nothing
/// narrows the list, and every item listed before it that has the
/// classification carries this person's label on it.
fn next_in_sample(app: &App, key: &ComboKey) -> bool {
    let list = &app.list;
    // "Not labelled by me" hides only items this person finished: what
    // comes next is the same. Every other filter, a search or a drill
    // changes it.
    let whole = matches!(list.filter, Filter::All | Filter::NotMine)
        && list.search.trim().is_empty()
        && list.query.is_empty()
        && list.drill.is_none();
    let Some(current) = list.current_index() else {
        return false;
    };
    if !whole
        || app
            .data
            .items
            .get(current)
            .is_none_or(|i| *i.id != *key.item_id)
    {
        return false;
    }
    let who = app.data.who.as_str();
    list.filtered[..list.cursor].iter().all(|&i| {
        let Some(item) = app.data.items.get(i as usize) else {
            return true;
        };
        let has = item
            .classifications
            .iter()
            .any(|c| c.meta.id == key.classification_id);
        !has || app.data.labels.get(&*item.id).is_some_and(|ls| {
            ls.iter().any(|e| {
                e.label.who == who
                    && e.label.key.classification_id == key.classification_id
                    && e.label.key.perspective_id == key.perspective_id
            })
        })
    })
}
