//! Tokens and costs as figures a person can trust: a request whose usage the
//! server never reported adds nothing to the counts, so a count that leaves
//! some out says so (`1200+?`), and one that leaves all out is unknown (`?`),
//! never `0` or `$0.0000`.

/// How much of a run's (or ledger line's) usage is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Known {
    /// Every request reported its usage (or none was sent).
    All,
    /// Some did not: the counts are a lower bound.
    Part,
    /// None did: the counts say nothing.
    None,
}

/// Of `requests`, `unknown` came back without usage.
pub fn known(requests: u64, unknown: u64) -> Known {
    match unknown {
        0 => Known::All,
        u if u >= requests => Known::None,
        _ => Known::Part,
    }
}

/// A count (tokens, tokens per verdict) in a table cell: `1200`, `1200+?`, `?`.
pub fn count_cell(n: &str, k: Known) -> String {
    match k {
        Known::All => n.to_string(),
        Known::Part => format!("{n}+?"),
        Known::None => "?".to_string(),
    }
}

/// A cost in a table cell with `digits` decimals: `$0.0123`, `$0.0123+?`,
/// `?` (usage unknown), `-` (no price).
pub fn cost_cell(cost: Option<f64>, digits: usize, k: Known) -> String {
    match (cost, k) {
        (_, Known::None) => "?".to_string(),
        (Some(c), Known::All) => format!("${c:.digits$}"),
        (Some(c), Known::Part) => format!("${c:.digits$}+?"),
        (None, _) => "-".to_string(),
    }
}

/// Tokens in a sentence: `1200 tokens`, `1200 tokens (+ unknown usage of 2
/// requests)`, `tokens unknown (the server reported no usage)`.
pub fn tokens_phrase(tokens: u64, requests: u64, unknown: u64) -> String {
    match known(requests, unknown) {
        Known::All => format!("{tokens} tokens"),
        Known::Part => {
            format!("{tokens} tokens (+ unknown usage of {unknown} request(s))")
        }
        Known::None => "tokens unknown (the server reported no usage)".to_string(),
    }
}

/// A cost in a sentence, or nothing when there is none to tell: `$0.0123`,
/// `at least $0.0123`; `None` when unpriced or when usage is unknown.
pub fn cost_phrase(cost: Option<f64>, requests: u64, unknown: u64) -> Option<String> {
    match (cost, known(requests, unknown)) {
        (_, Known::None) | (None, _) => None,
        (Some(c), Known::All) => Some(format!("${c:.4}")),
        (Some(c), Known::Part) => Some(format!("at least ${c:.4}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_is_never_zero() {
        assert_eq!(known(3, 0), Known::All);
        assert_eq!(known(0, 0), Known::All);
        assert_eq!(known(3, 1), Known::Part);
        assert_eq!(known(3, 3), Known::None);
        assert_eq!(count_cell("0", known(1, 1)), "?");
        assert_eq!(count_cell("120", known(2, 1)), "120+?");
        assert_eq!(cost_cell(Some(0.0), 4, known(1, 1)), "?");
        assert_eq!(cost_cell(Some(0.5), 2, known(2, 1)), "$0.50+?");
        assert_eq!(cost_cell(None, 4, Known::All), "-");
        assert_eq!(
            tokens_phrase(0, 1, 1),
            "tokens unknown (the server reported no usage)"
        );
        assert_eq!(cost_phrase(Some(0.0), 1, 1), None);
        assert_eq!(
            cost_phrase(Some(0.01), 2, 1).as_deref(),
            Some("at least $0.0100")
        );
    }
}
