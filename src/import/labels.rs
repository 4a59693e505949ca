//! Labels checked as `jury label` checks one, once every file of the import
//! is read: what they refer to must exist, their value must be on the scale.

use super::{Batch, ImportError, RecordError};
use crate::domain::{Label, Scale};
use std::collections::HashSet;

/// A label is checked as `jury label` checks one: its item, classification,
/// persona and perspective must exist (in this import or already in the
/// store: the import's transaction holds both), and its value must be on its
/// classification's scale.
pub(super) fn check_labels(batch: &mut Batch<'_>, skip_invalid: bool) -> Result<(), ImportError> {
    if batch.labels.is_empty() {
        return Ok(());
    }
    let personas = batch.tx.persona_ids()?;
    let perspectives = batch.tx.perspective_ids()?;
    // Claim ids and rubric dimensions are defined by runs, not by items.
    let free = |p: &str| {
        use crate::domain::Protocol;
        matches!(
            Protocol::of_perspective(p),
            Protocol::Proposition | Protocol::Rubric
        )
    };
    // What each item offers to label (its classifications, a conversation's
    // guidelines); labels of one item usually come together.
    let mut last: Option<(String, Option<HashSet<String>>)> = None;
    let mut kept = Vec::with_capacity(batch.labels.len());
    let origins = std::mem::take(&mut batch.label_origins);
    for (l, (file, at)) in std::mem::take(&mut batch.labels).into_iter().zip(origins) {
        if last.as_ref().is_none_or(|(id, _)| *id != l.key.item_id) {
            let offered = offered_by(&batch.tx, &l.key.item_id)?;
            last = Some((l.key.item_id.clone(), offered));
        }
        let offered = last.as_ref().and_then(|(_, o)| o.as_ref());
        let problem = match offered {
            None => Some(("itemId", format!("no item '{}'", l.key.item_id))),
            Some(c) if !c.contains(&l.key.classification_id) && !free(&l.key.perspective_id) => {
                Some((
                    "classificationId",
                    format!(
                        "item '{}' has no classification '{}'",
                        l.key.item_id, l.key.classification_id
                    ),
                ))
            }
            _ => label_problem(&l, &personas, &perspectives),
        };
        match problem {
            None => kept.push(l),
            Some((field, message)) => {
                batch.skip_or_refuse(
                    skip_invalid,
                    RecordError {
                        file,
                        at,
                        field: field.into(),
                        message,
                    },
                )?;
            }
        }
    }
    batch.labels = kept;
    Ok(())
}

/// The scales a label on `perspective` may use, as the judges of that
/// protocol answer on them (and `jury label` reads them).
pub(super) fn scales_for(perspective: &str) -> &'static [Scale] {
    use crate::protocol::{guideline, proposition, rubric};
    match perspective {
        p if p == rubric::PERSPECTIVE => &[Scale::Likert],
        p if p == guideline::PERSPECTIVE => &[Scale::Degree],
        p if p == proposition::PERSPECTIVE => &[Scale::Bool, Scale::Score09],
        // Classifications: Likert (modes 1 and 2) or agreement (mode 3).
        _ => &[Scale::Likert, Scale::Agreement],
    }
}

/// What is wrong with a label's persona, perspective or scale, if anything.
fn label_problem(
    l: &Label,
    personas: &HashSet<String>,
    perspectives: &HashSet<String>,
) -> Option<(&'static str, String)> {
    use crate::protocol::{guideline, proposition, rubric};
    let p = l.key.perspective_id.as_str();
    let protocol =
        p == rubric::PERSPECTIVE || p == guideline::PERSPECTIVE || p == proposition::PERSPECTIVE;
    // Protocol labels may belong to no persona, as their runs record it.
    let persona_ok = personas.contains(&l.persona_id)
        || (protocol && l.persona_id == crate::domain::PersonaRef::NONE_ID);
    if !persona_ok {
        return Some(("personaId", format!("no persona '{}'", l.persona_id)));
    }
    if !protocol && !perspectives.contains(p) {
        return Some(("perspectiveId", format!("no perspective '{p}'")));
    }
    let allowed = scales_for(p);
    let scale = l.value.scale();
    if !allowed.contains(&scale) {
        let names: Vec<&str> = allowed.iter().map(|s| s.as_str()).collect();
        return Some((
            "value",
            format!(
                "'{}' is on the {} scale; a label on perspective '{p}' is on the {} scale",
                l.value.as_text(),
                scale.as_str(),
                names.join(" or ")
            ),
        ));
    }
    None
}

/// What an item offers to label: its classifications' ids and, for a
/// conversation, its guidelines' ids (None: no such item). Labels and
/// imported verdicts are checked against it alike.
pub(super) fn offered_by(
    tx: &crate::store::ImportTx<'_>,
    item_id: &str,
) -> Result<Option<HashSet<String>>, ImportError> {
    Ok(tx.item(item_id)?.map(|item| {
        let mut ids: HashSet<String> = item.classifications.iter().map(|c| c.id.clone()).collect();
        ids.extend(
            crate::protocol::guideline::guidelines(&item)
                .into_iter()
                .map(|g| g.id),
        );
        ids
    }))
}
