//! The faults the test server's Files and Batches API can be given: a
//! hostile server, call by call.

use serde_json::{Value, json};

/// A call of the Files and Batches API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    Upload,
    Create,
    List,
    Look,
    Download,
    Cancel,
}

/// How a failing call fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Failure {
    #[default]
    Unavailable,
    TooMany,
    /// The connection is closed without an answer.
    Dropped,
}

/// A line added to the output file after each answered line, with the same
/// custom id.
#[derive(Debug, Clone, PartialEq)]
pub enum Tail {
    /// An error line (`response: null`, an `error`).
    ErrorLine,
    /// A 200 line whose body is no chat completion.
    Malformed,
    /// A line that is not JSON at all (and names the custom id).
    Garbage,
    /// A second answer, with this content.
    SecondAnswer(String),
}

/// Faults of the Files and Batches API, all off by default.
#[derive(Debug, Clone, Default)]
pub struct Faults {
    /// The next creates are made, but their answer never leaves: the
    /// connection is closed instead.
    pub drop_create_answers: usize,
    /// The next uploads fail as `failure` says (no file is kept).
    pub failing_uploads: usize,
    /// The next status looks fail as `failure` says (the batch stays as it is).
    pub failing_looks: usize,
    /// The next downloads fail as `failure` says.
    pub failing_downloads: usize,
    pub failure: Failure,
    /// Lines added to the output file after every answered line.
    pub tail: Vec<Tail>,
    /// These calls are answered with a 307 to this URL.
    pub redirect: Option<(Call, String)>,
    /// Every batch's JSON padded to at least this many bytes.
    pub status_padding: usize,
    /// The output file ends with a line of another custom id this long.
    pub output_padding: usize,
    /// A batch that completes says so without an output file.
    pub completed_without_output: bool,
    /// A batch that completes says so with counts that do not add up.
    pub counts_off: bool,
    /// A cancel is answered only after this long.
    pub cancel_delay: Option<std::time::Duration>,
    /// This call is held an hour before anything is done (a create makes
    /// no batch): a client killed meanwhile left at that point.
    pub stall: Option<Call>,
    /// This call is done at once but answered only after an hour (a
    /// create makes its batch): a client killed meanwhile never heard.
    pub slow_answer: Option<Call>,
}

/// A line of `tail` for the answered line `i` of `custom_id`.
pub(super) fn tail_line(t: &Tail, custom_id: &Value, i: usize) -> String {
    match t {
        Tail::ErrorLine => json!({"id": format!("req_{i}_e"), "custom_id": custom_id, "response": null,
            "error": {"code": "server_error", "message": "a later error for the same request"}})
        .to_string(),
        Tail::Malformed => json!({"id": format!("req_{i}_m"), "custom_id": custom_id,
            "response": {"status_code": 200, "body": {"not": "a completion"}}, "error": null})
        .to_string(),
        Tail::Garbage => format!("{{\"custom_id\": {custom_id}, \"response\": {{ broken"),
        Tail::SecondAnswer(text) => {
            json!({"id": format!("req_{i}_2"), "custom_id": custom_id,
                "response": {"status_code": 200, "body": {
                    "id": "second", "object": "chat.completion",
                    "choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": text}}],
                    "usage": {"prompt_tokens": 1000, "completion_tokens": 1000, "total_tokens": 2000}}},
                "error": null})
            .to_string()
        }
    }
}
