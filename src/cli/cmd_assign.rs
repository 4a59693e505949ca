//! `jury assign`: give items to people (see [`crate::assign`]), or list
//! each person's share of the work.

use super::{AssignArgs, open_store};
use crate::assign::{choose_items, people, plan};
use crate::config::Settings;
use crate::store::AssignedWork;
use std::collections::BTreeMap;
use std::process::ExitCode;

/// The seed when none is given: the same plan on every run.
const DEFAULT_SEED: u64 = 1;

pub fn assign(s: &Settings, a: AssignArgs) -> anyhow::Result<ExitCode> {
    let mut store = open_store(s)?;
    if a.list {
        let work = store.assigned_work()?;
        print_work(&work, a.json)?;
        return Ok(ExitCode::SUCCESS);
    }
    // Everything is checked before anything is written.
    let who = people(&a.who)?;
    let all = store.item_ids()?;
    let seed = a.seed.unwrap_or(DEFAULT_SEED);
    let items = choose_items(&all, a.items.as_deref(), a.sample.map(|n| (n, seed)))?;
    let p = plan(
        &who,
        &items,
        a.overlap,
        seed,
        &store.assignment_counts()?,
        &store.assigned_items()?,
    )?;
    let added = store.assign(&p.pairs, &crate::store::now(), &s.who)?;
    let mut per: BTreeMap<&str, usize> = who.iter().map(|w| (w.as_str(), 0)).collect();
    for (_, w) in &p.pairs {
        *per.entry(w.as_str()).or_default() += 1;
    }
    let work = store.assigned_work()?;
    if a.json {
        let out = serde_json::json!({
            "items": items.len() - p.already.len(),
            "overlap": a.overlap,
            "added": added,
            "already_assigned": p.already.len(),
            "seed": seed,
            "added_per_person": per,
            "people": work,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{}",
        said(items.len(), a.overlap, added, &per, p.already.len())
    );
    print_work(&work, false)?;
    Ok(ExitCode::SUCCESS)
}

/// What one `jury assign` did, in a line or two.
fn said(
    chosen: usize,
    overlap: usize,
    added: usize,
    per: &BTreeMap<&str, usize>,
    already: usize,
) -> String {
    if chosen == 0 {
        return "no items to assign: the store holds none (jury import adds them)".into();
    }
    let mut out = if added == 0 {
        format!("nothing new: all {chosen} items chosen were assigned already")
    } else {
        let each: Vec<String> = per
            .iter()
            .map(|(w, n)| format!("{} {n}", crate::sanitize::one_line(w, 40)))
            .collect();
        format!(
            "assigned {} items to {overlap} {} each: {added} assignments ({})",
            chosen - already,
            if overlap == 1 { "person" } else { "people" },
            each.join(", ")
        )
    };
    if already > 0 && added > 0 {
        out.push_str(&format!(
            "\nleft {already} items as they were: someone holds them already"
        ));
    }
    out
}

fn print_work(work: &[AssignedWork], json: bool) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(work)?);
        return Ok(());
    }
    if work.is_empty() {
        println!("no one is assigned anything yet (jury assign --who NAME,NAME --overlap N)");
        return Ok(());
    }
    let names: Vec<String> = work
        .iter()
        .map(|w| crate::sanitize::one_line(&w.who, 40))
        .collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(3)
        .max(3);
    println!("{:<width$}  assigned  labelled   left", "who");
    for (w, name) in work.iter().zip(&names) {
        println!(
            "{name:<width$}  {:>8}  {:>8}  {:>5}",
            w.assigned, w.labelled, w.left
        );
    }
    Ok(())
}
