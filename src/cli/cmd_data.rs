//! `import`, `list`, `runs`, `failures`.

use super::strings::{failures as say_failures, import as say_import, list as say_list};
use super::{FailuresArgs, ImportArgs, ListArgs, ListWhat, open_store};
use crate::analytics::usage_text::{cost_cell, count_cell, known};
use crate::config::Settings;
use crate::sanitize::one_line;
use serde_json::json;
use std::process::ExitCode;

pub fn import(s: &Settings, a: ImportArgs) -> anyhow::Result<ExitCode> {
    let mut store = open_store(s)?;
    let options = crate::import::ImportOptions {
        skip_invalid: a.skip_invalid,
        replace: a.replace,
        who: s.who.clone(),
        csv_map: a.map.clone(),
    };
    let report = crate::import::import_paths_with(&mut store, &a.paths, &options)?;
    let m = report.label_merge;
    if a.json {
        let skipped: Vec<_> = report
            .skipped
            .iter()
            .map(|e| json!({"file": e.file, "at": e.at.to_string(), "field": e.field, "reason": e.message}))
            .collect();
        let skipped_files: Vec<_> = report
            .skipped_files
            .iter()
            .map(|(f, why)| json!({"file": f, "reason": why}))
            .collect();
        let mappings: Vec<_> = report
            .csv_mappings
            .iter()
            .map(|(f, m)| json!({"file": f, "map": m.used.iter().map(|(k, c)| json!({"field": k, "column": c})).collect::<Vec<_>>(),
                                 "guessed": m.guessed, "unused_columns": m.unused,
                                 "values": m.values.iter().map(|(n, v)| json!({"classification": n, "values": v})).collect::<Vec<_>>()}))
            .collect();
        let unknown_owners: Vec<_> = report
            .unknown_owners
            .iter()
            .map(|(name, n)| json!({"name": name, "items": n}))
            .collect();
        println!(
            "{}",
            json!({"items": report.items, "personas": report.personas, "perspectives": report.perspectives,
                   "labels": report.labels,
                   "label_merge": {"new": m.new, "newer": m.newer, "unchanged": m.unchanged, "older": m.older},
                   "skipped": skipped, "skipped_files": skipped_files,
                   "unknown_owners": unknown_owners, "csv_mappings": mappings,
                   "csv_rows_left_out": report.csv_rows_left_out, "warnings": report.warnings,
                   "verdicts": report.verdicts.sources.iter().map(|v| json!({"judge": v.judge, "file": v.file,
                       "run_id": v.run_id, "verdicts": v.verdicts})).collect::<Vec<_>>(),
                   "verdict_files_already_imported": report.verdicts.already.iter().map(|(f, runs)| json!({"file": f, "runs": runs})).collect::<Vec<_>>(),
                   "rows_left_out": report.verdicts.left_out})
        );
    } else {
        for (f, why) in &report.skipped_files {
            eprintln!(
                "{}",
                say_import::not_read(
                    &crate::sanitize::one_line(&f.display().to_string(), 300),
                    why
                )
            );
        }
        for e in &report.skipped {
            eprintln!(
                "{}",
                say_import::skipped(&crate::sanitize::for_display(&e.to_string(), 1000))
            );
        }
        for (f, m) in &report.csv_mappings {
            eprintln!(
                "{}",
                say_import::csv_mapping(
                    &one_line(&f.display().to_string(), 300),
                    &crate::sanitize::one_line(&m.to_string(), 2000)
                )
            );
        }
        let left_out = report.csv_rows_left_out + report.verdicts.left_out;
        if left_out > 0 {
            eprintln!("{}", say_import::csv_rows_left_out(left_out));
        }
        for (f, runs) in &report.verdicts.already {
            let runs: Vec<String> = runs.iter().map(i64::to_string).collect();
            eprintln!(
                "{}",
                say_import::verdicts_already(
                    &one_line(&f.display().to_string(), 300),
                    &runs.join(", ")
                )
            );
        }
        for w in &report.warnings {
            eprintln!("warning: {w}");
        }
        for (name, n) in &report.unknown_owners {
            eprintln!("{}", say_import::unknown_owner(&one_line(name, 80), *n));
        }
        println!(
            "{}",
            say_import::imported(
                report.items,
                report.personas,
                report.perspectives,
                report.labels,
                &crate::store::Location::from(s.db_path.as_path()).to_string(),
                report.skipped.len()
            )
        );
        if report.labels > 0 {
            println!(
                "{}",
                say_import::label_merge(m.new, m.newer, m.unchanged, m.older)
            );
        }
        for v in &report.verdicts.sources {
            println!(
                "{}",
                say_import::verdicts_from(
                    v.verdicts,
                    &one_line(&v.judge, 120),
                    v.run_id,
                    &one_line(&v.file.display().to_string(), 300)
                )
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn list(s: &Settings, a: ListArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(s)?;
    match a.what {
        ListWhat::Items => {
            let items = store.items()?;
            if a.json {
                for i in &items {
                    println!("{}", serde_json::to_string(i)?);
                }
            } else {
                for i in &items {
                    let cls: Vec<String> = i
                        .classifications
                        .iter()
                        .map(|c| format!("{}={}", c.id, c.selected_text()))
                        .collect();
                    println!(
                        "{:<14} {:<6} {:<40} {}",
                        one_line(&i.id, 14),
                        one_line(&i.source.kind, 6),
                        one_line(
                            if i.title.is_empty() {
                                &i.text
                            } else {
                                &i.title
                            },
                            40
                        ),
                        one_line(&cls.join(" "), 120)
                    );
                }
                eprintln!("{}", say_list::items(items.len()));
            }
        }
        ListWhat::Personas => {
            let ps = store.personas()?;
            if a.json {
                println!("{}", serde_json::to_string_pretty(&ps)?);
            } else {
                for p in &ps {
                    println!(
                        "{:<12} {:<20} {}",
                        one_line(&p.id, 12),
                        one_line(&p.name, 20),
                        one_line(&p.field("does"), 90)
                    );
                }
            }
        }
        ListWhat::Perspectives => {
            let ps = store.perspectives()?;
            if a.json {
                println!("{}", serde_json::to_string_pretty(&ps)?);
            } else {
                for p in &ps {
                    println!(
                        "{:<16} {:<20} {}",
                        one_line(&p.id, 16),
                        one_line(&p.name, 20),
                        one_line(&p.text, 100)
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn runs(s: &Settings, as_json: bool) -> anyhow::Result<ExitCode> {
    let store = open_store(s)?;
    let mut runs = store.runs()?;
    if as_json {
        let mut listed = Vec::with_capacity(runs.len());
        for r in &runs {
            let mut v = serde_json::to_value(r)?;
            let jobs = store.batch_jobs(r.id)?;
            if !jobs.is_empty()
                && let Some(o) = v.as_object_mut()
            {
                o.insert(
                    "batches".into(),
                    jobs.iter().map(batch_json).collect::<Vec<_>>().into(),
                );
            }
            listed.push(v);
        }
        println!("{}", serde_json::to_string_pretty(&listed)?);
        return Ok(ExitCode::SUCCESS);
    }
    // The table newest first, as the workbench's runs view lists them: the
    // run just made is the one looked for (`--json` keeps the stored order).
    runs.sort_by_key(|r| std::cmp::Reverse(r.id));
    println!(
        "{:>4}  {:<16}  {:<10} {:<9} {:<4} {:<10} {:<24} {:<16} {:<24} {:>11} {:>8} {:>9} {:>9}",
        "run",
        "started (UTC)",
        "status",
        "protocol",
        "mode",
        "persona",
        "perspectives",
        "model",
        "prompts",
        "verdicts",
        "failures",
        "tokens",
        "cost"
    );
    for r in &runs {
        let usage = known(r.requests, r.usage_unknown);
        println!(
            "{:>4}  {:<16}  {:<10} {:<9} {:<4} {:<10} {:<24} {:<16} {:<24} {:>11} {:>8} {:>9} {:>9}",
            r.id,
            one_line(&crate::domain::utc_minute(&r.created_at), 16),
            r.status.as_str(),
            r.spec.protocol.as_str(),
            r.spec
                .mode
                .map(|m| m.to_string())
                .unwrap_or_else(|| "-".into()),
            one_line(&r.spec.persona_id, 10),
            one_line(&r.spec.perspective_ids.join(","), 24),
            one_line(&r.spec.model, 16),
            one_line(&r.prompt_version(), 24),
            format!("{}/{}", r.verdicts, r.total),
            r.failures,
            count_cell(&(r.prompt_tokens + r.completion_tokens).to_string(), usage),
            cost_cell(r.cost_usd, 4, usage),
        );
        if let Some(note) = &r.note {
            println!("{}", say_list::run_note(&one_line(note, 200)));
        }
        let cached = (r.prompt_tokens > 0).then(|| {
            say_list::cached_share(100.0 * r.cached_tokens as f64 / r.prompt_tokens as f64)
        });
        let unknown = (r.usage_unknown > 0).then(|| say_list::usage_unknown(r.usage_unknown));
        println!("{}", say_list::requests(r.requests, unknown, cached));
        if let Some(st) = &r.structured {
            println!("{}", say_list::structured(&one_line(st, 200)));
        }
        for job in store.batch_jobs(r.id)? {
            println!("      {}", batch_line(&job));
        }
    }
    print_ledger(&crate::analytics::ledger(&runs));
    Ok(ExitCode::SUCCESS)
}

/// A batch run's batch (or file) in `jury runs --json`: its id, status and
/// `request_counts` as last seen, and whether its answers were read; not
/// its file ids. What the run asked is its record, shown with the run.
fn batch_json(job: &crate::store::BatchJob) -> serde_json::Value {
    let counts = job
        .counts
        .as_deref()
        .and_then(|c| serde_json::from_str::<serde_json::Value>(c).ok());
    serde_json::json!({
        "part": job.part,
        "kind": job.kind.as_str(),
        "batch_id": job.batch_id,
        "status": job.status.as_str(),
        "request_counts": counts,
        "answers_read": job.imported,
    })
}

/// How a batch run's batch (or file) stands: `batch batch_3: completed,
/// 2/2 answered, 0 failed; answers read`.
fn batch_line(job: &crate::store::BatchJob) -> String {
    let what = match (job.kind, &job.batch_id) {
        (crate::domain::BatchWay::File, _) => format!("batch file {}", job.part),
        (_, Some(id)) => format!("batch {}", one_line(id, 40)),
        (_, None) => format!("batch part {} (not created yet)", job.part),
    };
    let counts = job
        .counts
        .as_deref()
        .and_then(|c| serde_json::from_str::<serde_json::Value>(c).ok())
        .map(|c| {
            format!(
                ", {}/{} answered, {} failed",
                c["completed"], c["total"], c["failed"]
            )
        })
        .unwrap_or_default();
    let read = if job.imported {
        "; answers read"
    } else if job.kind == crate::domain::BatchWay::File {
        "; waiting for `jury batch import`"
    } else {
        "; open (`jury run --batch --resume` waits for it)"
    };
    format!(
        "{what}: {}{counts}{read}",
        one_line(job.status.as_str(), 20)
    )
}

/// Per judge configuration: runs, verdicts, tokens and cost, per verdict too.
fn print_ledger(l: &crate::analytics::Ledger) {
    if l.total.runs == 0 {
        return;
    }
    println!();
    println!(
        "{:<34} {:>5} {:>9} {:>12} {:>12} {:>10} {:>12}",
        "cost ledger", "runs", "verdicts", "tokens", "tok/verdict", "cost", "$/verdict"
    );
    let line = |name: &str, x: &crate::analytics::LedgerLine| {
        let usage = known(x.requests, x.usage_unknown);
        println!(
            "{:<34} {:>5} {:>9} {:>12} {:>12} {:>10} {:>12}{}",
            one_line(name, 34),
            x.runs,
            x.verdicts,
            count_cell(&(x.prompt_tokens + x.completion_tokens).to_string(), usage),
            x.tokens_per_verdict()
                .map(|t| count_cell(&format!("{t:.0}"), usage))
                .unwrap_or_else(|| "-".into()),
            cost_cell(x.cost_usd, 4, usage),
            cost_cell(x.cost_per_verdict(), 6, usage),
            [
                (x.unpriced_runs > 0).then(|| {
                    say_list::unpriced(x.unpriced_runs, crate::engine::price::HOW_TO_PRICE)
                }),
                (x.usage_unknown > 0)
                    .then(|| { say_list::usage_not_reported(x.usage_unknown, x.requests) }),
                x.cached_share()
                    .filter(|c| *c > 0.0)
                    .map(|c| say_list::cached_share(100.0 * c)),
            ]
            .into_iter()
            .flatten()
            .map(|n| format!("  ({n})"))
            .collect::<String>()
        );
    };
    for (name, x) in &l.by_config {
        line(name, x);
    }
    line("total", &l.total);
}

pub fn failures(s: &Settings, a: FailuresArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(s)?;
    if let Some(run) = a.run
        && store.run(run)?.is_none()
    {
        anyhow::bail!(say_failures::no_run(run));
    }
    let failures = store.failures(a.run)?;
    if a.json {
        for f in &failures {
            println!("{}", serde_json::to_string(f)?);
        }
        return Ok(ExitCode::SUCCESS);
    }
    if failures.is_empty() {
        println!("{}", say_failures::none(a.run));
    }
    for f in failures {
        println!(
            "run {} · attempt {} · {} · HTTP {} · finish {} · {} combination(s) · {}",
            f.run_id,
            f.attempt,
            f.kind.as_str(),
            f.http_status
                .map(|s| s.to_string())
                .unwrap_or_else(|| "-".into()),
            // The finish reason is whatever the server sent.
            one_line(f.finish_reason.as_deref().unwrap_or("-"), 40),
            f.keys.len(),
            f.created_at
        );
        println!(
            "{}",
            say_failures::reason(&crate::sanitize::for_display(&f.reason, 2000))
        );
        if !f.raw_response.is_empty() {
            println!(
                "{}",
                say_failures::raw(&crate::sanitize::for_display(&f.raw_response, 4000))
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
