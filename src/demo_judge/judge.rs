//! A deterministic offline AwAg judge: reads the request the way a model would
//! (persona, perspective, items, the forced result schema) and answers with
//! verdicts from simple keyword rules. It lets jury be tried, demonstrated and
//! tested end to end with no network and no key; it is not a real judge.

use super::http::Request;
use super::protocols::{guideline_answer, proposition_answer, rubric_answer};
use serde_json::{Value, json};

/// The model name the demo judge lists and answers as.
pub const MODEL: &str = "jury-demo-judge";

/// What the demo judge answers one request with; [`super::wire`] (the
/// product's server) and the test server each turn it into bytes.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// `GET …/models`: the one model, [`MODEL`].
    Models,
    /// The request offered tools: the verdicts as that tool's arguments.
    Tool {
        name: String,
        arguments: String,
        /// `(prompt, completion)` tokens, about four characters each.
        usage: (u64, u64),
    },
    /// No tools offered: the verdicts as plain content (JSON schema or JSON
    /// asked for in the content), with the usage a tool answer has too.
    Content { text: String, usage: (u64, u64) },
    /// A request the judge cannot read: HTTP 400 with this message.
    Invalid(String),
}

/// The answer to one request.
pub fn answer(req: &Request) -> Answer {
    if req.method == "GET" && req.path.contains("/models") {
        return Answer::Models;
    }
    let verdicts = match verdicts(req) {
        Ok(a) => a,
        Err(msg) => return Answer::Invalid(msg),
    };
    let text = verdicts.to_string();
    let prompt_tokens = req.body.to_string().len() as u64 / 4;
    let completion_tokens = text.len() as u64 / 4;
    if req.uses_tools() {
        Answer::Tool {
            name: tool_name(req).unwrap_or("get_evaluations").into(),
            arguments: text,
            usage: (prompt_tokens, completion_tokens),
        }
    } else {
        Answer::Content {
            text,
            usage: (prompt_tokens, completion_tokens),
        }
    }
}

/// Which AwAg mode the forced schema belongs to.
fn mode_of(req: &Request, request: &Value) -> u8 {
    let schema = req.body.to_string();
    if request.get("perspectives").is_some() {
        1
    } else if schema.contains("evaluationAgreement") {
        3
    } else {
        2
    }
}

fn tool_name(req: &Request) -> Option<&str> {
    req.body["tools"][0]["function"]["name"].as_str()
}

fn verdicts(req: &Request) -> Result<Value, String> {
    match tool_name(req) {
        Some("record_score") => return rubric_answer(req),
        Some(t @ ("record_proposition_check" | "record_proposition_score")) => {
            return proposition_answer(req, t.ends_with("score"));
        }
        Some("record_guideline_checks") => return guideline_answer(req),
        _ => {}
    }
    let last = req.last_user_message().ok_or("no user message")?;
    // jury sends the request between its boundary markers.
    let json = crate::protocol::awag::request::undelimit(&last).unwrap_or(&last);
    let request: Value = serde_json::from_str(json)
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
pub(super) fn strip_markers(text: &str) -> String {
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
