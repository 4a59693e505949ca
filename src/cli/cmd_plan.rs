//! `jury plan`: how many more labels an interval of ±WIDTH needs, per
//! classification and judge configuration, under labels alone, uniform
//! PPI++ and the active order (`report::plan`).

use super::{interval_alpha, open_store};
use crate::config::Settings;
use crate::report::estimate;
use crate::report::pairs::Builder;
use clap::{Args, ValueEnum};
use std::process::ExitCode;

#[derive(Debug, Args)]
pub struct PlanArgs {
    /// The half-width wanted (e.g. 0.05 for ±0.05).
    #[arg(long, default_value_t = 0.05, value_parser = half_width)]
    pub width: f64,
    /// Error level of the interval (from 0.000001 to 0.5).
    #[arg(long, default_value_t = 0.05, value_parser = interval_alpha)]
    pub alpha: f64,
    /// Only this classification.
    #[arg(long)]
    pub classification: Option<String>,
    /// Also say the width each scheme would give after this many more labels.
    #[arg(long, default_value_t = 50)]
    pub at: usize,
    #[arg(long, value_enum, default_value_t = PlanFormat::Table)]
    pub format: PlanFormat,
}

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum PlanFormat {
    Table,
    Json,
}

fn half_width(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(w) if w > 0.0 && w < 0.5 => Ok(w),
        _ => Err(format!(
            "{s:?} is not a half-width: give a number above 0 and below 0.5 (e.g. 0.05)"
        )),
    }
}

pub fn plan(s: &Settings, a: PlanArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(s)?;
    let builder = Builder::read(&store)?;
    let mut readings = builder.readings_with_confidence();
    if s.confidence == Some(crate::config::ConfidenceChoice::Repeats) {
        readings.use_majority();
    }
    let sampling = estimate::Sampling::read(&store, false, false)?;
    let es = estimate::estimates(&readings, a.alpha, None, &sampling);
    let rows = crate::report::plan::plan_rows(
        &es,
        &readings,
        a.width,
        a.alpha,
        a.at,
        a.classification.as_deref(),
    );
    if let Some(c) = &a.classification
        && rows.is_empty()
        && !es.iter().any(|e| &e.classification == c)
    {
        anyhow::bail!(
            "no classification {:?} with verdicts (jury list items shows the classifications)",
            crate::sanitize::one_line(c, 60)
        );
    }
    let text = match a.format {
        PlanFormat::Table => crate::report::plan::table(&rows),
        PlanFormat::Json => serde_json::to_string_pretty(&rows)?,
    };
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
