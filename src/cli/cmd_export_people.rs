//! `jury export --format label-studio|argilla`: the combinations to label
//! as tasks those tools import ([`crate::export::queue`]); with `--out`,
//! Label Studio's labeling config is written beside the tasks.

use super::strings::export as say;
use super::{ExportArgs, ExportFormat};
use crate::export::{argilla, label_studio, queue};
use crate::store::Store;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub fn export_tasks(store: &Store, a: &ExportArgs) -> anyhow::Result<ExitCode> {
    let tasks = queue::tasks(store, a.needs_person)?;
    let doc = match a.format {
        ExportFormat::Argilla => argilla::records_json(&tasks),
        _ => label_studio::tasks_json(&tasks),
    };
    let text = serde_json::to_string_pretty(&doc)?;
    let config = (a.format == ExportFormat::LabelStudio).then(|| label_studio::config(&tasks));
    match &a.out {
        Some(p) => {
            write(p, &text)?;
            if let Some(config) = config {
                let at = config_path(p);
                if crate::store::is_own_file(store.path(), &at) {
                    anyhow::bail!(say::out_is_store(&at.display().to_string()));
                }
                write(&at, &config)?;
                eprintln!("{}", say::label_config_at(&at.display().to_string()));
            }
        }
        None => {
            let mut out = std::io::stdout().lock();
            if let Err(e) = writeln!(out, "{text}").and_then(|()| out.flush()) {
                super::stdout_failed(&e);
            }
            if config.is_some() {
                eprintln!("{}", say::LABEL_CONFIG_NEEDS_OUT);
            }
        }
    }
    eprintln!("{}", say::tasks_written(tasks.len()));
    Ok(ExitCode::SUCCESS)
}

fn write(p: &Path, text: &str) -> anyhow::Result<()> {
    crate::store::write_atomically(p, |w| writeln!(w, "{text}"))
        .map_err(|e| anyhow::anyhow!(say::cannot_write(&p.display().to_string(), &e.to_string())))
}

/// `tasks.json` → `tasks.label-config.xml`, beside it.
pub fn config_path(out: &Path) -> PathBuf {
    let stem = out
        .file_stem()
        .map_or_else(|| "tasks".into(), |s| s.to_string_lossy().into_owned());
    out.with_file_name(format!("{stem}.label-config.xml"))
}
