//! `jury run --persona owner`: each item judged as its owner,
//! one run per owner persona, as `R` does in the workbench. A run has one
//! persona in its spec (and its verdicts, resume and report key on it), so
//! the grouping is here rather than in the engine: each group is an
//! ordinary `jury run --persona ID --items ...`.

use crate::cli::strings::run as say;
use crate::cli::{RunArgs, open_store};
use crate::config::Settings;
use std::collections::HashSet;
use std::process::ExitCode;

use crate::domain::OWNER_CHOICE as OWNER;

/// Whether `--persona owner` means the grouping. Import and the workbench
/// refuse a persona with that id; a store that has one from before keeps
/// its meaning (that persona), and the run says which one it took.
pub(super) fn means_owner(s: &Settings, a: &RunArgs) -> anyhow::Result<bool> {
    if a.persona != OWNER {
        return Ok(false);
    }
    if open_store(s)?.persona(OWNER)?.is_some() {
        eprintln!("{}", say::OWNER_IS_A_PERSONA);
        return Ok(false);
    }
    Ok(true)
}

pub(super) fn run_by_owner(s: &Settings, a: RunArgs) -> anyhow::Result<ExitCode> {
    if a.protocol != "awag" {
        anyhow::bail!(say::OWNER_AWAG_ONLY);
    }
    // Each would apply to every owner's run on its own, not to the whole.
    if a.limit.is_some() || a.subset_percent.is_some() || a.budget.is_some() {
        anyhow::bail!(say::OWNER_NOT_WITH);
    }
    let wanted: Option<HashSet<String>> = a.items.clone().map(|v| v.into_iter().collect());
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    let mut unowned = 0usize;
    open_store(s)?.for_each_item(|i| {
        let wanted = wanted.as_ref().is_none_or(|w| w.contains(&i.id));
        if !wanted || !i.kind.is_empty() {
            return true;
        }
        match i.owner {
            None => unowned += 1,
            Some(o) => match groups.iter_mut().find(|(p, _)| *p == o) {
                Some((_, ids)) => ids.push(i.id),
                None => groups.push((o, vec![i.id])),
            },
        }
        true
    })?;
    if unowned > 0 {
        eprintln!("{}", say::unowned(unowned));
    }
    if groups.is_empty() {
        anyhow::bail!(say::NO_OWNED_ITEMS);
    }
    let mut code = ExitCode::SUCCESS;
    for (persona, ids) in groups {
        if !a.json {
            eprintln!(
                "{}",
                say::as_owner(&crate::sanitize::one_line(&persona, 60), ids.len())
            );
        }
        let one = RunArgs {
            persona,
            items: Some(ids),
            ..a.clone()
        };
        let c = super::run(s, one)?;
        if code == ExitCode::SUCCESS {
            code = c;
        }
    }
    Ok(code)
}
