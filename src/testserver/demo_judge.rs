//! A deterministic offline AwAg judge: reads the request the way a model would
//! (persona, perspective, items, the forced result schema) and answers with
//! verdicts from simple keyword rules. It lets jury be tried, demonstrated and
//! tested end to end with no network and no key; it is not a real judge.

use super::{RecordedRequest, Reply};
use serde_json::{Value, json};
use std::time::Duration;

/// The reply for one request, after `latency`.
pub fn reply(req: &RecordedRequest, latency: Duration) -> Reply {
    if req.method == "GET" && req.path.contains("/models") {
        return super::models_reply(&["jury-demo-judge"]);
    }
    let answer = match answer(req) {
        Ok(a) => a,
        Err(msg) => {
            return Reply::status(
                400,
                json!({"error": {"message": msg, "type": "invalid_request_error"}}).to_string(),
            );
        }
    };
    let text = answer.to_string();
    let prompt_tokens = req.body.to_string().len() as u64 / 4;
    let completion_tokens = text.len() as u64 / 4;
    let body = if req.uses_tools() {
        Reply::ToolCall {
            name: "get_evaluations".into(),
            arguments: text,
            chunk: 24,
            finish: None,
            usage: Some((prompt_tokens, completion_tokens)),
        }
    } else {
        Reply::content(text)
    };
    if latency.is_zero() {
        body
    } else {
        Reply::Delay(latency, Box::new(body))
    }
}

/// Which AwAg mode the forced schema belongs to.
fn mode_of(req: &RecordedRequest, request: &Value) -> u8 {
    let schema = req.body.to_string();
    if request.get("perspectives").is_some() {
        1
    } else if schema.contains("evaluationAgreement") {
        3
    } else {
        2
    }
}

fn tool_name(req: &RecordedRequest) -> Option<&str> {
    req.body["tools"][0]["function"]["name"].as_str()
}

/// Rubric requests: a score from simple signs of a focused, polite reply.
fn rubric_answer(req: &RecordedRequest) -> Result<Value, String> {
    let msg = req.last_user_message().ok_or("no user message")?;
    let dimension = msg
        .lines()
        .find_map(|l| l.strip_prefix("Dimension: "))
        .unwrap_or("quality")
        .trim()
        .to_string();
    let reply = msg
        .split("Reply from the support assistant:")
        .nth(1)
        .unwrap_or("");
    let reply = reply.split("<<<END-ITEM-CONTENT").next().unwrap_or(reply);
    let reply = strip_markers(reply);
    let words = reply.split_whitespace().count();
    let lower = reply.to_lowercase();
    let score: u8 = match dimension.as_str() {
        "tone" if lower.contains("lol") || lower.contains("!!") || lower.contains("dude") => 2,
        "tone" if words > 120 => 3,
        "tone" => 5,
        _ if words < 8 => 2,
        _ if lower.contains("try restarting") || lower.contains("not sure") => 3,
        _ => 4,
    };
    Ok(json!({
        "score": score,
        "reasoning": format!("On {dimension}: the reply runs to {words} words; judged {score}/5 by the demo judge's simple rules (not a model).")
    }))
}

