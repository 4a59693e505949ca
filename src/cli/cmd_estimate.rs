//! `jury estimate`: the classifier's accuracy with a valid interval, from the
//! core's estimates (`report::estimate`), written to stdout: first the
//! summary (per classification, the configuration the ranking puts first or
//! the one `--judge` names), then every configuration.

use super::{EstimateArgs, EstimateFormat, open_store};
use crate::config::Settings;
use crate::report::estimate;
use crate::report::pairs::Builder;
use std::process::ExitCode;

/// Resamples of the ranking read for the summary: only its order is used,
/// and that order rests on point values.
const RANKING_RESAMPLES: usize = 50;

pub fn estimate(s: &Settings, a: EstimateArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(s)?;
    // With repeats as the confidence, the majority of a configuration's
    // repeated verdicts is its verdict.
    let builder = Builder::read(&store)?;
    if builder.refused_confidences() > 0 {
        eprintln!(
            "jury: {} stored confidence(s) outside [0, 1] or not finite were refused (read as no confidence)",
            builder.refused_confidences()
        );
    }
    let mut readings = builder.readings_with_confidence();
    // Before any figure rests on people's labels: do they agree?
    crate::report::people::warn(&readings.labels, s.min_human_agreement);
    if s.confidence == Some(crate::config::ConfidenceChoice::Repeats) {
        readings.use_majority();
    }
    let (pairs, _) = builder.finish_with_positions();
    let rankings =
        crate::report::rank::rankings(&pairs, None, RANKING_RESAMPLES, crate::report::DEFAULT_SEED);
    drop(pairs);
    let choice = crate::report::headline::Choice::new(&rankings, a.judge.as_deref());
    let sampling = estimate::Sampling::read(&store, a.sampled_only, a.include_judge_selected)?;
    let es = estimate::estimates(&readings, a.alpha, a.who.as_deref(), &sampling);
    let pooled = estimate::pooled(&readings, a.alpha, a.who.as_deref(), &sampling);
    let all: Vec<estimate::Estimate> = es.iter().chain(&pooled).cloned().collect();
    let text = match a.format {
        EstimateFormat::Table => {
            let mut lines = estimate::headlines(&es, &pooled, &choice);
            lines.extend(crate::report::headline::unranked(&readings, &rankings));
            let mut out = String::new();
            if !lines.is_empty() {
                out.push_str(&format!(
                    "summary ({}):\n",
                    if a.judge.is_some() {
                        "the configuration --judge names"
                    } else {
                        "the configuration the ranking puts first; --judge names another"
                    }
                ));
                for l in lines {
                    out.push_str(&format!("  {}\n", crate::sanitize::one_line(&l, 400)));
                }
                out.push('\n');
            }
            let reference = estimate::reference_counts(&readings, a.who.as_deref(), &sampling);
            if reference != Default::default() {
                out.push_str(&format!("{}\n\n", reference.describe()));
            }
            out.push_str(&estimate::table(&all));
            out
        }
        EstimateFormat::Json => serde_json::to_string_pretty(&all)?,
        EstimateFormat::Csv => estimate::csv(&all),
    };
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
