//! One JSON record → one domain value, or a [`FieldError`] naming the field.

use super::fields::{self, FieldError, id, kind, pick, strings, text};
use crate::domain::{Classification, ComboKey, Item, Label, Persona, Perspective, Scale, Source};
use serde_json::{Map, Value};

/// What a record turned out to be.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    Item(Item),
    Persona(Persona),
    Perspective(Perspective),
    Label(Label),
}

impl Record {
    pub fn id(&self) -> String {
        match self {
            Record::Item(i) => i.id.clone(),
            Record::Persona(p) => p.id.clone(),
            Record::Perspective(p) => p.id.clone(),
            // The combination, persona and person a label is unique for.
            Record::Label(l) => format!(
                "{}/{}/{}/{}/{}",
                l.key.item_id, l.key.classification_id, l.key.perspective_id, l.persona_id, l.who
            ),
        }
    }
}

/// Selections that mean "not relevant" and need not be among the available values.
pub fn is_not_relevant(s: &str) -> bool {
    matches!(s.to_ascii_lowercase().as_str(), "none" | "not" | "null")
}

/// Guesses what a record is from its fields and converts it.
pub fn record(v: &Value, default_who: &str) -> Result<Record, FieldError> {
    let obj = v
        .as_object()
        .ok_or_else(|| FieldError::new("", format!("expected a JSON object, found {}", kind(v))))?;
    let has = |names: &[&str]| obj.contains_key(names[0]) || pick(obj, names).is_some();
    if !has(&["classifications"]) && (has(&["ticket"]) || has(&["response"])) {
        return rubric_example(obj).map(Record::Item);
    }
    if !has(&["classifications"]) && has(&["events"]) {
        return owned(conversation(obj)?, obj);
    }
    if has(&["classifications"]) {
        return owned(item(obj)?, obj);
    }
    if has(&["definition"]) {
        return persona(obj).map(Record::Persona);
    }
    if has(&["value"]) && has(&["classificationId", "classification_id", "classification"]) {
        return label(obj, default_who).map(Record::Label);
    }
    if has(&[
        "perspectiveId",
        "perspective_id",
        "perspectiveText",
        "perspective_text",
        "text",
    ]) {
        return perspective(obj).map(Record::Perspective);
    }
    Err(FieldError::new(
        "",
        "cannot tell what this record is: an item needs 'classifications', a conversation 'events', a persona 'definition', \
         a perspective 'text', a label 'value' and 'classificationId'",
    ))
}

pub fn item(obj: &Map<String, Value>) -> Result<Item, FieldError> {
    let id = id(obj, &["itemId", "item_id", "id"])?;
    let (sent_text, sent_ms) = fields::sent(obj)?;
    let title = text(obj, &["title"])?;
    let body = text(obj, &["summary", "text", "content", "body"])?;
    if title.is_empty() && body.is_empty() {
        return Err(FieldError::new(
            "summary",
            "is missing (an item needs a title or a text)",
        ));
    }
    let source = match pick(obj, &["source"]) {
        None => Source::default(),
        Some((_, Value::Object(s))) => Source {
            kind: text(s, &["type", "kind"]).map_err(|e| e.within("source"))?,
            originator: text(s, &["originator", "from"]).map_err(|e| e.within("source"))?,
            channel: text(s, &["channel"]).map_err(|e| e.within("source"))?,
        },
        Some((k, other)) => {
            return Err(FieldError::new(
                k,
                format!("must be an object, found {}", kind(other)),
            ));
        }
    };
    let tags = strings(obj, &["tags"])?;
    let list = match pick(obj, &["classifications"]) {
        Some((_, Value::Array(a))) if !a.is_empty() => a,
        Some((_, Value::Array(_))) => return Err(FieldError::new("classifications", "is empty")),
        Some((k, other)) => {
            return Err(FieldError::new(
                k,
                format!("must be an array, found {}", kind(other)),
            ));
        }
        None => return Err(FieldError::new("classifications", "is missing")),
    };
    let mut classifications: Vec<Classification> = Vec::with_capacity(list.len());
    // A set, not a look back over the list: an item with thousands of
    // classifications (a wide CSV) is checked in linear time.
    let mut ids = std::collections::HashSet::with_capacity(list.len());
    for (i, c) in list.iter().enumerate() {
        let at = format!("classifications[{i}]");
        let c = classification(c).map_err(|e| e.within(&at))?;
        if !ids.insert(c.id.clone()) {
            return Err(FieldError::new(
                format!("{at}.name"),
                format!("duplicate classification '{}'", c.id),
            ));
        }
        classifications.push(c);
    }
    Ok(Item {
        id,
        sent_text,
        sent_ms,
        title,
        text: body,
        source,
        tags,
        classifications,
        ..Item::default()
    })
}

