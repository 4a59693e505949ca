//! `jury trust`: which verdicts can stand without a person, from the
//! core's thresholds (`report::trust`), written to stdout.

use super::{TrustArgs, TrustFormat, open_store};
use crate::config::Settings;
use crate::report::trust;
use std::process::ExitCode;

pub fn trust(s: &Settings, a: TrustArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(s)?;
    let (readings, ts, refused) = trust::read_thresholds(
        &store,
        a.alpha,
        a.delta,
        a.min_calibration,
        a.who.as_deref(),
        a.sampled_only,
        a.include_judge_selected,
    )?;
    // Before any threshold rests on people's labels: do they agree?
    crate::report::people::warn(&readings.labels, s.min_human_agreement);
    let text = if !a.cascade.is_empty() {
        cascade_text(&store, &a, &readings, refused)?
    } else if a.needs_person
        && a.judge.is_none()
        && let Some(c) = crate::report::cascade_queue::latest_cascade_queue(
            &store,
            &readings,
            &crate::report::estimate::Sampling::read(
                &store,
                a.sampled_only,
                a.include_judge_selected,
            )?,
        )?
    {
        // After `jury run --cascade`, as the workbench's filter: only what
        // its last judge cannot keep.
        match a.format {
            TrustFormat::Table => with_refused(
                refused,
                format!(
                    "{}\n{}",
                    crate::cli::strings::cascade::queue_of(c.run_id, &c.stages),
                    trust::needs_table(&c.queue, &ts, c.trusted)
                ),
            ),
            TrustFormat::Json => {
                let rows: Vec<_> = c.queue.iter().map(trust::Escalation::row).collect();
                serde_json::to_string_pretty(&rows)?
            }
        }
    } else if a.needs_person {
        // The configuration the summary's trust line names (the ranking's
        // first, or --judge's) is the one whose verdicts need a person.
        let (choice, es) = headline_choice(&store, &a, &readings)?;
        let named = crate::report::headline::trusts(&ts, &es, &choice);
        let queue = trust::needs_a_person(&readings, &named);
        match a.format {
            TrustFormat::Table => with_refused(
                refused,
                trust::needs_table(&queue, &ts, trust::any_trusted(&named)),
            ),
            TrustFormat::Json => {
                let rows: Vec<_> = queue.iter().map(trust::Escalation::row).collect();
                serde_json::to_string_pretty(&rows)?
            }
        }
    } else {
        match a.format {
            TrustFormat::Table => with_refused(
                refused,
                format!(
                    "{}{}{}",
                    summary(&store, &a, &readings, &ts)?,
                    reference_line(&store, &a, &readings)?,
                    trust::table(&ts)
                ),
            ),
            TrustFormat::Json => serde_json::to_string_pretty(&trust::TrustReport {
                refused_confidences: refused,
                thresholds: &ts,
            })?,
        }
    };
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// Where the labelled combinations' reference came from (adjudicated,
/// people's majority, one person; ties left out), a blank line after;
/// nothing without labels.
fn reference_line(
    store: &crate::store::Store,
    a: &TrustArgs,
    readings: &crate::report::pairs::Readings,
) -> anyhow::Result<String> {
    let sampling =
        crate::report::estimate::Sampling::read(store, a.sampled_only, a.include_judge_selected)?;
    let r = crate::report::estimate::reference_counts(readings, a.who.as_deref(), &sampling);
    let mut out = if r == Default::default() {
        String::new()
    } else {
        format!("{}\n\n", r.describe())
    };
    if let Some(line) = crate::report::trust::active_left_out(sampling.active.len()) {
        out.push_str(&format!("{line}\n\n"));
    }
    Ok(out)
}

/// The summary lines: per classification, the configuration the ranking
/// puts first (or `--judge`'s), the same one `jury estimate` names.
fn summary(
    store: &crate::store::Store,
    a: &TrustArgs,
    readings: &crate::report::pairs::Readings,
    ts: &[trust::Trust],
) -> anyhow::Result<String> {
    if ts.is_empty() {
        return Ok(String::new());
    }
    let (choice, es) = headline_choice(store, a, readings)?;
    let lines = trust::headlines(ts, &es, &choice);
    let mut out = String::from(
        "summary (the configuration the ranking puts first, as jury estimate names it; --judge names another):\n",
    );
    for l in lines {
        out.push_str(&format!("  {}\n", crate::sanitize::one_line(&l, 400)));
    }
    out.push('\n');
    Ok(out)
}

/// How the headline configuration is chosen (the ranking's order, and
/// `--judge`), and the estimates whose accuracy line names it.
fn headline_choice(
    store: &crate::store::Store,
    a: &TrustArgs,
    readings: &crate::report::pairs::Readings,
) -> anyhow::Result<(
    crate::report::headline::Choice,
    Vec<crate::report::estimate::Estimate>,
)> {
    let (pairs, _) = crate::report::pairs::Builder::read(store)?.finish_with_positions();
    let rankings = crate::report::rank::rankings(&pairs, None, 50, crate::report::DEFAULT_SEED);
    drop(pairs);
    let choice = crate::report::headline::Choice::new(&rankings, a.judge.as_deref());
    let sampling =
        crate::report::estimate::Sampling::read(store, a.sampled_only, a.include_judge_selected)?;
    let es = crate::report::estimate::estimates(readings, 0.05, a.who.as_deref(), &sampling);
    Ok((choice, es))
}

/// `text` headed by how many stored confidences were refused at read, when
/// any were: a threshold (or none) rests on the confidences that remain.
fn with_refused(refused: usize, text: String) -> String {
    match trust::refused_line(refused) {
        Some(line) => format!("{line}\n\n{text}"),
        None => text,
    }
}

/// `--cascade`: the judges named, calibrated in order.
fn cascade_text(
    store: &crate::store::Store,
    a: &TrustArgs,
    readings: &crate::report::pairs::Readings,
    refused: usize,
) -> anyhow::Result<String> {
    use crate::report::cascade;
    let judges = cascade::resolve_judges(readings, &a.cascade).map_err(anyhow::Error::msg)?;
    let sampling =
        crate::report::estimate::Sampling::read(store, a.sampled_only, a.include_judge_selected)?;
    let cs = cascade::cascades(
        readings,
        &judges,
        a.alpha,
        a.delta,
        a.min_calibration,
        a.who.as_deref(),
        &sampling,
    );
    if a.needs_person {
        let queue = crate::report::cascade_queue::cascade_needs_a_person(readings, &judges, &cs);
        let trusted = cs
            .iter()
            .any(|c| c.stages.iter().any(|s| s.threshold.is_some()));
        return Ok(match a.format {
            TrustFormat::Table => with_refused(refused, trust::needs_table(&queue, &[], trusted)),
            TrustFormat::Json => {
                let rows: Vec<_> = queue.iter().map(trust::Escalation::row).collect();
                serde_json::to_string_pretty(&rows)?
            }
        });
    }
    let runs = store.cascade_runs()?;
    Ok(match a.format {
        TrustFormat::Table => with_refused(
            refused,
            format!(
                "{}{}{}",
                reference_line(store, a, readings)?,
                cascade::table(&cs),
                crate::report::cascade_run::cascade_runs_text(store)?
                    .map_or(String::new(), |t| format!("\n\njury run --cascade:\n{t}"))
            ),
        ),
        TrustFormat::Json => serde_json::to_string_pretty(&cascade::CascadeReport {
            judges: &judges,
            cascades: &cs,
            runs: runs
                .iter()
                .map(|(run, record)| cascade::CascadeRun {
                    run_id: run.id,
                    status: run.status.as_str(),
                    record,
                })
                .collect(),
        })?,
    })
}
