//! A server's batch and file ids and batch status are untrusted text: they
//! are stored (`batch_jobs`), printed by `jury run` and `jury runs`, shown
//! in the workbench and put into request paths. An id is taken only as a
//! plain token holding no credential of the run; anything else is refused
//! before it is stored or shown (a server echoing the key in an id would
//! otherwise put the key in the store and on screen).

use super::{ProviderError, Secrets, errtext};

/// Longest id taken (OpenAI's are under 40 characters).
const MAX_ID_CHARS: usize = 200;

/// Whether `s` is a plain token: ASCII letters, digits, `-`, `_`, `.`, `:`;
/// no `/`, `?`, `%` or space that would change a request path.
fn plain(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= MAX_ID_CHARS
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':'))
}

/// Whether a credential of the run (or the start of one, ending the text)
/// is in `s`.
fn holds_secret(s: &str, secrets: &Secrets) -> bool {
    errtext::redact(s, secrets) != s
}

/// `id` (`what`: "batch id", "file id") when it is plain and holds no
/// credential; else an error that quotes none of it.
pub fn checked_id(what: &str, id: &str, secrets: &Secrets) -> Result<String, ProviderError> {
    if holds_secret(id, secrets) {
        return Err(ProviderError::Config(format!(
            "the server's {what} holds a credential of this run; it is neither stored nor shown, and the batch is left to the server"
        )));
    }
    if !plain(id) {
        return Err(ProviderError::Config(format!(
            "the server's {what} is not a plain id ({} characters; letters, digits, - _ . : expected); it is neither stored nor shown",
            id.chars().count()
        )));
    }
    Ok(id.to_string())
}

/// A batch's status as stored and shown: the server's word when it is a
/// plain token without a credential, else `unknown` (an unknown status is
/// waited on like any other that is not over).
pub fn checked_status(status: &str, secrets: &Secrets) -> String {
    if plain(status) && status.len() <= 40 && !holds_secret(status, secrets) {
        status.to_string()
    } else {
        "unknown".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::Secret;

    #[test]
    fn an_id_holding_the_key_or_path_characters_is_refused_without_quoting_it() {
        let s = Secrets::key(Some(&Secret::new("sk-CANARY-1")));
        assert_eq!(
            checked_id("batch id", "batch_abc-1", &s).unwrap(),
            "batch_abc-1"
        );
        for bad in [
            "batch_sk-CANARY-1",
            "b_sk-CANA",
            "../files/x",
            "a b",
            "",
            "a%2F",
        ] {
            let e = checked_id("batch id", bad, &s).unwrap_err().to_string();
            assert!(!e.contains("CANA") && !e.contains("files"), "{bad}: {e}");
        }
        assert_eq!(checked_status("in_progress", &s), "in_progress");
        assert_eq!(checked_status("done-sk-CANARY-1", &s), "unknown");
        assert_eq!(checked_status("\u{1b}[2J", &s), "unknown");
    }
}