fn answer(req: &RecordedRequest) -> Result<Value, String> {
    if tool_name(req) == Some("record_score") {
        return rubric_answer(req);
    }
    let last = req.last_user_message().ok_or("no user message")?;
    let request: Value = serde_json::from_str(&last)
        .map_err(|e| format!("the last user message is not JSON: {e}"))?;
    let persona = request["persona"]["name"]
        .as_str()
        .unwrap_or("the persona")
        .to_string();
    let items = request["items"]
        .as_array()
        .ok_or("the request has no items")?;
    let mode = mode_of(req, &request);
    let mut results = Vec::new();
    for item in items {
        if mode == 1 {
            let text = format!(
                "{} {}",
                item["title"].as_str().unwrap_or(""),
                item["summary"].as_str().unwrap_or("")
            );
            let perspectives: Vec<String> = request["perspectives"]
                .as_array()
                .map(|ps| {
                    ps.iter()
                        .filter_map(|p| p["id"].as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            let mut evaluations = Vec::new();
            for c in item["classifications"].as_array().into_iter().flatten() {
                let cid = c["name"].as_str().unwrap_or("");
                let selected = c["selected"].as_str().unwrap_or("none");
                let available: Vec<&str> = c["available"]
                    .as_array()
                    .map(|a| a.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let ps: Vec<Value> = perspectives
                    .iter()
                    .map(|pid| {
                        let (likert, _, why) = judge(cid, selected, &available, &text, &persona);
                        json!({"perspectiveId": pid, "evaluatedSelection": selected, "evaluationLikert": likert, "evaluationText": why})
                    })
                    .collect();
                evaluations.push(json!({"classificationName": cid, "perspectives": ps}));
            }
            results.push(json!({"itemId": item["itemId"], "evaluations": evaluations}));
        } else {
            let id = &item["id"];
            let cid = id["classificationId"]
                .as_str()
                .or(id["classification_id"].as_str())
                .unwrap_or("");
            let cls = &item["classification"];
            let selected = cls["classifiedAs"].as_str().unwrap_or("none");
            let available: Vec<&str> = cls["fromAvailableClassifications"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let text = item["content"].as_str().unwrap_or("");
            let (likert, agree, why) = judge(cid, selected, &available, text, &persona);
            let mut r = json!({"id": id, "evaluatedSelection": selected, "evaluationText": why});
            if mode == 3 {
                r["evaluationAgreement"] = json!(if agree { "AGREE" } else { "DISAGREE" });
            } else {
                r["evaluationLikert"] = json!(likert);
            }
            results.push(r);
        }
    }
    Ok(json!({"resultItems": results}))
}

const RULES: &[(&str, &str, &[&str])] = &[
    (
        "urgency",
        "urgent",
        &[
            "urgent",
            "asap",
            "as soon as possible",
            "immediately",
            "today",
            "tonight",
            "deadline",
            "overdue",
            "down",
            "outage",
            "now",
            "by noon",
            "final reminder",
        ],
    ),
    (
        "work-pers",
        "work",
        &[
            "meeting",
            "client",
            "customer",
            "invoice",
            "project",
            "report",
            "office",
            "team",
            "contract",
            "colleague",
            "quarter",
            "pipeline",
            "sprint",
            "deploy",
            "staff",
            "lesson",
            "pupils",
            "release",
            "stock",
            "stores",
            "account",
            "order",
            "pricing",
            "school",
            "year 9",
            "parents' evening",
            "deadline",
            "proposal",
            "ticket",
            "server",
        ],
    ),
    (
        "work-logistics",
        "logistics",
        &[
            "room",
            "booking",
            "booked",
            "travel",
            "flight",
            "hotel",
            "reschedul",
            "calendar",
            "venue",
            "parking",
            "train",
            "itinerary",
            "desk",
            "rota",
            "timetable",
        ],
    ),
];

/// The item text without jury's boundary marker lines.
fn strip_markers(text: &str) -> String {
    text.split_whitespace()
        .filter(|w| !(w.starts_with("<<<") || w.ends_with(">>>")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Likert, agreement and the explanation for one classification.
fn judge(
    cid: &str,
    selected: &str,
    available: &[&str],
    text: &str,
    persona: &str,
) -> (u8, bool, String) {
    let text = strip_markers(text);
    let lower = text.to_lowercase();
    let expected: Option<String> = RULES
        .iter()
        .find(|(c, _, _)| *c == cid)
        .map(|(_, yes, words)| {
            let hit = words.iter().any(|w| lower.contains(w));
            let no = available
                .iter()
                .find(|a| **a != *yes)
                .copied()
                .unwrap_or("not");
            if hit { yes.to_string() } else { no.to_string() }
        })
        .or_else(|| {
            // A hobby classification: the hobby's own name in the text.
            let hobby = available
                .iter()
                .find(|a| !matches!(**a, "not" | "none" | "work" | "personal"))?;
            Some(if lower.contains(&hobby.to_lowercase()) {
                hobby.to_string()
            } else {
                "not".to_string()
            })
        });
    let short: String = text
        .split_whitespace()
        .take(12)
        .collect::<Vec<_>>()
        .join(" ");
    match expected {
        Some(e) if e != selected => (
            if selected == "not" || selected == "none" {
                2
            } else {
                1
            },
            false,
            format!(
                "Speaking as {persona}: I would not file this as '{selected}'. Reading \"{short}…\", '{e}' fits better."
            ),
        ),
        Some(_) => (
            5,
            true,
            format!(
                "Speaking as {persona}: '{selected}' is right for \"{short}…\"; I would have chosen the same."
            ),
        ),
        None => (
            4,
            true,
            format!(
                "Speaking as {persona}: '{selected}' seems reasonable for \"{short}…\", though I am not certain."
            ),
        ),
    }
}
