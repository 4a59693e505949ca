//! Estimated cost: dollars per million prompt, completion and cached prompt
//! tokens. The built-in table covers common hosted models; `prices.toml` in
//! the config directory (`model = [input, output]` or
//! `model = [input, output, cached_input]`) overrides and extends it. Unknown
//! models (local servers) have no cost.

/// (model, input, output, cached input), dollars per million tokens.
const BUILT_IN: &[(&str, f64, f64, f64)] = &[
    ("gpt-4o-mini", 0.15, 0.60, 0.075),
    ("gpt-4o", 2.50, 10.00, 1.25),
    ("gpt-4.1", 2.00, 8.00, 0.50),
    ("gpt-4.1-mini", 0.40, 1.60, 0.10),
    ("gpt-4.1-nano", 0.10, 0.40, 0.025),
    ("gpt-5", 1.25, 10.00, 0.125),
    ("gpt-5-mini", 0.25, 2.00, 0.025),
    ("gpt-5-nano", 0.05, 0.40, 0.005),
];

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input_per_million: f64,
    pub output_per_million: f64,
    /// Prompt tokens served from the provider's cache; the input price when
    /// the table gives none.
    pub cached_input_per_million: f64,
}

impl Price {
    fn new(i: f64, o: f64, cached: Option<f64>) -> Price {
        Price {
            input_per_million: i,
            output_per_million: o,
            cached_input_per_million: cached.unwrap_or(i),
        }
    }

    pub fn cost(&self, u: crate::domain::Usage) -> f64 {
        let cached = u.cached_tokens.min(u.prompt_tokens);
        ((u.prompt_tokens - cached) as f64 * self.input_per_million
            + cached as f64 * self.cached_input_per_million
            + u.completion_tokens as f64 * self.output_per_million)
            / 1_000_000.0
    }

    /// The most one request can cost: every byte of the body a prompt token
    /// (a token is at least one byte), every allowed output token used.
    pub fn worst_case(&self, body_bytes: usize, max_tokens: u32) -> f64 {
        (body_bytes as f64 * self.input_per_million + max_tokens as f64 * self.output_per_million)
            / 1_000_000.0
    }
}

/// How a user prices a model jury does not know (for messages).
pub const HOW_TO_PRICE: &str = "add a line `MODEL = [input, output]` (dollars per million tokens) to prices.toml in the config directory";

/// Whether the user's price table reads: a run checks it before it starts
/// (`RunRequest::validate`), so a broken `prices.toml` is an error naming
/// the file and the entry, never a silently missing price.
pub fn check_user_table() -> Result<(), crate::config::ConfigError> {
    crate::config::load_prices().map(|_| ())
}

/// The price of `model`: the user's table first, then the built-in one.
/// A table that does not read counts as absent here: [`check_user_table`]
/// has reported it before any run got this far.
pub fn price_for(model: &str) -> Option<Price> {
    let user = crate::config::load_prices().unwrap_or_default();
    let from = |m: &str| -> Option<Price> {
        if let Some(p) = user.get(m)
            && let [i, o, rest @ ..] = p.as_slice()
        {
            return Some(Price::new(*i, *o, rest.first().copied()));
        }
        BUILT_IN
            .iter()
            .find(|(n, ..)| *n == m)
            .map(|&(_, i, o, c)| Price::new(i, o, Some(c)))
    };
    // Dated snapshots ("gpt-4o-mini-2024-07-18") cost what their family costs.
    from(model).or_else(|| {
        BUILT_IN
            .iter()
            .filter(|(n, ..)| model.starts_with(&format!("{n}-")))
            .max_by_key(|(n, ..)| n.len())
            .and_then(|(n, ..)| from(n))
    })
}

/// The price of a batch run's requests: `batch_input, batch_output` when
/// `prices.toml` gives them (`model = [input, output, cached, batch_input,
/// batch_output]`), else half the model's price, as the OpenAI Batch API bills.
pub fn batch_price_for(model: &str) -> Option<Price> {
    let user = crate::config::load_prices().unwrap_or_default();
    if let Some(p) = user.get(model)
        && let [_, _, _, i, o] = p.as_slice()
    {
        return Some(Price::new(*i, *o, None));
    }
    price_for(model).map(|p| Price {
        input_per_million: p.input_per_million / 2.0,
        output_per_million: p.output_per_million / 2.0,
        cached_input_per_million: p.cached_input_per_million / 2.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_inherit_family_price() {
        let p = price_for("gpt-4o-mini-2024-07-18").unwrap();
        assert_eq!(p.input_per_million, 0.15);
        assert!(price_for("llama3.1:8b").is_none());
        let c = p.cost(crate::domain::Usage {
            prompt_tokens: 1_000_000,
            completion_tokens: 0,
            cached_tokens: 0,
        });
        assert!((c - 0.15).abs() < 1e-12);
        // Half the prompt from the cache, at half the price.
        let c = p.cost(crate::domain::Usage {
            prompt_tokens: 1_000_000,
            completion_tokens: 0,
            cached_tokens: 500_000,
        });
        assert!((c - (0.075 + 0.0375)).abs() < 1e-12);
    }

    #[test]
    fn batch_requests_cost_half_unless_priced() {
        let p = batch_price_for("gpt-4o-mini").unwrap();
        assert_eq!(p.input_per_million, 0.075);
        assert_eq!(p.output_per_million, 0.30);
        assert!(batch_price_for("llama3.1:8b").is_none());
    }
}