/// The item with the owner its record names (`persona`), if it names one;
/// import keeps it only when that persona exists (see `owners`).
fn owned(mut item: Item, obj: &Map<String, Value>) -> Result<Record, FieldError> {
    let name = text(obj, &["persona", "owner"])?;
    item.owner = (!name.trim().is_empty()).then_some(name);
    Ok(Record::Item(item))
}

fn classification(v: &Value) -> Result<Classification, FieldError> {
    let obj = v
        .as_object()
        .ok_or_else(|| FieldError::new("", format!("expected an object, found {}", kind(v))))?;
    let id = id(
        obj,
        &["name", "id", "classificationId", "classification_id"],
    )?;
    let description = text(obj, &["desc", "description"])?;
    let available = strings(
        obj,
        &[
            "available",
            "fromAvailableClassifications",
            "from_available_classifications",
            "options",
        ],
    )?;
    if available.is_empty() {
        return Err(FieldError::new("available", "is missing or empty"));
    }
    let selected = match pick(obj, &["selected", "classifiedAs", "classified_as"]) {
        None => None,
        Some((_, Value::String(s))) => Some(s.clone()),
        Some((k, other)) => {
            return Err(FieldError::new(
                k,
                format!("must be a string or null, found {}", kind(other)),
            ));
        }
    };
    if let Some(s) = &selected
        && !available.contains(s)
        && !is_not_relevant(s)
    {
        return Err(FieldError::new(
            "selected",
            format!(
                "'{}' is not one of the available values [{}]",
                crate::sanitize::one_line(s, 60),
                available.join(", ")
            ),
        ));
    }
    Ok(Classification {
        id,
        description,
        available,
        selected,
    })
}

pub fn persona(obj: &Map<String, Value>) -> Result<Persona, FieldError> {
    let id = id(obj, &["id", "personaId", "persona_id"])?;
    if let Some(why) = crate::domain::reserved_id(&id) {
        return Err(FieldError::new("id", why));
    }
    let name = text(obj, &["name"])?;
    let definition = match pick(obj, &["definition"]) {
        Some((_, d @ Value::Object(_))) => d.clone(),
        Some((k, other)) => {
            return Err(FieldError::new(
                k,
                format!("must be an object, found {}", kind(other)),
            ));
        }
        None => return Err(FieldError::new("definition", "is missing")),
    };
    Ok(Persona {
        name: if name.is_empty() { id.clone() } else { name },
        id,
        definition,
    })
}

pub fn perspective(obj: &Map<String, Value>) -> Result<Perspective, FieldError> {
    let id = id(obj, &["perspectiveId", "perspective_id", "id"])?;
    if let Some(why) = crate::domain::reserved_perspective_id(&id) {
        return Err(FieldError::new("id", why));
    }
    let name = text(obj, &["perspectiveName", "perspective_name", "name"])?;
    let text = text(obj, &["perspectiveText", "perspective_text", "text"])?;
    if text.trim().is_empty() {
        return Err(FieldError::new("text", "is missing or empty"));
    }
    Ok(Perspective {
        name: if name.is_empty() { id.clone() } else { name },
        id,
        text,
    })
}

