//! A batch as the server describes it, read from its (untrusted) JSON.

use super::super::ProviderError;
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
    pub(super) fn from_json(v: &Value) -> Result<BatchState, ProviderError> {
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("the batch has no id", v))?;
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let n = |k: &str| v["request_counts"][k].as_u64().unwrap_or(0);
        Ok(BatchState {
            id: id.to_string(),
            status: s("status").unwrap_or_else(|| "unknown".into()),
            output_file_id: s("output_file_id"),
            error_file_id: s("error_file_id"),
            input_file_id: s("input_file_id"),
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

pub(super) fn malformed(what: &str, v: &Value) -> ProviderError {
    ProviderError::Config(format!(
        "{what}: {}",
        crate::sanitize::one_line(&v.to_string(), 200)
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
