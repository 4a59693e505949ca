//! The demo judge's rules for the rubric, proposition and guideline
//! protocols: word counts and word overlap, not a model.

use super::http::Request;
use super::judge::strip_markers;
use serde_json::{Value, json};

/// Rubric requests: a score from simple signs of a focused, polite reply.
pub(super) fn rubric_answer(req: &Request) -> Result<Value, String> {
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

/// The texts between jury's boundary markers in a message, in order.
fn delimited_blocks(msg: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = msg;
    while let Some(start) = rest.find("<<<ITEM-CONTENT ") {
        let after = &rest[start..];
        let Some(nl) = after.find('\n') else { break };
        let body = &after[nl + 1..];
        let end = body.find("\n<<<END-ITEM-CONTENT ").unwrap_or(body.len());
        out.push(body[..end].to_string());
        rest = &body[end..];
        match rest.find(">>>") {
            Some(i) => rest = &rest[i + 3..],
            None => break,
        }
    }
    out
}

const STOP: &[&str] = &[
    "this", "that", "with", "from", "have", "about", "their", "there", "they", "them", "what",
    "when", "which", "would", "should", "could", "into", "than", "then", "item", "message",
    "customer", "agent", "some", "more", "does", "were", "been", "being", "also", "only",
];

fn content_words(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
        .filter(|w| !STOP.contains(&w.as_str()))
        .collect();
    out.dedup();
    out
}

/// Share of `words` whose stem (first five letters) occurs in `hay`.
fn coverage(words: &[String], hay: &str) -> (f64, Vec<String>) {
    if words.is_empty() {
        return (1.0, Vec::new());
    }
    let found: Vec<String> = words
        .iter()
        .filter(|w| hay.contains(&w.chars().take(5).collect::<String>()))
        .cloned()
        .collect();
    (found.len() as f64 / words.len() as f64, found)
}

/// Propositions: the share of the claim's content words the material contains.
/// On a double-check turn a score in 1–8 drops by one (a stricter second look),
/// so flips show up in demos; a check keeps its value.
pub(super) fn proposition_answer(req: &Request, score: bool) -> Result<Value, String> {
    let msgs = req.body["messages"].as_array().ok_or("no messages")?;
    let first_user = msgs
        .iter()
        .filter(|m| m["role"] == "user")
        .filter_map(|m| m["content"].as_str())
        .find(|c| c.contains("<<<ITEM-CONTENT "))
        .ok_or("no claim in the request")?;
    let second_look = msgs.iter().any(|m| m["role"] == "assistant");
    let blocks = delimited_blocks(first_user);
    let claim = blocks.first().cloned().unwrap_or_default();
    let material = blocks.last().cloned().unwrap_or_default().to_lowercase();
    let words = content_words(&claim);
    let (share, found) = coverage(&words, &material);
    let why = format!(
        "{} of the claim's {} content words appear in the material ({}); decided by the demo judge's word-overlap rule (not a model).",
        found.len(),
        words.len(),
        if found.is_empty() {
            "none".to_string()
        } else {
            found.join(", ")
        }
    );
    let confidence = ((0.5 + (share - 0.5).abs()) * 100.0).round() / 100.0;
    Ok(if score {
        let mut n = (share * 9.0).round() as u8;
        if second_look && (1..=8).contains(&n) {
            n -= 1;
        }
        json!({"justification": why, "value": n, "confidence": confidence})
    } else {
        json!({"justification": why, "value": share >= 0.5, "confidence": confidence})
    })
}

const BEHAVIOURAL: &[&str] = &[
    "thank", "apolog", "sorry", "greet", "goodbye", "wish", "empath", "polite", "welcome",
    "reassur", "regret", "friendly",
];

/// Guideline checks: each action segment (split at "and", "then", commas)
/// counts as done when half its content words occur in what the agent and its
/// tools said; missing parts about manners are behavioral, others functional.
pub(super) fn guideline_answer(req: &Request) -> Result<Value, String> {
    let msg = req.last_user_message().ok_or("no user message")?;
    let blocks = delimited_blocks(&msg);
    let events: Value = serde_json::from_str(blocks.first().ok_or("no events block")?)
        .map_err(|e| format!("events block: {e}"))?;
    let guidelines: Value = serde_json::from_str(blocks.get(1).ok_or("no guidelines block")?)
        .map_err(|e| format!("guidelines block: {e}"))?;
    let agent_said: String = events
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["event_source"] != "customer")
        .map(|e| match &e["content"] {
            Value::String(t) => t.clone(),
            other => other.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    // "sorry" counts as apologising.
    let agent_said = if agent_said.contains("sorry") {
        agent_said + " apologise apologize"
    } else {
        agent_said
    };
    let mut checks = Vec::new();
    for g in guidelines.as_array().into_iter().flatten() {
        let action = g["action"].as_str().unwrap_or("");
        let segments: Vec<String> = action
            .replace(", then ", ",")
            .replace(" and then ", ",")
            .replace(" and ", ",")
            .split(',')
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        let mut rationale = Vec::new();
        let mut missing = Vec::new();
        for seg in &segments {
            let (share, _) = coverage(&content_words(seg), &agent_said);
            let done = share >= 0.5;
            if !done {
                missing.push(seg.to_lowercase());
            }
            let verb = seg.split_whitespace().next().unwrap_or("").to_uppercase();
            let rest: String = seg.split_whitespace().skip(1).collect::<Vec<_>>().join(" ");
            rationale.push(json!({
                "action_segment": format!("{verb} {rest}").trim().to_string(),
                "action_applied_rationale": if done {
                    format!("The agent's messages cover this segment ({verb} found by the demo judge's word rule).")
                } else {
                    format!("Nothing the agent said shows it did {verb} this (demo judge's word rule).")
                }
            }));
        }
        let degree = if missing.is_empty() {
            "fully"
        } else if missing.len() == segments.len() {
            "no"
        } else {
            "partially"
        };
        let mut c = json!({
            "guideline_id": g["guideline_id"],
            "action": action,
            "guideline_applied_rationale": rationale,
            "guideline_applied_degree": degree,
        });
        let applied = match degree {
            "fully" => true,
            "no" => false,
            _ => {
                let behavioural = missing
                    .iter()
                    .all(|m| BEHAVIOURAL.iter().any(|b| m.contains(b)));
                let kind = if behavioural {
                    "behavioral"
                } else {
                    "functional"
                };
                c["is_missing_part_functional_or_behavioral_rationale"] = json!(if behavioural {
                    "What is missing is about manners; the task itself was handled."
                } else {
                    "What is missing moves the task forward; the agent would have to come back to it."
                });
                c["is_missing_part_functional_or_behavioral"] = json!(kind);
                behavioural
            }
        };
        c["guideline_applied"] = json!(applied);
        checks.push(c);
    }
    Ok(json!({"checks": checks}))
}