pub fn label(obj: &Map<String, Value>, default_who: &str) -> Result<Label, FieldError> {
    let item_id = id(obj, &["itemId", "item_id"])?;
    let classification_id = id(
        obj,
        &["classificationId", "classification_id", "classification"],
    )?;
    let perspective_id = id(obj, &["perspectiveId", "perspective_id", "perspective"])?;
    let persona_id = id(obj, &["personaId", "persona_id", "persona"])?;
    let (vk, raw) = pick(obj, &["value"]).ok_or_else(|| FieldError::new("value", "is missing"))?;
    let scale = match pick(obj, &["scale"]) {
        Some((k, Value::String(s))) => Scale::parse_name(s)
            .ok_or_else(|| FieldError::new(k, format!("unknown scale '{s}'")))?,
        Some((k, other)) => {
            return Err(FieldError::new(
                k,
                format!("must be a string, found {}", kind(other)),
            ));
        }
        None => infer_scale(raw),
    };
    let value = scale
        .from_json(raw)
        .map_err(|e| FieldError::new(vk, e.to_string()))?;
    let who = text(obj, &["who", "annotator", "by"])?;
    // An empty `who` is the import's `--who`. A name with `:` would take
    // another person's wide-export column (a blank one, from an older
    // export, is kept: it collides with no one).
    if who.contains(':')
        && let Some(why) = crate::domain::refused_who(&who)
    {
        return Err(FieldError::new("who", why));
    }
    // What jury's own exports carry besides the value: the judge's value a
    // label replaced, and whether it was given blind. Read back, an
    // export → import round trip keeps them.
    let replaced_judge_value = match pick(obj, &["replacedJudgeValue", "replaced_judge_value"]) {
        None => None,
        Some((_, Value::String(s))) if s.is_empty() => None,
        Some((k, raw)) => Some(
            scale
                .from_json(raw)
                .map_err(|e| FieldError::new(k, e.to_string()))?,
        ),
    };
    let blind = match pick(obj, &["blind"]) {
        None => false,
        Some((_, Value::Bool(b))) => *b,
        Some((_, Value::String(s))) if s == "true" => true,
        Some((_, Value::String(s))) if s == "false" || s.is_empty() => false,
        Some((k, other)) => {
            return Err(FieldError::new(
                k,
                format!("must be true or false, found {}", kind(other)),
            ));
        }
    };
    let tags = label_tags(obj)?;
    Ok(Label {
        key: ComboKey {
            item_id,
            classification_id,
            perspective_id,
        },
        persona_id,
        value,
        note: text(obj, &["note"])?,
        who: if who.is_empty() {
            default_who.to_string()
        } else {
            who
        },
        // Empty when the file does not say: the store then stamps a new
        // label now and never lets an undated one replace a stored one.
        created_at: fields::timestamp(obj, &["createdAt", "created_at"])?,
        replaced_judge_value,
        blind,
        tags,
    })
}

/// Whether a label record says it was given as a random sample, as jury's
/// exports write it: `sampled` (true/false, or that as text in a CSV cell)
/// and `sample_seed` (a number, or empty/null when unknown). `Some(seed)`
/// when sampled (a seed alone says so too); `None` when the record does not
/// say, or says false.
pub fn label_sample(
    obj: &Map<String, Value>,
) -> Result<Option<crate::store::SampleSeed>, FieldError> {
    let sampled = match pick(obj, &["sampled"]) {
        None => None,
        Some((_, Value::Bool(b))) => Some(*b),
        Some((_, Value::Null)) => None,
        Some((_, Value::String(s))) if s.trim().is_empty() => None,
        Some((_, Value::String(s))) if s.trim() == "true" => Some(true),
        Some((_, Value::String(s))) if s.trim() == "false" => Some(false),
        Some((k, other)) => {
            return Err(FieldError::new(
                k,
                format!("must be true or false, found {}", kind(other)),
            ));
        }
    };
    let seed = match pick(obj, &["sampleSeed", "sample_seed"]) {
        None | Some((_, Value::Null)) => None,
        Some((_, Value::String(s))) if s.trim().is_empty() => None,
        Some((k, v)) => {
            let n = match v {
                Value::Number(n) => n.as_u64(),
                Value::String(s) => s.trim().parse::<u64>().ok(),
                _ => None,
            };
            Some(n.ok_or_else(|| {
                FieldError::new(k, format!("must be a whole number ≥ 0, found {v}"))
            })?)
        }
    };
    Ok(match (sampled, seed) {
        (Some(false), _) => None,
        (Some(true), seed) => Some(seed),
        (None, Some(seed)) => Some(Some(seed)),
        (None, None) => None,
    })
}

