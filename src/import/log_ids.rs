//! jury's ids in another tool's file (an Inspect sample, a promptfoo test,
//! a Label Studio task, an Argilla record): each where `--map` says
//! (`id=PATH`, `persona=PATH`: a dotted path in the sample or test), else
//! under its own name in the part of it the tool keeps the user's fields
//! in (Inspect's `metadata`, promptfoo's `vars`, Label Studio's `data`,
//! Argilla's `metadata`).

use super::parse::Accept;
use super::{Batch, ImportError, Location};
use crate::export::queue::ID_KEYS;
use serde_json::{Map, Value};

/// The four ids in [`ID_KEYS`] order, or (field, why) for the first that
/// cannot be found. `own_id`: the item id the tool itself gives the sample
/// (Inspect's sample `id`), used when nothing else names it.
pub(super) fn ids(
    accept: &Accept<'_>,
    obj: &Map<String, Value>,
    holder: Option<&Map<String, Value>>,
    holder_name: &str,
    own_id: Option<&Value>,
) -> Result<[Value; 4], (String, String)> {
    let mut out: [Value; 4] = Default::default();
    let mut missing = Vec::new();
    for (slot, key) in out.iter_mut().zip(ID_KEYS) {
        let map_field = match key {
            "item_id" => Some("id"),
            "persona_id" => Some("persona"),
            _ => None,
        };
        match map_field.and_then(|f| accept.mapped(f, obj)) {
            Some(Ok(v)) => *slot = v,
            Some(Err(why)) => return Err((map_field.unwrap_or(key).to_string(), why)),
            None => match holder.and_then(|h| h.get(key)) {
                Some(v) => *slot = v.clone(),
                None if key == "item_id" && own_id.is_some() => {
                    *slot = own_id.cloned().unwrap_or(Value::Null)
                }
                None => missing.push(key),
            },
        }
    }
    if missing.is_empty() {
        Ok(out)
    } else {
        Err((
            holder_name.to_string(),
            format!(
                "needs jury's ids: {} missing (or say where they are with --map id=PATH,persona=PATH)",
                missing.join(", ")
            ),
        ))
    }
}

/// A row holding the four ids under their names, for a label or verdict
/// record to be built on.
pub(super) fn row_of(ids: &[Value; 4]) -> Map<String, Value> {
    ID_KEYS
        .into_iter()
        .zip(ids.iter())
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// The ids of a Label Studio task or Argilla record jury exported (kept
/// under `holder_name`), or None once the entry is refused at `at`:
/// "the `what` needs jury's ids…; `hint`".
pub(super) fn exported_ids(
    accept: &mut Accept<'_>,
    at: &Location,
    obj: &Map<String, Value>,
    holder_name: &str,
    (what, hint): (&str, &str),
    batch: &mut Batch<'_>,
) -> Result<Option<[Value; 4]>, ImportError> {
    let holder = obj.get(holder_name).and_then(Value::as_object);
    match ids(accept, obj, holder, holder_name, None) {
        Ok(ids) => Ok(Some(ids)),
        Err((field, why)) => {
            let e = accept.error(at, &field, format!("the {what} {why}; {hint}"));
            accept.refuse(e, batch).map(|()| None)
        }
    }
}
