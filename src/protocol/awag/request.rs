//! Writing AwAg requests (S8.1.3 for Mode 1, S8.1.4 for Modes 2/3) and their messages.

use crate::domain::{Item, Mode, Persona, Perspective};
use crate::prompt::PromptSet;
use crate::protocol::Unit;
use crate::provider::{ChatCall, Message, ToolSpec};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};

pub const TOOL_NAME: &str = "get_evaluations";

/// Wraps untrusted item text between the boundary markers the system message announces.
pub fn delimit(text: &str, boundary: &str) -> String {
    format!("<<<ITEM-CONTENT {boundary}>>>\n{text}\n<<<END-ITEM-CONTENT {boundary}>>>")
}

/// The text inside one [`delimit`]ed block, whatever its boundary; `None`
/// when `text` is not exactly one such block.
pub fn undelimit(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("<<<ITEM-CONTENT ")?;
    let (token, body) = rest.split_once(">>>\n")?;
    body.strip_suffix(&format!("\n<<<END-ITEM-CONTENT {token}>>>"))
}

pub fn persona_json(p: &Persona) -> Value {
    json!({ "id": p.id, "name": p.name, "definition": p.definition })
}

/// Mode 1: persona, perspectives and items, each item with the classifications
/// asked about (all of them on a first attempt, the missing ones on a retry).
/// Every string in it comes from imported files: [`messages`] sends the whole
/// document between the boundary markers.
pub fn mode1_request(
    persona: &Persona,
    perspectives: &[&Perspective],
    items: &[(&Item, BTreeSet<&str>)],
) -> Value {
    let items: Vec<Value> = items
        .iter()
        .map(|(item, wanted)| {
            let classifications: Vec<Value> = item
                .classifications
                .iter()
                .filter(|c| wanted.contains(c.id.as_str()))
                .map(|c| {
                    json!({
                        "name": c.id,
                        "desc": c.description,
                        "available": c.available,
                        "selected": c.selected_text(),
                    })
                })
                .collect();
            json!({
                "itemId": item.id,
                "sent": item.sent_text.clone().unwrap_or_default(),
                "title": item.title,
                "summary": item.text,
                "source": {
                    "type": item.source.kind,
                    "originator": item.source.originator,
                    "channel": item.source.channel,
                },
                "classifications": classifications,
            })
        })
        .collect();
    json!({
        "persona": persona_json(persona),
        "perspectives": perspectives
            .iter()
            .map(|p| json!({"id": p.id, "name": p.name, "text": p.text}))
            .collect::<Vec<_>>(),
        "items": items,
    })
}

/// Modes 2/3: persona, one perspective, one flat entry per (item, classification).
/// Sent whole between the boundary markers, as Mode 1's.
pub fn mode23_request(
    persona: &Persona,
    perspective: &Perspective,
    entries: &[(&Item, &str)],
) -> Value {
    let items: Vec<Value> = entries
        .iter()
        .filter_map(|(item, cid)| {
            let c = item.classification(cid)?;
            Some(json!({
                "id": {
                    "itemId": item.id,
                    "perspectiveId": perspective.id,
                    "classificationId": c.id,
                },
                "content": item.content_text(),
                "classification": {
                    "description": c.description,
                    "classifiedAs": c.selected_text(),
                    "fromAvailableClassifications": c.available,
                },
            }))
        })
        .collect();
    json!({
        "persona": persona_json(persona),
        "perspective": perspective.text,
        "items": items,
    })
}

/// The messages of a request, in the reference's order: one system message
/// (common + mode extra), the mode prefix, the Likert block (modes 1/2), the
/// worked example (modes 2/3), and the request JSON last.
pub fn messages(prompts: &PromptSet, mode: Mode, request: &Value, boundary: &str) -> Vec<Message> {
    let extra = match mode {
        Mode::One => prompts.text("system_extra_mode1.txt"),
        Mode::Two | Mode::Three => prompts.text("system_extra_mode23.txt"),
    };
    let system = format!(
        "{}\n\n{}",
        prompts
            .text("system_common.txt")
            .replace("{boundary}", boundary),
        extra
    );
    let mut out = vec![Message::system(system)];
    match mode {
        Mode::One => {
            out.push(Message::user(prompts.text("user_prefix_mode1.txt")));
            out.push(Message::user(prompts.text("user_likert.txt")));
        }
        Mode::Two => {
            out.push(Message::user(prompts.text("user_prefix_mode2.txt")));
            out.push(Message::user(prompts.text("user_likert.txt")));
            out.push(Message::user(prompts.text("user_example_mode2.txt")));
        }
        Mode::Three => {
            out.push(Message::user(prompts.text("user_prefix_mode3.txt")));
            out.push(Message::user(prompts.text("user_example_mode3.txt")));
        }
    }
    // Worked examples from people's corrections (`jury fewshot`), when the
    // set has them: item text inside, so between this run's markers.
    let fewshot = prompts.text(crate::prompt::fewshot_file_name(mode));
    if !fewshot.is_empty() {
        out.push(Message::user(fewshot.replace("{boundary}", boundary)));
    }
    // Everything above is the same for every request of a run (a cacheable
    // prefix); the request, all of it untrusted (items, their sender,
    // classification names, descriptions and values, the persona and the
    // perspectives come from imported files), follows it between the
    // boundary markers. Pretty-printed like the reference's examples; models
    // read it more reliably.
    let json = serde_json::to_string_pretty(request).unwrap_or_else(|_| request.to_string());
    out.push(Message::user(delimit(&json, boundary)));
    out
}

pub fn tool(prompts: &PromptSet, mode: Mode) -> ToolSpec {
    ToolSpec {
        name: TOOL_NAME.into(),
        description: format!(
            "Return the evaluation of every requested combination (AwAg mode {}).",
            mode.number()
        ),
        parameters: prompts.result_schema(mode).clone(),
    }
}

/// Groups units by item for Mode 1 (keeping first-seen order).
pub fn by_item(units: &[Unit]) -> BTreeMap<usize, (String, Vec<&Unit>)> {
    // A map, not a scan of the ids seen so far: planning a mode 1 run over
    // 100 000 items calls this once on every unit.
    let order = crate::protocol::item_order(units);
    let mut groups: BTreeMap<usize, (String, Vec<&Unit>)> = BTreeMap::new();
    for u in units {
        let pos = order[u.key.item_id.as_str()];
        groups
            .entry(pos)
            .or_insert_with(|| (u.key.item_id.clone(), Vec::new()))
            .1
            .push(u);
    }
    groups
}

/// Assembles the whole call for a batch.
pub fn call(prompts: &PromptSet, mode: Mode, request: &Value, boundary: &str) -> ChatCall {
    ChatCall {
        messages: messages(prompts, mode, request, boundary),
        tool: tool(prompts, mode),
        max_tokens: None,
    }
}
