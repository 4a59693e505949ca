//! A verdict's confidence from the answer's token probabilities.
//!
//! With `logprobs: true, top_logprobs: k` a server returns, for every
//! content token, its log probability and the k most likely tokens at that
//! place (`choices[0].logprobs.content[]`, streamed chunks too; tool-call
//! arguments carry none, so such runs use the content path). Most tokens of
//! a JSON answer are forced by the grammar and their probabilities mean
//! nothing (a key at −10). Only the token where a verdict's value starts
//! counts: its alternatives that start a value of the scale (`AG` for
//! AGREE, `DIS` for DISAGREE, a Likert digit), normalised, give the value's
//! probability; for numeric scales Σ p(s)·s is the G-Eval score too.
//!
//! Which token belongs to which verdict is found in the answer text: a small
//! scanner walks the JSON, noting where each scalar value starts, under
//! which key and inside which objects. A verdict's value is the scalar with
//! the verdict's value whose objects (its own, with what it holds, and its
//! enclosing ones) name the verdict's item, classification and perspective.

use crate::domain::{ComboKey, Confidence, ConfidenceSource, Scale, Value};
use align::Aligned;
use scan::{Spot, scan};
use serde_json::Value as Json;
use std::collections::{HashMap, HashSet};

mod align;
mod scan;

/// How many alternatives per token are asked for.
pub const TOP_LOGPROBS: u8 = 5;

/// Most tokens kept per answer (each with its alternatives, a few hundred
/// bytes): a verdict answer is a few thousand; a runaway one is not read
/// for confidences.
pub const MAX_TOKENS: usize = 200_000;

/// One content token with its log probability and its top alternatives.
#[derive(Debug, Clone, PartialEq)]
pub struct TokenLogprob {
    pub token: String,
    pub logprob: f64,
    pub top: Vec<(String, f64)>,
    /// The token's exact bytes, when the server sends them: a character
    /// split over two tokens shows as `\u{fffd}` in each token's text, and
    /// only the bytes spell the answer then.
    pub bytes: Option<Vec<u8>>,
}

