//! `jury trust`: which verdicts can stand without a person, from the
//! core's thresholds (`report::trust`), written to stdout.

use super::{TrustArgs, TrustFormat, open_store};
use crate::config::Settings;
use crate::report::trust;
use std::process::ExitCode;

pub fn trust(s: &Settings, a: TrustArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(s)?;
    let (readings, ts) = trust::read_thresholds(
        &store,
        a.alpha,
        a.delta,
        a.min_calibration,
        a.who.as_deref(),
        a.sampled_only,
    )?;
    let text = if a.needs_person {
        let queue = trust::needs_a_person(&readings, &ts);
        match a.format {
            TrustFormat::Table => trust::needs_table(&queue, &ts),
            TrustFormat::Json => {
                let rows: Vec<_> = queue.iter().map(trust::Escalation::row).collect();
                serde_json::to_string_pretty(&rows)?
            }
        }
    } else {
        match a.format {
            TrustFormat::Table => trust::table(&ts),
            TrustFormat::Json => serde_json::to_string_pretty(&ts)?,
        }
    };
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
