//! The review queue: the item list ordered so review time goes where it
//! teaches most (docs/design.md §7) — judge≠human, mode≠mode or persona≠persona
//! disagreements first, or the judge's least confident verdicts first.

use super::{LabelEntry, disagrees};
use crate::domain::{Value, Verdict};

/// How the item list is ordered (`o` cycles).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Order {
    /// As imported.
    #[default]
    File,
    /// Items where a person's label differs from the judge's latest verdict.
    JudgeHuman,
    /// Items where two modes' latest verdicts read differently.
    ModeMode,
    /// Items where two personas' latest verdicts read differently.
    PersonaPersona,
    /// Items with verdicts in the middle of their scale (Likert 3, score
    /// 4–5, "partially") or a proposition check stated with confidence
    /// under 0.6: where the judge itself was least sure.
    LowConfidence,
    /// A seeded uniform random order ([`SAMPLE_SEED`]): labels given in it
    /// are a random sample of the listed items, which `jury estimate` can
    /// trust (each is recorded as sampled).
    Sample,
    /// The active order (issue #33): combinations drawn where the judge is
    /// unsure, as `jury sample --order active` draws them
    /// ([`crate::report::active_walk`]); items by their first draw. Labels
    /// given in it are recorded as draws with their π.
    Active,
}

/// The seed of the `sample` order: fixed, so the order is the same in every
/// session and the labelled items stay a prefix of one random order.
pub const SAMPLE_SEED: u64 = 1;

/// An item's place in the `sample` order (higher comes first).
pub fn sample_priority(item_id: &str) -> u32 {
    // FNV-1a over the id, then SplitMix-style mixing with the seed: uniform
    // and independent of the item's place in the file.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ SAMPLE_SEED.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    for b in item_id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h ^= h >> 30;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94d0_49bb_1331_11eb);
    h ^= h >> 31;
    // Never 0: File order's priority, which would sort it with the unranked.
    ((h >> 32) as u32).max(1)
}

impl Order {
    pub fn next(self) -> Order {
        match self {
            Order::File => Order::JudgeHuman,
            Order::JudgeHuman => Order::ModeMode,
            Order::ModeMode => Order::PersonaPersona,
            Order::PersonaPersona => Order::LowConfidence,
            Order::LowConfidence => Order::Sample,
            Order::Sample => Order::Active,
            Order::Active => Order::File,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Order::File => "file order",
            Order::JudgeHuman => "judge≠human first",
            Order::ModeMode => "mode≠mode first",
            Order::PersonaPersona => "persona≠persona first",
            Order::LowConfidence => "low confidence first",
            Order::Sample => "random sample (labels count as sampled)",
            Order::Active => "where the judge is unsure (active sample)",
        }
    }
}

/// Two verdicts read differently: different values on one scale, else
/// different agreement readings (undecided readings do not count).
fn differ(a: Value, b: Value) -> bool {
    if a.scale() == b.scale() {
        return a != b;
    }
    matches!((a.as_agreement(), b.as_agreement()), (Some(x), Some(y)) if x != y)
}

fn middle(v: Value) -> bool {
    match v {
        Value::Likert(3) | Value::Score(4 | 5) => true,
        Value::Degree(d) => d == crate::domain::Degree::Partially,
        _ => false,
    }
}

/// Below this stated confidence (0–1) a proposition check counts as unsure.
const UNSURE: f64 = 0.6;

/// The confidence a proposition check stated (after a double check, the
/// revised answer's). Read into these two fields only: the rest of the raw
/// answer is skipped without building it.
#[derive(serde::Deserialize)]
struct Stated {
    confidence: Option<f64>,
    revised: Option<Revised>,
}

#[derive(serde::Deserialize)]
struct Revised {
    confidence: Option<f64>,
}

/// The judge was unsure: a value in the middle of its scale, or a
/// confidence under [`UNSURE`]: the measured one where the run kept it
/// (token probabilities), else the one a proposition check states (after a
/// double check, the revised answer's).
fn unsure(v: &Verdict) -> bool {
    if middle(v.value) {
        return true;
    }
    if let Some(c) = &v.confidence {
        return c.value < UNSURE;
    }
    if v.protocol != crate::domain::Protocol::Proposition || v.raw.is_empty() {
        return false;
    }
    stated_confidence(&v.raw).is_some_and(|c| c < UNSURE)
}

