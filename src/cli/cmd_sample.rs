//! `jury sample`: the next combinations of a sample order, for labelling
//! elsewhere (issue #33). `active` draws where the judge is unsure, with
//! replacement, each with its probability `pi`; `random` is a seeded
//! shuffle. Labels given for these draws and imported with `sample_order`,
//! `sample_seed`, `pi` and `sample_draw` (as printed) are recorded as
//! drawn, and `jury estimate` weighs them by `pi`.

use super::open_store;
use crate::config::Settings;
use crate::report::active_order::{self, OrderKind};
use clap::{Args, ValueEnum};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct SampleArgs {
    /// `active`: where the judge is unsure (its confidence, or the split of
    /// its configurations and repeats), above a uniform floor; `random`:
    /// every combination equally likely.
    #[arg(long, value_enum, default_value_t = SampleOrderArg::Active)]
    pub order: SampleOrderArg,
    /// How many draws to print.
    #[arg(long, default_value_t = 20)]
    pub n: usize,
    /// The order's seed: the same seed and verdicts give the same order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Only this persona's combinations (default: every persona's).
    #[arg(long)]
    pub persona: Option<String>,
    #[arg(long, value_enum, default_value_t = SampleFormat::Table)]
    pub format: SampleFormat,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum SampleOrderArg {
    Active,
    Random,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum SampleFormat {
    Table,
    Jsonl,
}

pub fn sample(s: &Settings, a: SampleArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(s)?;
    let builder = crate::report::pairs::Builder::read(&store)?;
    let readings = builder.readings_with_confidence();
    let members = active_order::population(&readings, a.persona.as_deref());
    if members.is_empty() {
        anyhow::bail!(
            "no combination to sample: the orders draw among combinations a judge has read (jury run first)"
        );
    }
    let kind = match a.order {
        SampleOrderArg::Active => OrderKind::Active,
        SampleOrderArg::Random => OrderKind::Random,
    };
    // Draws already recorded in this order (same seed) are not printed
    // again: the next N follow them.
    let done = match kind {
        OrderKind::Active => store
            .active_labels()?
            .values()
            .filter(|d| d.seed == Some(a.seed))
            .filter_map(|d| d.draw.map(|k| k + u64::from(d.draws) - 1))
            .max()
            .unwrap_or(0) as usize,
        // The shuffle's next combinations no one labelled yet.
        OrderKind::Random => 0,
    };
    let labelled: std::collections::HashSet<(String, crate::domain::ComboKey)> = readings
        .labels
        .iter()
        .map(|l| (l.0.to_string(), (*l.1).clone()))
        .collect();
    let is_labelled =
        |m: &active_order::Member| labelled.contains(&(m.persona.to_string(), (*m.key).clone()));
    let drawn = match kind {
        OrderKind::Active => active_order::order(&members, kind, a.seed, done, a.n, &is_labelled),
        OrderKind::Random => {
            active_order::order(&members, kind, a.seed, 0, members.len(), &is_labelled)
                .into_iter()
                .filter(|d| !d.repeat)
                .take(a.n)
                .collect()
        }
    };
    let text = match a.format {
        SampleFormat::Jsonl => drawn
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<Vec<_>, _>>()?
            .join("\n"),
        SampleFormat::Table => {
            let mut out = vec![format!(
                "the next {} draw(s) of the {} order (seed {}; {} combinations; pi: the chance one draw picks it within its classification){}",
                drawn.len(),
                kind.as_str(),
                a.seed,
                members.len(),
                if done > 0 {
                    format!("; {done} draw(s) already recorded")
                } else {
                    String::new()
                }
            )];
            out.push(format!(
                "{:>5}  {:<24} {:<20} {:<14} {:<14} {:>8}  {}",
                "draw", "item", "classification", "perspective", "persona", "pi", "note"
            ));
            for d in &drawn {
                let cut = |s: &str, n| crate::sanitize::one_line(s, n);
                out.push(format!(
                    "{:>5}  {:<24} {:<20} {:<14} {:<14} {:>8.5}  {}",
                    d.draw,
                    cut(&d.item_id, 24),
                    cut(&d.classification_id, 20),
                    cut(&d.perspective_id, 14),
                    cut(&d.persona_id, 14),
                    d.pi,
                    if d.repeat {
                        "drawn again: its label counts again"
                    } else {
                        ""
                    }
                ));
            }
            out.join("\n")
        }
    };
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