/// A label's tags as jury's exports write them: a list of names (JSONL), or
/// that list as JSON text (a CSV cell); absent or empty is none.
fn label_tags(obj: &Map<String, Value>) -> Result<Vec<String>, FieldError> {
    let Some((k, raw)) = pick(obj, &["tags"]) else {
        return Ok(Vec::new());
    };
    let parsed;
    let list = match raw {
        Value::String(s) if s.trim().is_empty() => return Ok(Vec::new()),
        Value::String(s) => {
            parsed = serde_json::from_str::<Value>(s)
                .map_err(|_| FieldError::new(k, "must be a list of tag names"))?;
            &parsed
        }
        other => other,
    };
    let Value::Array(items) = list else {
        return Err(FieldError::new(
            k,
            format!("must be a list of tag names, found {}", kind(list)),
        ));
    };
    items
        .iter()
        .map(|t| match t {
            Value::String(s) => match crate::config::bad_tag_name(s) {
                None => Ok(s.clone()),
                Some(why) => Err(FieldError::new(k, why)),
            },
            other => Err(FieldError::new(
                k,
                format!("must hold tag names, found {}", kind(other)),
            )),
        })
        .collect()
}

/// The scale a label's value is on when the record does not say.
pub fn infer_scale(v: &Value) -> Scale {
    match v {
        Value::Bool(_) => Scale::Bool,
        Value::String(s) => match s.to_ascii_lowercase().as_str() {
            "agree" | "disagree" => Scale::Agreement,
            "true" | "false" => Scale::Bool,
            "no" | "partially" | "fully" => Scale::Degree,
            _ => Scale::Likert,
        },
        _ => Scale::Likert,
    }
}

/// A rubric example {id, ticket, response}: all three non-empty strings.
pub fn rubric_example(obj: &Map<String, Value>) -> Result<Item, FieldError> {
    let need = |k: &str| -> Result<String, FieldError> {
        match obj.get(k) {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
            Some(Value::String(_)) => Err(FieldError::new(k, format!("Empty '{k}' field"))),
            Some(other) => Err(FieldError::new(
                k,
                format!("'{k}' must be a string, found {}", kind(other)),
            )),
            None => Err(FieldError::new(k, format!("Missing '{k}' field"))),
        }
    };
    let id = need("id")?;
    let ticket = need("ticket")?;
    let response = need("response")?;
    let title: String = ticket
        .lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(80)
        .collect();
    Ok(Item {
        id,
        title,
        text: format!("Ticket:\n{ticket}\n\nResponse:\n{response}"),
        source: Source {
            kind: "rubric".into(),
            originator: String::new(),
            channel: String::new(),
        },
        kind: crate::protocol::rubric::KIND.into(),
        payload: serde_json::json!({"ticket": ticket, "response": response}),
        ..Item::default()
    })
}

