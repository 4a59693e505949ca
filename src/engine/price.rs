//! Estimated cost: dollars per million prompt and completion tokens. The
//! built-in table covers common hosted models; `prices.toml` in the config
//! directory (`model = [input, output]`) overrides and extends it. Unknown
//! models (local servers) have no cost.

use std::collections::HashMap;

const BUILT_IN: &[(&str, f64, f64)] = &[
    ("gpt-4o-mini", 0.15, 0.60),
    ("gpt-4o", 2.50, 10.00),
    ("gpt-4.1", 2.00, 8.00),
    ("gpt-4.1-mini", 0.40, 1.60),
    ("gpt-4.1-nano", 0.10, 0.40),
    ("gpt-5", 1.25, 10.00),
    ("gpt-5-mini", 0.25, 2.00),
    ("gpt-5-nano", 0.05, 0.40),
];

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    pub input_per_million: f64,
    pub output_per_million: f64,
}

impl Price {
    pub fn cost(&self, u: crate::domain::Usage) -> f64 {
        (u.prompt_tokens as f64 * self.input_per_million
            + u.completion_tokens as f64 * self.output_per_million)
            / 1_000_000.0
    }
}

/// The price of `model`: the user's table first, then the built-in one.
pub fn price_for(model: &str) -> Option<Price> {
    let user = user_table();
    let from = |m: &str| -> Option<Price> {
        if let Some(&(i, o)) = user.get(m) {
            return Some(Price {
                input_per_million: i,
                output_per_million: o,
            });
        }
        BUILT_IN
            .iter()
            .find(|(n, _, _)| *n == m)
            .map(|&(_, i, o)| Price {
                input_per_million: i,
                output_per_million: o,
            })
    };
    // Dated snapshots ("gpt-4o-mini-2024-07-18") cost what their family costs.
    from(model).or_else(|| {
        BUILT_IN
            .iter()
            .filter(|(n, _, _)| model.starts_with(&format!("{n}-")))
            .max_by_key(|(n, _, _)| n.len())
            .and_then(|(n, _, _)| from(n))
    })
}

fn user_table() -> HashMap<String, (f64, f64)> {
    let Some(path) = crate::config::config_dir().map(|d| d.join("prices.toml")) else {
        return HashMap::new();
    };
    let Ok(text) = std::fs::read_to_string(path) else {
        return HashMap::new();
    };
    toml::from_str::<HashMap<String, (f64, f64)>>(&text).unwrap_or_default()
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
        });
        assert!((c - 0.15).abs() < 1e-12);
    }
}