fn stated_confidence(raw: &str) -> Option<f64> {
    let stated = serde_json::from_str::<Stated>(raw).ok()?;
    match stated.revised {
        Some(r) => r.confidence,
        None => stated.confidence,
    }
}

/// Keeps of a verdict's raw answer only what the review queue reads (the
/// workbench holds every verdict in memory; raw answers would double it): for
/// a proposition check its stated confidence, as `{"confidence":c}`;
/// otherwise nothing.
pub fn compact_raw(v: &mut Verdict) {
    let stated = (v.protocol == crate::domain::Protocol::Proposition)
        .then(|| stated_confidence(&v.raw))
        .flatten();
    v.raw = match stated {
        Some(c) => serde_json::json!({ "confidence": c }).to_string(),
        None => String::new(),
    };
}

/// The latest verdict per `group` key (store order: later wins), as borrowed
/// `(group, verdict)` pairs. An item has a handful of verdicts, so a linear
/// scan beats hashing, and nothing is cloned: with 100 000 judged items
/// every re-sort runs this once per item on the UI thread.
fn latest<'a, K: PartialEq>(
    verdicts: &'a [Verdict],
    group: impl Fn(&'a Verdict) -> K,
) -> Vec<(K, &'a Verdict)> {
    let mut out: Vec<(K, &'a Verdict)> = Vec::with_capacity(verdicts.len());
    for v in verdicts.iter().rev() {
        let k = group(v);
        if !out.iter().any(|(seen, _)| *seen == k) {
            out.push((k, v));
        }
    }
    out
}

/// Count the combinations where two latest verdicts, alike except in `side`, differ.
fn sides_differ<'a, S: PartialEq, R: PartialEq>(
    verdicts: &'a [Verdict],
    side: impl Fn(&'a Verdict) -> S,
    rest: impl Fn(&'a Verdict) -> R,
) -> u32 {
    let by = latest(verdicts, |v| (rest(v), side(v)));
    let mut n = 0;
    for (i, ((r, _), _)) in by.iter().enumerate() {
        // Each combination once, at its first entry.
        if by[..i].iter().any(|((seen, _), _)| seen == r) {
            continue;
        }
        let values: Vec<Value> = by[i..]
            .iter()
            .filter(|((r2, _), _)| r2 == r)
            .map(|(_, v)| v.value)
            .collect();
        if values
            .iter()
            .enumerate()
            .any(|(j, a)| values[j + 1..].iter().any(|b| differ(*a, *b)))
        {
            n += 1;
        }
    }
    n
}

/// How strongly an item belongs at the front under `order` (0: not at all).
pub fn priority(order: Order, verdicts: &[Verdict], labels: &[LabelEntry]) -> u32 {
    match order {
        Order::File => 0,
        Order::JudgeHuman => labels
            .iter()
            .filter(|e| {
                verdicts
                    .iter()
                    .rfind(|v| v.key == e.label.key && v.persona_id == e.label.persona_id)
                    .is_some_and(|v| disagrees(v.value, e.label.value))
            })
            .count() as u32,
        Order::ModeMode => sides_differ(
            verdicts,
            |v| v.mode,
            |v| (&v.key, v.persona_id.as_str(), v.model.as_str()),
        ),
        Order::PersonaPersona => sides_differ(
            verdicts,
            |v| v.persona_id.as_str(),
            |v| (&v.key, v.model.as_str(), v.mode),
        ),
        // Placed by item id in Workspace::priority.
        Order::Sample | Order::Active => 0,
        Order::LowConfidence => latest(verdicts, |v| {
            (&v.key, v.persona_id.as_str(), v.mode, v.protocol)
        })
        .iter()
        .filter(|(_, v)| unsure(v))
        .count() as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Agreement, ComboKey, Label, Mode, Protocol};
    use crate::tui::app::SaveState;

    fn v(c: &str, persona: &str, mode: Mode, value: Value) -> Verdict {
        Verdict {
            run_id: 1,
            key: ComboKey::new("i", c, "p"),
            persona_id: persona.into(),
            protocol: Protocol::Awag,
            mode: Some(mode),
            model: "m".into(),
            value,
            text: String::new(),
            evaluated_selection: None,
            selection_mismatch: false,
            latency_ms: 0,
            tokens: 0,
            raw: String::new(),
            created_at: String::new(),
            position: None,
            confidence: None,
            server: None,
        }
    }

    #[test]
    fn each_order_counts_its_own_disagreements() {
        let vs = [
            v("a", "kenton", Mode::Two, Value::Likert(5)),
            v(
                "a",
                "kenton",
                Mode::Three,
                Value::Agreement(Agreement::Disagree),
            ),
            v("b", "kenton", Mode::Two, Value::Likert(3)),
            v(
                "b",
                "kenton",
                Mode::Three,
                Value::Agreement(Agreement::Agree),
            ),
            v("b", "maren", Mode::Two, Value::Likert(4)),
        ];
        assert_eq!(
            priority(Order::ModeMode, &vs, &[]),
            1,
            "3 vs AGREE is undecided"
        );
        assert_eq!(priority(Order::PersonaPersona, &vs, &[]), 1);
        assert_eq!(priority(Order::LowConfidence, &vs, &[]), 1);
        let label = LabelEntry {
            label: Label {
                key: ComboKey::new("i", "a", "p"),
                persona_id: "kenton".into(),
                value: Value::Likert(1),
                note: String::new(),
                who: "me".into(),
                created_at: String::new(),
                replaced_judge_value: None,
                blind: false,
                tags: Vec::new(),
            },
            state: SaveState::Saved,
        };
        // The latest verdict on "a" is mode 3's DISAGREE: it agrees with a 1.
        assert_eq!(
            priority(Order::JudgeHuman, &vs, std::slice::from_ref(&label)),
            0
        );
        assert_eq!(priority(Order::JudgeHuman, &vs[..1], &[label]), 1);
        assert_eq!(priority(Order::File, &vs, &[]), 0);
    }

    #[test]
    fn a_proposition_check_stated_with_low_confidence_counts_as_unsure() {
        let check = |claim: &str, raw: &str| Verdict {
            protocol: Protocol::Proposition,
            mode: None,
            key: ComboKey::new("i", claim, "proposition"),
            value: Value::Bool(true),
            raw: raw.into(),
            ..v(claim, "-", Mode::Two, Value::Bool(true))
        };
        let vs = [
            check("c-sure", r#"{"value": true, "confidence": 0.9}"#),
            check("c-unsure", r#"{"value": true, "confidence": 0.4}"#),
            // After a double check the revised answer's confidence counts.
            check(
                "c-revised",
                r#"{"first": {"confidence": 0.9}, "revised": {"confidence": 0.5}, "flipped": false}"#,
            ),
            check("c-no-raw", ""),
        ];
        assert_eq!(priority(Order::LowConfidence, &vs, &[]), 2);
    }

    /// A measured confidence (token probabilities) decides over what a
    /// check states, and counts for every protocol.
    #[test]
    fn a_measured_confidence_under_the_bar_counts_as_unsure() {
        use crate::domain::{Confidence, ConfidenceSource};
        let measured = |c: &str, value: Value, p: f64| Verdict {
            confidence: Some(Confidence {
                value: p,
                source: ConfidenceSource::Logprobs,
                expected_score: None,
            }),
            ..v(c, "kenton", Mode::Two, value)
        };
        let vs = [
            measured("sure", Value::Likert(5), 0.9),
            measured("unsure", Value::Likert(5), 0.45),
            measured("agree", Value::Agreement(Agreement::Agree), 0.55),
            // Stated 0.9, measured 0.3: the measure counts.
            Verdict {
                protocol: Protocol::Proposition,
                mode: None,
                raw: r#"{"value": true, "confidence": 0.9}"#.into(),
                ..measured("check", Value::Bool(true), 0.3)
            },
        ];
        assert_eq!(priority(Order::LowConfidence, &vs, &[]), 3);
    }
}
