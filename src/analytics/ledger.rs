//! The cost ledger: tokens and estimated cost per run, per verdict and per
//! judge configuration (protocol and mode), from what the runs recorded.

use crate::domain::Run;
use serde::Serialize;
use std::collections::BTreeMap;

/// Totals for a set of runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LedgerLine {
    pub runs: u64,
    pub verdicts: u64,
    /// HTTP requests, every attempt counted.
    pub requests: u64,
    /// Requests whose usage the server never reported (not in the tokens).
    pub usage_unknown: u64,
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Of `prompt_tokens`, those served from the server's prompt cache.
    pub cached_tokens: u64,
    /// Sum over runs with a known price; `None` when no run had one.
    pub cost_usd: Option<f64>,
    /// Runs whose model has no price (local servers): their tokens count,
    /// their cost cannot.
    pub unpriced_runs: u64,
}

impl LedgerLine {
    fn add(&mut self, r: &Run) {
        self.runs += 1;
        self.verdicts += r.verdicts;
        self.requests += r.requests;
        self.usage_unknown += r.usage_unknown;
        self.prompt_tokens += r.prompt_tokens;
        self.completion_tokens += r.completion_tokens;
        self.cached_tokens += r.cached_tokens;
        match r.cost_usd {
            Some(c) => *self.cost_usd.get_or_insert(0.0) += c,
            // Tokens without a cost: the model has no price. No tokens at all
            // (nothing sent, or usage never reported) says nothing about the
            // price, and is not reported as if it did.
            None if r.prompt_tokens + r.completion_tokens > 0 => self.unpriced_runs += 1,
            None => {}
        }
    }

    /// Share of prompt tokens served from the server's prompt cache.
    pub fn cached_share(&self) -> Option<f64> {
        (self.prompt_tokens > 0).then(|| self.cached_tokens as f64 / self.prompt_tokens as f64)
    }

    /// Tokens per verdict; `None` with no verdicts.
    pub fn tokens_per_verdict(&self) -> Option<f64> {
        (self.verdicts > 0)
            .then(|| (self.prompt_tokens + self.completion_tokens) as f64 / self.verdicts as f64)
    }

    /// Estimated cost per verdict over the priced runs only would mix
    /// denominators, so it is given only when every run was priced.
    pub fn cost_per_verdict(&self) -> Option<f64> {
        match (self.cost_usd, self.unpriced_runs, self.verdicts) {
            (Some(c), 0, v) if v > 0 => Some(c / v as f64),
            _ => None,
        }
    }
}

/// The ledger: one line per judge configuration and the total.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Ledger {
    /// Keyed "awag mode 2 · gpt-4o-mini", "rubric · llama3"...
    pub by_config: BTreeMap<String, LedgerLine>,
    pub total: LedgerLine,
}

/// The judge configuration (protocol, mode, model) a run's costs are booked under.
pub fn config_name(r: &Run) -> String {
    match r.spec.mode {
        Some(m) => format!("{} mode {} · {}", r.spec.protocol, m, r.spec.model),
        None => format!("{} · {}", r.spec.protocol, r.spec.model),
    }
}

pub fn ledger(runs: &[Run]) -> Ledger {
    let mut l = Ledger::default();
    // A cascade's own run asks nothing: its stages' runs hold the usage.
    for r in runs.iter().filter(|r| {
        !r.spec
            .model
            .starts_with(crate::domain::CASCADE_MODEL_PREFIX)
    }) {
        l.by_config.entry(config_name(r)).or_default().add(r);
        l.total.add(r);
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Mode, Protocol, RunSpec, RunStatus};

    fn run(mode: Option<Mode>, verdicts: u64, tokens: (u64, u64), cost: Option<f64>) -> Run {
        Run {
            id: 1,
            spec: RunSpec {
                protocol: if mode.is_some() {
                    Protocol::Awag
                } else {
                    Protocol::Rubric
                },
                mode,
                persona_id: "p".into(),
                perspective_ids: vec![],
                model: "m".into(),
                prompt_hash: String::new(),
                record: None,
            },
            status: RunStatus::Done,
            created_at: String::new(),
            finished_at: None,
            total: verdicts,
            requests: 1,
            usage_unknown: 0,
            cached_tokens: 0,
            structured: None,
            record_note: None,
            verdicts,
            failures: 0,
            prompt_tokens: tokens.0,
            completion_tokens: tokens.1,
            cost_usd: cost,
            note: None,
        }
    }

    /// A run that sent nothing or got no usage back is not "without a
    /// price": the ledger must not tell the user to price a priced model.
    #[test]
    fn no_usage_is_not_no_price() {
        let mut r = run(Some(Mode::Two), 0, (0, 0), None);
        r.requests = 3;
        r.usage_unknown = 3;
        let l = ledger(&[r]);
        assert_eq!(l.total.unpriced_runs, 0);
        assert_eq!((l.total.requests, l.total.usage_unknown), (3, 3));
    }

    #[test]
    fn books_per_configuration_and_in_total() {
        let runs = [
            run(Some(Mode::Two), 100, (9_000, 1_000), Some(0.5)),
            run(Some(Mode::Two), 50, (4_000, 1_000), Some(0.25)),
            run(Some(Mode::One), 100, (3_000, 2_000), Some(0.1)),
            run(None, 10, (500, 500), None),
        ];
        let l = ledger(&runs);
        let m2 = &l.by_config["awag mode 2 · m"];
        assert_eq!((m2.runs, m2.verdicts), (2, 150));
        assert_eq!(m2.tokens_per_verdict(), Some(100.0));
        assert_eq!(m2.cost_per_verdict(), Some(0.75 / 150.0));
        let r = &l.by_config["rubric · m"];
        assert_eq!(r.cost_usd, None);
        assert_eq!(r.unpriced_runs, 1);
        assert_eq!(r.cost_per_verdict(), None);
        assert_eq!(l.total.runs, 4);
        assert!((l.total.cost_usd.unwrap() - 0.85).abs() < 1e-12);
        // One unpriced run: no honest per-verdict cost for the total.
        assert_eq!(l.total.cost_per_verdict(), None);
        assert_eq!(ledger(&[]).total.tokens_per_verdict(), None);
    }
}
