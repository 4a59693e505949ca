//! Token probabilities for the demo judge's content answers (asked for with
//! `logprobs: true`), in the shape OpenAI, vLLM and llama.cpp send them, so
//! the confidence workflow runs offline. The tokens spell the answer; a
//! verdict's value is split as a real tokenizer splits it (`AG` + `REE`,
//! `DIS` + `AGREE`, one token per digit) and its first token carries the
//! alternatives; every other token is certain (the grammar forces it). How
//! sure the judge is follows from the text before the value (deterministic,
//! between 0.55 and 0.99): a demonstration, not a measurement.

use crate::provider::logprobs::TokenLogprob;
use serde_json::{Value, json};

/// Whether the request asks for token probabilities.
pub fn wanted(body: &Value) -> bool {
    body.get("logprobs").and_then(Value::as_bool) == Some(true)
}

/// `choices[0].logprobs` for these tokens.
pub fn to_json(tokens: &[TokenLogprob]) -> Value {
    let entry = |t: &str, lp: f64| json!({"token": t, "logprob": lp, "bytes": t.as_bytes()});
    json!({"content": tokens.iter().map(|t| {
        let mut e = entry(&t.token, t.logprob);
        if let Some(b) = &t.bytes {
            e["bytes"] = json!(b);
        }
        e["top_logprobs"] = t.top.iter().map(|(a, lp)| entry(a, *lp)).collect();
        e
    }).collect::<Vec<_>>()})
}

/// The demo judge's tokens for `text` (a JSON answer).
pub fn tokens(text: &str) -> Vec<TokenLogprob> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut at = 0;
    // The last character that was not white space, to tell a value (after
    // `:`) from a key.
    let mut last = ' ';
    while !rest.is_empty() {
        let after_colon = last == ':';
        let p = sureness(&text[..at]);
        if after_colon
            && let Some(v) = ["\"AGREE\"", "\"DISAGREE\""]
                .iter()
                .find(|v| rest.starts_with(**v))
        {
            let agree = *v == "\"AGREE\"";
            let (first, second, other) = if agree {
                ("AG", "REE", "DIS")
            } else {
                ("DIS", "AGREE", "AG")
            };
            push_certain(&mut out, "\"");
            out.push(TokenLogprob {
                token: first.into(),
                logprob: p.ln(),
                top: vec![(first.into(), p.ln()), (other.into(), (1.0 - p).ln())],
                bytes: None,
            });
            push_certain(&mut out, second);
            push_certain(&mut out, "\"");
            at += v.len();
            rest = &rest[v.len()..];
            last = '"';
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        if after_colon && c.is_whitespace() {
            let n = rest.len() - rest.trim_start().len();
            push_certain(&mut out, &rest[..n]);
            at += n;
            rest = &rest[n..];
            continue;
        }
        if after_colon && c.is_ascii_digit() && !rest[1..].starts_with(|d: char| d.is_ascii_digit())
        {
            let d = c.to_digit(10).unwrap_or(0);
            let near = if d > 1 { d - 1 } else { d + 1 };
            let far = if d > 2 { d - 2 } else { d + 2 };
            let t = c.to_string();
            out.push(TokenLogprob {
                token: t.clone(),
                logprob: p.ln(),
                top: vec![
                    (t, p.ln()),
                    (near.to_string(), ((1.0 - p) * 0.8).ln()),
                    (far.to_string(), ((1.0 - p) * 0.2).ln()),
                ],
                bytes: None,
            });
            at += 1;
            rest = &rest[1..];
            last = c;
            continue;
        }
        // Up to four characters, stopping before a value could start.
        let mut n = 0;
        for (i, ch) in rest.char_indices() {
            if i >= 4 || (i > 0 && (ch == ':' || rest[..i].ends_with(':'))) {
                break;
            }
            n = i + ch.len_utf8();
        }
        let piece = &rest[..n];
        push_certain(&mut out, piece);
        if let Some(l) = piece.chars().rev().find(|c| !c.is_whitespace()) {
            last = l;
        }
        at += n;
        rest = &rest[n..];
    }
    out
}

fn push_certain(out: &mut Vec<TokenLogprob>, t: &str) {
    out.push(TokenLogprob {
        token: t.into(),
        logprob: 0.0,
        top: vec![(t.into(), 0.0)],
        bytes: None,
    });
}

/// A probability between 0.55 and 0.99 from the text so far (FNV-1a).
fn sureness(before: &str) -> f64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in before.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    0.55 + 0.44 * ((h >> 11) as f64 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_spell_the_answer_and_values_carry_alternatives() {
        let text = r#"{"resultItems":[{"id":{"itemId":"a"},"evaluationAgreement":"DISAGREE","evaluationLikert": 4}]}"#;
        let toks = tokens(text);
        assert_eq!(
            toks.iter().map(|t| t.token.as_str()).collect::<String>(),
            text
        );
        let dis = toks.iter().find(|t| t.token == "DIS").expect("DIS token");
        assert_eq!(dis.top.len(), 2);
        assert!(toks.iter().any(|t| t.token == "4" && t.top.len() == 3));
    }
}
