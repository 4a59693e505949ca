//! `jury export`.

use super::strings::export as say;
use super::{ExportArgs, ExportFormat, open_store};
use crate::config::Settings;
use crate::export::ExportError;
use crate::store::Store;
use std::io::Write;
use std::process::ExitCode;

pub fn export(s: &Settings, a: ExportArgs) -> anyhow::Result<ExitCode> {
    if let Some(p) = &a.out
        && crate::store::is_own_file(&s.db_path, p)
    {
        anyhow::bail!(say::out_is_store(&p.display().to_string()));
    }
    if a.out.is_some() {
        super::remove_temporaries_on_signal();
    }
    let people_tool = matches!(a.format, ExportFormat::LabelStudio | ExportFormat::Argilla);
    if a.needs_person && !people_tool {
        anyhow::bail!(say::NEEDS_PERSON_FORMATS);
    }
    let store = open_store(s)?;
    if people_tool {
        return super::cmd_export_people::export_tasks(&store, &a);
    }
    // With repeats as the confidence, each verdict without a stored one
    // carries its share among its configuration's repeats.
    let repeats = s.confidence == Some(crate::config::ConfidenceChoice::Repeats);
    match &a.out {
        // Written beside the target and renamed over it when complete: a
        // failed or killed export leaves the previous file as it was.
        Some(p) => crate::store::write_atomically(p, |w| {
            write_export(&store, a.format, repeats, w).map_err(std::io::Error::other)
        })
        .map_err(|e| {
            anyhow::anyhow!(say::cannot_write(&p.display().to_string(), &e.to_string()))
        })?,
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            let written = write_export(&store, a.format, repeats, &mut out)
                .and_then(|()| out.flush().map_err(anyhow::Error::from));
            if let Err(e) = written {
                match e.downcast_ref::<std::io::Error>() {
                    Some(io) => super::stdout_failed(io),
                    None => return Err(e),
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn write_export(
    store: &Store,
    format: ExportFormat,
    repeats: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    match format {
        ExportFormat::Jsonl | ExportFormat::Csv => {
            let csv = format == ExportFormat::Csv;
            crate::export::write_rows(store, csv, repeats, out).map_err(as_anyhow)?;
        }
        ExportFormat::Awag => {
            let doc = crate::export::awag::records(store)?;
            writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        }
        ExportFormat::Wide | ExportFormat::WideJsonl => {
            let csv = format == ExportFormat::Wide;
            crate::export::wide::write_wide(store, csv, out).map_err(as_anyhow)?;
        }
        ExportFormat::RubricResults => {
            let doc = crate::export::rubric::results(store)?;
            writeln!(out, "{}", serde_json::to_string_pretty(&doc)?)?;
        }
        ExportFormat::LabelStudio | ExportFormat::Argilla => {
            unreachable!("written by cmd_export_people before the store is read for rows")
        }
    }
    out.flush()?;
    Ok(())
}

/// An export error as the caller sees it: a write error kept an
/// `io::Error`, so a closed standard output is told from a store that failed.
fn as_anyhow(e: ExportError) -> anyhow::Error {
    match e {
        ExportError::Io(e) => anyhow::Error::from(e),
        e => e.into(),
    }
}
