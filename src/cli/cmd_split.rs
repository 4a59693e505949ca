//! `jury split`: the workspace's fixed train/test split (domain::split).

use super::strings::split as say;
use super::{SplitArgs, open_store};
use crate::config::Settings;
use crate::domain::SplitRule;
use serde_json::json;
use std::process::ExitCode;

pub fn split(s: &Settings, a: SplitArgs) -> anyhow::Result<ExitCode> {
    let mut store = open_store(s)?;
    let Some(holdout) = a.holdout else {
        return show(&store, a.json);
    };
    let rule = SplitRule::new(holdout, a.seed)?;
    let counts = store.make_split(rule, &s.who, a.replace)?;
    if a.json {
        println!(
            "{}",
            json!({"by": "item", "holdout": holdout, "seed": a.seed, "train": counts.train, "test": counts.test,
                   "train_items": counts.train_items, "test_items": counts.test_items,
                   "by_label": counts.by_label})
        );
        return Ok(ExitCode::SUCCESS);
    }
    if counts.train + counts.test == 0 {
        println!("{}", say::made_empty(holdout, a.seed));
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{}",
        say::made(
            [counts.train_items, counts.test_items],
            counts.train + counts.test,
            counts.train,
            counts.test,
            holdout,
            a.seed
        )
    );
    for (value, [train, test]) in &counts.by_label {
        println!(
            "{}",
            say::label_row(&crate::sanitize::one_line(value, 40), *train, *test)
        );
    }
    println!("{}", say::NEVER_MOVES);
    Ok(ExitCode::SUCCESS)
}

fn show(store: &crate::store::Store, as_json: bool) -> anyhow::Result<ExitCode> {
    let Some(split) = store.split()? else {
        if as_json {
            println!("null");
        } else {
            println!("{}", say::NONE_YET);
        }
        return Ok(ExitCode::SUCCESS);
    };
    let (mut train, mut test) = (0usize, 0usize);
    let mut items: std::collections::BTreeMap<String, crate::domain::Side> = Default::default();
    for (item, cls) in store.labelled_pair_keys()? {
        match split.side_of(&item, &cls) {
            crate::domain::Side::Train => train += 1,
            crate::domain::Side::Test => test += 1,
        }
        let side = split.item_side(&item);
        items.insert(item, side);
    }
    let test_items = items
        .values()
        .filter(|s| **s == crate::domain::Side::Test)
        .count();
    let item_counts = [items.len() - test_items, test_items];
    let mixed = split.mixed_items();
    if as_json {
        println!(
            "{}",
            json!({"by": if mixed.is_empty() { "item" } else { "pair" }, "mixed_items": mixed.len(),
                   "holdout": split.rule.holdout, "seed": split.rule.seed, "created_at": split.created_at,
                   "created_by": split.created_by, "fixed": split.fixed(), "train": train, "test": test,
                   "train_items": item_counts[0], "test_items": item_counts[1]})
        );
    } else {
        println!(
            "{}",
            say::shown(
                &split.created_at,
                &crate::sanitize::one_line(&split.created_by, 60),
                split.rule.holdout,
                split.rule.seed,
                item_counts,
                train,
                test,
                split.fixed()
            )
        );
        if let Some(first) = mixed.first() {
            println!(
                "{}",
                say::pair_level(
                    mixed.len(),
                    &crate::sanitize::one_line(first, 60),
                    split.rule.holdout,
                    split.rule.seed
                )
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
