//! A batch as the server describes it, read from its (untrusted) JSON.

use super::super::{ProviderError, Secrets, batch_ids, errtext};
use serde_json::{Value, json};

/// A batch as the server describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchState {
    pub id: String,
    pub status: String,
    pub output_file_id: Option<String>,
    pub error_file_id: Option<String>,
    /// The request file it was created from (what finds a batch whose
    /// create answer never came).
    pub input_file_id: Option<String>,
    /// `(completed, failed, total)` from `request_counts`.
    pub counts: (u64, u64, u64),
}

impl BatchState {
    /// The batch `v` describes; its ids and status are untrusted text,
    /// checked against the run's `secrets` ([`super::super::batch_ids`]).
    pub(super) fn from_json(v: &Value, secrets: &Secrets) -> Result<BatchState, ProviderError> {
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("the batch has no id", v, secrets))?;
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let n = |k: &str| v["request_counts"][k].as_u64().unwrap_or(0);
        let file = |k: &str| {
            s(k).map(|f| batch_ids::checked_id("file id", &f, secrets))
                .transpose()
        };
        Ok(BatchState {
            id: batch_ids::checked_id("batch id", id, secrets)?,
            status: batch_ids::checked_status(
                &s("status").unwrap_or_else(|| "unknown".into()),
                secrets,
            ),
            output_file_id: file("output_file_id")?,
            error_file_id: file("error_file_id")?,
            // Only compared with the run's own (checked) request file id,
            // never stored or shown: one that is not a plain id is no match.
            input_file_id: file("input_file_id").ok().flatten(),
            counts: (n("completed"), n("failed"), n("total")),
        })
    }

    /// No further change will come (what was answered can be read).
    pub fn is_over(&self) -> bool {
        matches!(
            self.status.as_str(),
            "completed" | "failed" | "expired" | "cancelled"
        )
    }

    /// What does not add up in a batch that says it is `completed`: no
    /// output file although requests were answered, no error file although
    /// some failed, or counts whose parts are not the whole. `None` when it
    /// is consistent (or not completed: an expired or cancelled batch
    /// answers part by design).
    pub fn inconsistency(&self) -> Option<String> {
        if self.status != "completed" {
            return None;
        }
        let (completed, failed, total) = self.counts;
        if completed + failed != total {
            return Some(format!(
                "its counts do not add up ({completed} answered + {failed} failed of {total})"
            ));
        }
        if completed > 0 && self.output_file_id.is_none() {
            return Some(format!("{completed} requests answered but no output file"));
        }
        if completed == 0 && failed == 0 && total > 0 {
            return Some("nothing answered and nothing failed".into());
        }
        if failed > 0 && self.error_file_id.is_none() && self.output_file_id.is_none() {
            return Some(format!("{failed} requests failed but no file says why"));
        }
        None
    }

    /// `request_counts` as stored with the run.
    pub fn counts_json(&self) -> String {
        let (completed, failed, total) = self.counts;
        json!({"completed": completed, "failed": failed, "total": total}).to_string()
    }
}

pub(super) fn malformed(what: &str, v: &Value, secrets: &Secrets) -> ProviderError {
    ProviderError::Config(format!(
        "{what}: {}",
        crate::sanitize::one_line(&errtext::redact(&v.to_string(), secrets), 200)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(status: &str, counts: (u64, u64, u64), out: bool) -> BatchState {
        BatchState {
            id: "b".into(),
            status: status.into(),
            output_file_id: out.then(|| "f".to_string()),
            error_file_id: None,
            input_file_id: None,
            counts,
        }
    }

    #[test]
    fn a_completed_batch_must_add_up() {
        assert_eq!(state("completed", (2, 0, 2), true).inconsistency(), None);
        assert!(
            state("completed", (2, 0, 2), false)
                .inconsistency()
                .is_some()
        );
        assert!(
            state("completed", (1, 0, 2), true)
                .inconsistency()
                .is_some()
        );
        assert!(
            state("completed", (0, 0, 2), true)
                .inconsistency()
                .is_some()
        );
        // An expired batch answers part by design.
        assert_eq!(state("expired", (1, 0, 2), true).inconsistency(), None);
    }
}