/// The tokens of a chunk's or answer's `choices[0].logprobs` (`{content:
/// [...]}`); None when there are none (`null`, absent, or another shape).
/// Read leniently: an entry without a token text is kept as an empty token
/// (so the alignment check below notices the gap).
pub fn read_choice_logprobs(v: &Json) -> Option<Vec<TokenLogprob>> {
    let content = v.get("content")?.as_array()?;
    Some(
        content
            .iter()
            .map(|t| TokenLogprob {
                token: t
                    .get("token")
                    .and_then(Json::as_str)
                    .unwrap_or("")
                    .to_string(),
                logprob: t
                    .get("logprob")
                    .and_then(Json::as_f64)
                    .unwrap_or(f64::NEG_INFINITY),
                top: t
                    .get("top_logprobs")
                    .and_then(Json::as_array)
                    .map(|alts| {
                        alts.iter()
                            .filter_map(|a| {
                                Some((
                                    a.get("token")?.as_str()?.to_string(),
                                    a.get("logprob")?.as_f64()?,
                                ))
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                bytes: t.get("bytes").and_then(Json::as_array).and_then(|b| {
                    b.iter()
                        .map(|x| x.as_u64().and_then(|x| u8::try_from(x).ok()))
                        .collect()
                }),
            })
            .collect(),
    )
}

/// The confidence of each verdict (by combination) found in `content`,
/// whose tokens are `tokens`. Verdicts whose value cannot be placed (the
/// tokens do not hold the content once, no value token found, no
/// alternative that starts a value) are left out: unknown, never guessed.
pub fn confidences(
    content: &str,
    tokens: &[TokenLogprob],
    scale: Scale,
    verdicts: &[(&ComboKey, Value)],
) -> HashMap<ComboKey, Confidence> {
    let mut out = HashMap::new();
    let Some(aligned) = Aligned::new(content, tokens) else {
        return out;
    };
    let doc = scan(content);
    let mut used = HashSet::new();
    // Whether the answer names combinations at all (a single-combination
    // protocol may not): if not, values are taken in order.
    let named = doc.spots.iter().any(|s| {
        verdicts
            .iter()
            .any(|(k, _)| doc.context_has(s, &k.item_id) || s.key == k.classification_id)
    });
    for (key, value) in verdicts {
        let fits = |s: &Spot| scale.parse(&s.text).ok() == Some(*value) && !is_id_key(&s.key);
        let pick = doc
            .spots
            .iter()
            .enumerate()
            .filter(|(i, s)| !used.contains(i) && fits(s))
            .map(|(i, s)| {
                // A value under its classification's name (`"clarity": 4`)
                // is named by its key.
                let score = [&key.item_id, &key.classification_id, &key.perspective_id]
                    .iter()
                    .filter(|id| doc.context_has(s, id))
                    .count()
                    + usize::from(s.key == key.classification_id);
                (i, score)
            })
            .filter(|(_, score)| !named || *score > 0)
            // The best match, the first of equals.
            .fold(None::<(usize, usize)>, |best, (i, score)| match best {
                Some((_, b)) if b >= score => best,
                _ => Some((i, score)),
            });
        let Some((i, _)) = pick else { continue };
        used.insert(i);
        if let Some(c) = value_confidence(&aligned, tokens, doc.spots[i].start, scale, *value) {
            out.insert((*key).clone(), c);
        }
    }
    out
}

/// Keys that hold ids, names, texts or a self-reported confidence, never a
/// verdict's value.
fn is_id_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k.ends_with("id")
        || ["name", "selection", "text", "confidence", "reason"]
            .iter()
            .any(|w| k.contains(w))
}

/// The probability of `value` read at the token holding byte `start` (where
/// the value's text begins).
fn value_confidence(
    aligned: &Aligned,
    tokens: &[TokenLogprob],
    start: usize,
    scale: Scale,
    value: Value,
) -> Option<Confidence> {
    // What of the token comes before the value (`"` or ` `): an alternative
    // counts only when it has the same lead.
    let (i, lead) = aligned.token_at(start)?;
    let token = &tokens[i];
    let values = scale.values();
    // (value index, log probability) of each alternative that starts a value.
    let mut found: Vec<(usize, f64)> = Vec::new();
    let mut seen = HashSet::new();
    let chosen = std::iter::once((token.token.as_str(), token.logprob));
    for (alt, lp) in token
        .top
        .iter()
        .map(|(t, lp)| (t.as_str(), *lp))
        .chain(chosen)
    {
        // The chosen token is usually among its alternatives already.
        if !seen.insert(alt) || !lp.is_finite() {
            continue;
        }
        let Some(rest) = alt.strip_prefix(lead) else {
            continue;
        };
        let start: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if start.is_empty() {
            continue;
        }
        let mut starts = values
            .iter()
            .enumerate()
            .filter(|(_, v)| v.as_text().to_ascii_lowercase().starts_with(&start));
        // A token that could start two values says nothing about either.
        if let (Some((k, _)), None) = (starts.next(), starts.next()) {
            found.push((k, lp));
        }
    }
    // Normalised after subtracting the largest: exp(+1000) is infinite, and
    // +1000 against +999 is 0.731 against 0.269, as −1 against −2 is.
    let top = found.iter().map(|f| f.1).fold(f64::NEG_INFINITY, f64::max);
    let mut mass = vec![0.0f64; values.len()];
    for (k, lp) in found {
        mass[k] += (lp - top).exp();
    }
    let total: f64 = mass.iter().sum();
    let k = values.iter().position(|v| *v == value)?;
    if total <= 0.0 || mass[k] <= 0.0 {
        return None;
    }
    let expected_score = matches!(scale, Scale::Likert | Scale::Score09).then(|| {
        values
            .iter()
            .zip(&mass)
            .map(|(v, m)| match v {
                Value::Likert(n) | Value::Score(n) => f64::from(*n) * m / total,
                _ => 0.0,
            })
            .sum()
    });
    Some(Confidence {
        value: (mass[k] / total).min(1.0),
        source: ConfidenceSource::Logprobs,
        expected_score,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Agreement;

    pub(super) fn tok(t: &str, lp: f64, top: &[(&str, f64)]) -> TokenLogprob {
        TokenLogprob {
            token: t.into(),
            logprob: lp,
            top: top.iter().map(|(a, l)| (a.to_string(), *l)).collect(),
            bytes: None,
        }
    }

    /// Splits `text` into tokens: the pieces given (each must follow the
    /// last), every other byte run as one grammar-forced token.
    pub(super) fn tokens(text: &str, special: &[TokenLogprob]) -> Vec<TokenLogprob> {
        let mut out = Vec::new();
        let mut at = 0;
        for s in special {
            let j = at + text[at..].find(s.token.as_str()).expect("piece in text");
            if j > at {
                out.push(tok(&text[at..j], -10.0, &[]));
            }
            out.push(s.clone());
            at = j + s.token.len();
        }
        if at < text.len() {
            out.push(tok(&text[at..], -10.0, &[]));
        }
        out
    }

    #[test]
    fn agreement_split_over_tokens_reads_the_first_token_only() {
        // The values of two combinations, "AGREE" as AG + REE; the key's
        // forced tokens at −10 count for nothing.
        let text = r#"{"resultItems":[{"id":{"itemId":"a","classificationId":"c","perspectiveId":"p"},"evaluationAgreement":"AGREE"},{"id":{"itemId":"b","classificationId":"c","perspectiveId":"p"},"evaluationAgreement":"DISAGREE"}]}"#;
        let toks = tokens(
            text,
            &[
                tok(
                    "AG",
                    -1.24,
                    &[("AG", -1.24), ("DIS", -1.74), ("Hello", -0.5)],
                ),
                tok("REE", -0.01, &[]),
                tok("DIS", -0.1, &[("DIS", -0.1), ("AG", -2.4)]),
            ],
        );
        let (a, b) = (ComboKey::new("a", "c", "p"), ComboKey::new("b", "c", "p"));
        let got = confidences(
            text,
            &toks,
            Scale::Agreement,
            &[
                (&a, Value::Agreement(Agreement::Agree)),
                (&b, Value::Agreement(Agreement::Disagree)),
            ],
        );
        let pa = (-1.24f64).exp() / ((-1.24f64).exp() + (-1.74f64).exp());
        assert!((got[&a].value - pa).abs() < 1e-12, "{:?}", got[&a]);
        let pb = (-0.1f64).exp() / ((-0.1f64).exp() + (-2.4f64).exp());
        assert!((got[&b].value - pb).abs() < 1e-12);
        assert_eq!(got[&a].expected_score, None);
    }

    #[test]
    fn likert_gives_the_expected_score_and_order_of_entries_does_not_matter() {
        // Mode 1's nesting: the item id two objects up.
        let text = r#"{"resultItems":[{"itemId":"x","evaluations":[{"classificationName":"c","perspectives":[{"perspectiveId":"p","evaluationLikert": 5}]}]}]}"#;
        let toks = tokens(
            text,
            &[tok(
                " 5",
                -0.4,
                &[(" 5", -0.4), (" 4", -1.33), (" 3", -3.41), ("5", -0.2)],
            )],
        );
        let k = ComboKey::new("x", "c", "p");
        let got = confidences(text, &toks, Scale::Likert, &[(&k, Value::Likert(5))]);
        let (p5, p4, p3) = ((-0.4f64).exp(), (-1.33f64).exp(), (-3.41f64).exp());
        let t = p5 + p4 + p3;
        assert!((got[&k].value - p5 / t).abs() < 1e-12);
        let e = (5.0 * p5 + 4.0 * p4 + 3.0 * p3) / t;
        assert!((got[&k].expected_score.unwrap() - e).abs() < 1e-12);
    }

    #[test]
    fn a_self_reported_confidence_or_a_reason_is_never_the_value() {
        // A 0–9 score of 1 after a "confidence": 1 the judge wrote itself.
        let text = r#"{"confidence": 1,"reason":"1","score": 1}"#;
        let toks = tokens(
            text,
            &[
                tok(" 1", -0.3, &[(" 1", -0.3), (" 2", -0.4)]),
                tok("1", -2.0, &[("1", -2.0)]),
                tok(" 1", -0.1, &[(" 1", -0.1), (" 0", -2.3)]),
            ],
        );
        let k = ComboKey::new("x", "c", "p");
        let got = confidences(text, &toks, Scale::Score09, &[(&k, Value::Score(1))]);
        let p = (-0.1f64).exp() / ((-0.1f64).exp() + (-2.3f64).exp());
        assert!((got[&k].value - p).abs() < 1e-12, "{got:?}");
    }

    #[test]
    fn a_character_split_over_two_tokens_is_spelled_by_their_bytes() {
        // "é" as two tokens whose texts are both U+FFFD, before the value.
        let text = "{\"evaluationText\":\"é\",\"evaluationLikert\":2}";
        let half = |b: u8| TokenLogprob {
            bytes: Some(vec![b]),
            ..tok("\u{fffd}", -0.1, &[])
        };
        let toks = vec![
            tok("{\"evaluationText\":\"", -9.0, &[]),
            half(0xc3),
            half(0xa9),
            tok("\",\"evaluationLikert\":", -9.0, &[]),
            tok("2", -0.2, &[("2", -0.2), ("1", -1.8)]),
            tok("}", 0.0, &[]),
        ];
        let k = ComboKey::new("x", "c", "p");
        let got = confidences(text, &toks, Scale::Likert, &[(&k, Value::Likert(2))]);
        let p = (-0.2f64).exp() / ((-0.2f64).exp() + (-1.8f64).exp());
        assert!((got[&k].value - p).abs() < 1e-12, "{got:?}");
    }

    /// llama.cpp's answer to a one-entry request (Qwen2.5-Coder-0.5B,
    /// temperature 0): the model began with a backtick and ended with `}\n`;
    /// the server's content has neither, its logprobs have both.
    const TRIMMED_ANSWER: &str = r#"{
  "resultItems": [
    {
      "id": {
        "itemId": "k-001",
        "perspectiveId": "classification",
        "classificationId": "interested"
      },
      "evaluatedSelection": "interested",
      "evaluationAgreement": "AGREE",
      "evaluationText": "This item is about a recovery plan from you by 2pm today, otherwise we give the end-cap space to another brand. Please ring me as soon as you land."
    }
  ]
}"#;

    #[test]
    fn a_value_is_placed_when_the_server_trims_what_surrounds_the_json() {
        let value = [
            ("AG", -0.6987),
            ("DIS", -0.7523),
            ("dis", -5.4316),
            ("NOT", -5.6638),
            ("Ag", -6.0904),
        ];
        let body = TRIMMED_ANSWER
            .strip_suffix('}')
            .expect("the answer ends with }");
        let mut toks = vec![tok(
            "`",
            -10.0537,
            // The first place's alternatives start values too: read there,
            // the confidence would be wrong.
            &[("AG", -0.4296), ("DIS", -1.2279), ("Ag", -5.7021)],
        )];
        toks.extend(tokens(body, &[tok("AG", -0.6987, &value)]));
        toks.push(tok("}\n", -0.0052, &[("}\n", -0.0052), ("}", -5.9707)]));
        let k = ComboKey::new("k-001", "interested", "classification");
        let got = confidences(
            TRIMMED_ANSWER,
            &toks,
            Scale::Agreement,
            &[(&k, Value::Agreement(Agreement::Agree))],
        );
        let agree = (-0.6987f64).exp() + (-6.0904f64).exp();
        let disagree = (-0.7523f64).exp() + (-5.4316f64).exp();
        let p = agree / (agree + disagree);
        assert!((got[&k].value - p).abs() < 1e-12, "{got:?}");
    }

    #[test]
    fn a_value_past_the_last_token_gets_nothing_and_those_before_keep_theirs() {
        // What arrived of a cut-off answer: the second value's token and
        // all after it came without their probabilities.
        let text = r#"{"resultItems":[{"itemId":"a","evaluationLikert": 4},{"itemId":"b","evaluationLikert": 2},{"itemId":"c""#;
        let four = tok(" 4", -0.3, &[(" 4", -0.3), (" 5", -1.5)]);
        let toks = tokens(text, &[four, tok(" 2", -0.2, &[(" 2", -0.2)])]);
        let at = toks.iter().position(|t| t.token == " 2").unwrap();
        let (a, b) = (ComboKey::new("a", "c", "p"), ComboKey::new("b", "c", "p"));
        let got = confidences(
            text,
            &toks[..at],
            Scale::Likert,
            &[(&a, Value::Likert(4)), (&b, Value::Likert(2))],
        );
        let p = (-0.3f64).exp() / ((-0.3f64).exp() + (-1.5f64).exp());
        assert!((got[&a].value - p).abs() < 1e-12, "{got:?}");
        assert!(!got.contains_key(&b), "{got:?}");
    }

    #[test]
    fn tokens_that_do_not_spell_the_content_give_nothing() {
        let text = r#"{"evaluationLikert":4}"#;
        let toks = vec![
            tok("{\"evaluationLikert\":", -9.0, &[]),
            tok("5}", -0.1, &[]),
        ];
        let k = ComboKey::new("x", "c", "p");
        assert!(confidences(text, &toks, Scale::Likert, &[(&k, Value::Likert(4))]).is_empty());
    }
}

#[cfg(test)]
mod large_tests;
