//! What the judge is shown of an item: conversation windows (`--first-n`,
//! `--last-n`), item fields by name, and claim variables filled from them.

use crate::domain::{Item, Persona};
use crate::protocol::ProtocolError;
use crate::protocol::guideline::{self, Event};
use serde_json::Value;

pub(super) fn or_dash(s: &str) -> &str {
    if s.is_empty() { "-" } else { s }
}

/// The events to show under `first_n` / `last_n` (both: the first n, a gap
/// marker, then the last n), and a note saying what was left out.
pub fn window(
    events: &[Event],
    first_n: Option<usize>,
    last_n: Option<usize>,
) -> (String, Option<String>) {
    let total = events.len();
    let render = |evs: &[Event], from: usize| guideline::render_events(evs, from);
    match (first_n, last_n) {
        (Some(f), Some(l)) if f + l < total => {
            let head = render(&events[..f], 1);
            let tail = render(&events[total - l..], total - l + 1);
            (
                format!("{head}\n[… {} event(s) left out …]\n{tail}", total - f - l),
                Some(format!("the first {f} and the last {l} are shown")),
            )
        }
        (Some(f), None) if f < total => (
            render(&events[..f], 1),
            Some(format!("the first {f} are shown")),
        ),
        (None, Some(l)) if l < total => (
            render(&events[total - l..], total - l + 1),
            Some(format!("the last {l} are shown")),
        ),
        _ => (render(events, 1), None),
    }
}

/// The values of an item field by name, as the claim variables and the
/// precondition see them: `id`, `title`, `text`, `kind`, `sent`, `source.type`,
/// `source.originator`, `source.channel`, `tags` (several), `classification.ID`
/// (its selection), `payload.PATH` (a bare unknown name also looks in the payload).
/// `None` when the item has no such field.
pub fn field_values(item: &Item, field: &str) -> Option<Vec<String>> {
    let one = |s: &str| Some(vec![s.to_string()]);
    match field {
        "id" => one(&item.id),
        "title" => one(&item.title),
        "text" | "summary" => one(&item.text),
        "kind" => one(&item.kind),
        "sent" => item.sent_text.as_deref().and_then(one),
        "source.type" | "source.kind" | "source" => one(&item.source.kind),
        "source.originator" | "originator" | "source.from" => one(&item.source.originator),
        "source.channel" | "channel" => one(&item.source.channel),
        "tags" => Some(item.tags.clone()),
        f => {
            if let Some(c) = f
                .strip_prefix("classification.")
                .or_else(|| f.strip_prefix("classifications."))
            {
                let cls = item.classification(c)?;
                return one(cls.selected.as_deref().unwrap_or("none"));
            }
            let path = f.strip_prefix("payload.").unwrap_or(f);
            let mut v = &item.payload;
            for part in path.split('.') {
                v = match v {
                    Value::Object(m) => m.get(part)?,
                    Value::Array(a) => a.get(part.parse::<usize>().ok()?)?,
                    _ => return None,
                };
            }
            Some(match v {
                Value::Null => return None,
                Value::String(s) => vec![s.clone()],
                Value::Array(a) => a
                    .iter()
                    .map(|x| {
                        x.as_str()
                            .map(String::from)
                            .unwrap_or_else(|| x.to_string())
                    })
                    .collect(),
                other => vec![other.to_string()],
            })
        }
    }
}

/// Fills `{{variable}}` placeholders from the item's fields (see [`field_values`]);
/// `{{persona.name}}` / `{{persona.id}}` from the persona. A variable the item
/// has no value for is an error (a typo must not silently become an empty string).
pub fn render_claim(
    claim: &str,
    item: &Item,
    persona: Option<&Persona>,
) -> Result<String, ProtocolError> {
    let mut out = String::with_capacity(claim.len());
    let mut rest = claim;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let end = after
            .find("}}")
            .ok_or(ProtocolError::UnclosedClaimVariable)?;
        let name = after[..end].trim();
        let value = match (name, persona) {
            ("persona.name", Some(p)) => Some(vec![p.name.clone()]),
            ("persona.id", Some(p)) => Some(vec![p.id.clone()]),
            _ => field_values(item, name),
        };
        match value {
            Some(v) => out.push_str(&v.join(", ")),
            None => {
                return Err(ProtocolError::NoClaimValue {
                    name: name.to_string(),
                    item: item.id.clone(),
                });
            }
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}
