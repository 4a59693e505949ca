use super::{Mode, Protocol, Value};
use serde::{Deserialize, Serialize};

/// One (item, classification, perspective) combination: what a verdict answers.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ComboKey {
    pub item_id: String,
    pub classification_id: String,
    pub perspective_id: String,
}

impl ComboKey {
    pub fn new(item: &str, classification: &str, perspective: &str) -> Self {
        ComboKey {
            item_id: item.to_string(),
            classification_id: classification.to_string(),
            perspective_id: perspective.to_string(),
        }
    }
}

/// Token usage of one request. `None` fields mean "unknown" (the usage chunk
/// never arrived), which is not the same as zero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Prompt tokens the server answered from its prompt cache
    /// (`prompt_tokens_details.cached_tokens`, llama.cpp's `timings.cache_n`);
    /// part of `prompt_tokens`, priced at the cached rate. 0 when not reported.
    #[serde(default)]
    pub cached_tokens: u64,
}

/// The judge's answer for one combination in one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub run_id: i64,
    pub key: ComboKey,
    pub persona_id: String,
    pub protocol: Protocol,
    pub mode: Option<Mode>,
    pub model: String,
    pub value: Value,
    pub text: String,
    /// The selection the judge says it evaluated.
    pub evaluated_selection: Option<String>,
    /// True when `evaluated_selection` differs from what was asked about.
    pub selection_mismatch: bool,
    pub latency_ms: u64,
    /// This verdict's share of the request's tokens (request tokens / entries).
    pub tokens: u64,
    /// The JSON the judge returned for this entry.
    pub raw: String,
    pub created_at: String,
    /// Where the item stood in the request that produced this verdict; the
    /// position-bias figures compare verdicts of one combination judged at
    /// different places. None for verdicts settled without a request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<RequestPosition>,
    /// How sure the judge was of `value`, when that is known (read from the
    /// answer's token probabilities, or from repeated judgements).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<Confidence>,
    /// The server that answered (its base URL as [`crate::provider::url::server_label`]
    /// gives it: no credentials, no query), when a request produced the verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
}

/// Where a verdict's confidence comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConfidenceSource {
    /// The normalised probability of the value's first token among the
    /// alternatives that start a value of the scale.
    Logprobs,
    /// The share of the same judge configuration's verdicts on this
    /// combination that gave the majority value.
    Repeats,
    /// Given by the tool an imported verdict came from (`jury import`),
    /// whatever it measured.
    Imported,
    /// The judge's own statement of how sure it is (a number in its answer),
    /// as an imported row names it (`confidence_source: "verbalised"`).
    Verbalised,
}

impl ConfidenceSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ConfidenceSource::Logprobs => "logprobs",
            ConfidenceSource::Repeats => "repeats",
            ConfidenceSource::Imported => "imported",
            ConfidenceSource::Verbalised => "verbalised",
        }
    }
    /// What the source is, for a person reading `jury trust`.
    pub fn describe(self) -> &'static str {
        match self {
            ConfidenceSource::Logprobs => "token probabilities (logprobs)",
            ConfidenceSource::Repeats => "agreement across repeated runs (repeats)",
            ConfidenceSource::Imported => "the imported source's own figure (imported)",
            ConfidenceSource::Verbalised => "the judge's stated confidence (verbalised)",
        }
    }
    pub fn parse(s: &str) -> Option<ConfidenceSource> {
        match s {
            "logprobs" => Some(ConfidenceSource::Logprobs),
            "repeats" => Some(ConfidenceSource::Repeats),
            "imported" => Some(ConfidenceSource::Imported),
            "verbalised" | "verbalized" => Some(ConfidenceSource::Verbalised),
            _ => None,
        }
    }
}

/// A verdict's confidence: a probability in (0, 1], and for numeric scales
/// the probability-weighted score (G-Eval's Σ p(s)·s) when token
/// probabilities gave it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Confidence {
    pub value: f64,
    pub source: ConfidenceSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_score: Option<f64>,
}

/// An item's place among the items of one request (0-based `index` of `items`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequestPosition {
    pub index: u32,
    pub items: u32,
}

impl RequestPosition {
    /// 0.0 for the first item, 1.0 for the last; None when the request held
    /// a single item (there is no "where" to speak of).
    pub fn relative(self) -> Option<f64> {
        (self.items > 1).then(|| f64::from(self.index) / f64::from(self.items - 1))
    }
}

/// Why a request did not yield (all) its verdicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The answer parsed but some entries were invalid or missing.
    Invalid,
    /// The tool arguments were not JSON at all.
    Malformed,
    /// The stream ended before the answer was complete.
    Truncated,
    /// finish_reason `length`.
    Length,
    /// finish_reason `content_filter`.
    ContentFilter,
    /// The model refused.
    Refusal,
    /// The server answered with an HTTP or stream error.
    Provider,
    /// The run was cancelled while this request was in flight.
    Cancelled,
}

impl FailureKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureKind::Invalid => "invalid",
            FailureKind::Malformed => "malformed",
            FailureKind::Truncated => "truncated",
            FailureKind::Length => "length",
            FailureKind::ContentFilter => "content_filter",
            FailureKind::Refusal => "refusal",
            FailureKind::Provider => "provider",
            FailureKind::Cancelled => "cancelled",
        }
    }
}

/// A request (or part of one) that did not yield valid verdicts (S8.9).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    pub run_id: i64,
    pub kind: FailureKind,
    /// The combinations this failure is about.
    pub keys: Vec<ComboKey>,
    pub reason: String,
    pub raw_response: String,
    pub http_status: Option<u16>,
    pub finish_reason: Option<String>,
    /// The request body as sent (never holds the key: that lives in a header).
    pub request: String,
    pub attempt: u32,
    pub created_at: String,
}

/// A person's answer for one combination and persona.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Label {
    pub key: ComboKey,
    pub persona_id: String,
    pub value: Value,
    pub note: String,
    pub who: String,
    pub created_at: String,
    /// The judge value shown beside it when the label was set, if any.
    pub replaced_judge_value: Option<Value>,
    /// Blind review: a verdict existed but was hidden when this value was
    /// given (anchoring can then be measured; see `jury export`).
    #[serde(default)]
    pub blind: bool,
    /// Why the judge was wrong, from the configured set (`tags` in
    /// config.toml), sorted; empty for none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}