/// A conversation `{id, events: [{source, kind, content}], guidelines: [{id,
/// condition, action}]}` (guidelines optional; sent, tags, source and agent
/// kept when given). Stored as an item of kind `conversation`: the events and
/// guidelines in the payload, the first customer message as title and the
/// rendered conversation as text.
pub fn conversation(obj: &Map<String, Value>) -> Result<Item, FieldError> {
    use crate::protocol::guideline;
    let id = id(obj, &["id", "conversationId", "conversation_id"])?;
    let (sent_text, sent_ms) = fields::sent(obj)?;
    let list = match pick(obj, &["events"]) {
        Some((_, Value::Array(a))) if !a.is_empty() => a,
        Some((_, Value::Array(_))) => return Err(FieldError::new("events", "is empty")),
        Some((k, other)) => {
            return Err(FieldError::new(
                k,
                format!("must be an array, found {}", kind(other)),
            ));
        }
        None => return Err(FieldError::new("events", "is missing")),
    };
    let mut events = Vec::with_capacity(list.len());
    for (i, e) in list.iter().enumerate() {
        events.push(
            guideline::normalise_event(e)
                .map_err(|m| FieldError::new(format!("events[{i}]"), m))?,
        );
    }
    let mut guidelines: Vec<Value> = Vec::new();
    match pick(obj, &["guidelines"]) {
        None | Some((_, Value::Null)) => {}
        Some((_, Value::Array(a))) => {
            for (i, g) in a.iter().enumerate() {
                let at = format!("guidelines[{i}]");
                let go = g.as_object().ok_or_else(|| {
                    FieldError::new(&at, format!("expected an object, found {}", kind(g)))
                })?;
                let gid = match go.get("id") {
                    Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
                    Some(Value::Number(n)) => n.to_string(),
                    None => (i + 1).to_string(),
                    Some(other) => {
                        return Err(FieldError::new(
                            format!("{at}.id"),
                            format!("must be a non-empty string, found {}", kind(other)),
                        ));
                    }
                };
                let condition = text(go, &["condition"]).map_err(|e| e.within(&at))?;
                let action = text(go, &["action"]).map_err(|e| e.within(&at))?;
                if action.trim().is_empty() {
                    return Err(FieldError::new(
                        format!("{at}.action"),
                        "is missing or empty",
                    ));
                }
                if guidelines.iter().any(|p| p["id"] == gid.as_str()) {
                    return Err(FieldError::new(
                        format!("{at}.id"),
                        format!("duplicate guideline '{gid}'"),
                    ));
                }
                guidelines
                    .push(serde_json::json!({"id": gid, "condition": condition, "action": action}));
            }
        }
        Some((k, other)) => {
            return Err(FieldError::new(
                k,
                format!("must be an array, found {}", kind(other)),
            ));
        }
    }
    let source = match pick(obj, &["source"]) {
        Some((_, Value::Object(s))) => Source {
            kind: text(s, &["type", "kind"]).map_err(|e| e.within("source"))?,
            originator: text(s, &["originator", "from"]).map_err(|e| e.within("source"))?,
            channel: text(s, &["channel"]).map_err(|e| e.within("source"))?,
        },
        _ => Source {
            kind: "conversation".into(),
            originator: String::new(),
            channel: String::new(),
        },
    };
    let mut payload = serde_json::json!({"events": events, "guidelines": guidelines});
    if let Some(agent) = obj.get("agent").filter(|a| a.is_object()) {
        payload["agent"] = agent.clone();
    }
    let item_events: Vec<guideline::Event> = events
        .iter()
        .map(|e| guideline::Event {
            source: e["source"].as_str().unwrap_or("").to_string(),
            kind: e["kind"].as_str().unwrap_or("").to_string(),
            content: match &e["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
        })
        .collect();
    let title = item_events
        .iter()
        .find(|e| e.source == "customer" && e.kind == "message")
        .map(|e| {
            e.content
                .lines()
                .next()
                .unwrap_or("")
                .chars()
                .take(80)
                .collect()
        })
        .unwrap_or_default();
    Ok(Item {
        id,
        sent_text,
        sent_ms,
        title,
        text: guideline::render_events(&item_events, 1),
        source,
        tags: strings(obj, &["tags"])?,
        kind: guideline::KIND.into(),
        payload,
        ..Item::default()
    })
}
