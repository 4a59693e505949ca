//! `jury estimate`: the classifier's accuracy with a valid interval, from the
//! core's estimates (`report::estimate`), written to stdout.

use super::{EstimateArgs, EstimateFormat, open_store};
use crate::config::Settings;
use crate::report::estimate;
use crate::report::pairs::Builder;
use std::process::ExitCode;

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
    let readings = if s.confidence == Some(crate::config::ConfidenceChoice::Repeats) {
        let mut r = builder.finish_readings_with_confidence();
        r.use_majority();
        r
    } else {
        builder.finish_readings()
    };
    let sampling = estimate::Sampling {
        sampled: store.sampled_labels()?,
        only: a.sampled_only,
    };
    let es = estimate::estimates(&readings, a.alpha, a.who.as_deref(), &sampling);
    let text = match a.format {
        EstimateFormat::Table => estimate::table(&es),
        EstimateFormat::Json => serde_json::to_string_pretty(&es)?,
        EstimateFormat::Csv => estimate::csv(&es),
    };
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
