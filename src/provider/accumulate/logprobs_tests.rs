//! Token probabilities through the streaming front door, in the shape
//! llama.cpp's server sends them.

use super::*;
use crate::domain::{Agreement, ComboKey, Scale, Value as V};
use crate::provider::logprobs::confidences;
use serde_json::json;

/// One llama.cpp chunk: `delta` with one token and its alternatives.
fn chunk(delta: Value, token: &str, logprob: f64, top: &[(&str, f64)]) -> String {
    let entry = |t: &str, lp: f64| json!({"token": t, "bytes": t.as_bytes(), "logprob": lp});
    let mut tok = entry(token, logprob);
    tok["top_logprobs"] = top.iter().map(|(t, lp)| entry(t, *lp)).collect();
    json!({
        "choices": [{"finish_reason": null, "index": 0, "delta": delta,
                     "logprobs": {"content": [tok]}}],
        "model": "-", "object": "chat.completion.chunk"
    })
    .to_string()
}

const HEAD: &str = r#"{"resultItems":[{"id":{"itemId":"k-001","perspectiveId":"classification","classificationId":"interested"},"evaluationAgreement":""#;
const TAIL: &str = r#"REE","evaluationText":"Please ring me as soon as you land."}]"#;

/// As llama.cpp streamed a one-entry answer: the model's first token (a
/// backtick) came with the role and no content, its last (`}\n`) with the
/// content `}`.
fn llama_payloads() -> Vec<String> {
    let (head, tail) = (HEAD, TAIL);
    vec![
        chunk(
            json!({"role": "assistant", "content": null}),
            "`",
            -10.0537,
            &[("AG", -0.4296), ("DIS", -1.2279)],
        ),
        chunk(json!({"content": head}), head, -0.01, &[]),
        chunk(
            json!({"content": "AG"}),
            "AG",
            -0.6987,
            &[("AG", -0.6987), ("DIS", -0.7523)],
        ),
        chunk(json!({"content": tail}), tail, -0.01, &[]),
        chunk(json!({"content": "}"}), "}\n", -0.0052, &[("}", -5.9707)]),
        json!({"choices": [{"finish_reason": "stop", "index": 0, "delta": {}}]}).to_string(),
    ]
}

#[test]
fn tokens_the_content_leaves_out_are_kept_and_the_value_still_placed() {
    let (head, tail) = (HEAD, TAIL);
    let mut acc = Accumulator::new();
    for p in &llama_payloads() {
        acc.push_data(p).expect("chunk");
    }
    let c = acc.finish(true).expect("complete");
    let content = format!("{head}AG{tail}}}");
    assert_eq!(c.content, content);
    let tokens = c.logprobs.expect("tokens");
    let spelled: String = tokens.iter().map(|t| t.token.as_str()).collect();
    assert_eq!(spelled, format!("`{content}\n"), "every token, as sent");

    let k = ComboKey::new("k-001", "interested", "classification");
    let got = confidences(
        &c.content,
        &tokens,
        Scale::Agreement,
        &[(&k, V::Agreement(Agreement::Agree))],
    );
    let (agree, disagree) = ((-0.6987f64).exp(), (-0.7523f64).exp());
    assert!(
        (got[&k].value - agree / (agree + disagree)).abs() < 1e-12,
        "{got:?}"
    );
}

#[test]
fn an_answer_cut_off_carries_its_tokens_and_they_place_the_value() {
    // The stream ends before the closing `}` and any finish reason.
    let payloads = llama_payloads();
    let mut acc = Accumulator::new();
    for p in &payloads[..4] {
        acc.push_data(p).expect("chunk");
    }
    let Err(ProviderError::Truncated {
        partial, logprobs, ..
    }) = acc.finish(false)
    else {
        panic!("a cut-off answer");
    };
    assert_eq!(partial, format!("{HEAD}AG{TAIL}"));
    let tokens = logprobs.expect("the tokens that arrived");
    let spelled: String = tokens.iter().map(|t| t.token.as_str()).collect();
    assert_eq!(spelled, format!("`{partial}"));
    let k = ComboKey::new("k-001", "interested", "classification");
    let got = confidences(
        &partial,
        &tokens,
        Scale::Agreement,
        &[(&k, V::Agreement(Agreement::Agree))],
    );
    let (agree, disagree) = ((-0.6987f64).exp(), (-0.7523f64).exp());
    assert!(
        (got[&k].value - agree / (agree + disagree)).abs() < 1e-12,
        "{got:?}"
    );
}
