//! What `jury export` writes, read back by [`crate::import`]: the row
//! contract as JSON lines or CSV ([`rows`], [`write_rows`]), the AwAg
//! record shapes ([`awag`]) and the rubric harness's results ([`rubric`]).
//! The CLI chooses the format and where the bytes go.

pub mod argilla;
pub mod awag;
pub mod label_studio;
pub mod queue;
pub mod rows;
pub mod rubric;
pub mod wide;

use crate::domain::{Run, Verdict};
use crate::import::csv_export::{JSON_COLUMNS, item_row};
use crate::store::{Store, StoreError};
use rows::{COLUMNS, adjudication_row, failure_rows, label_row, mark_row, verdict_row};
use serde_json::Value;
use std::collections::HashMap;
use std::io::Write;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Writing the output failed (a full disk, a closed pipe).
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// Every verdict, label, standing adjudication, current mark and failure as a row, JSON lines or (`csv`) a CSV
/// with a header and, after them, the items. `repeats`: each verdict
/// without a stored confidence carries its share among its
/// configuration's repeats.
pub fn write_rows(
    store: &Store,
    csv: bool,
    repeats: bool,
    out: &mut dyn Write,
) -> Result<(), ExportError> {
    let runs: HashMap<i64, Run> = store.runs()?.into_iter().map(|r| (r.id, r)).collect();
    if csv {
        writeln!(out, "{}", COLUMNS.join(","))?;
    }
    let emit = |row: Value, out: &mut dyn Write| -> std::io::Result<()> {
        if csv {
            let cells: Vec<String> = COLUMNS
                .iter()
                .map(|c| match &row[*c] {
                    Value::String(j) if JSON_COLUMNS.contains(c) => {
                        crate::report::csv::json_text(j)
                    }
                    // A label's tags: the same JSON cell as an item's.
                    v @ Value::Array(_) if JSON_COLUMNS.contains(c) => {
                        crate::report::csv::json_text(&v.to_string())
                    }
                    v => crate::report::csv::cell(v),
                })
                .collect();
            writeln!(out, "{}", cells.join(","))
        } else {
            writeln!(out, "{row}")
        }
    };
    let mut err = None;
    let split = store.split()?;
    let sampled = store.sampled_labels()?;
    let active = store.active_labels()?;
    let mut each = |v: Verdict| {
        if err.is_none() {
            let mut row = verdict_row(&v);
            row["prompt_hash"] = runs
                .get(&v.run_id)
                .map_or(Value::Null, |r| Value::from(r.spec.prompt_hash.as_str()));
            err = emit(row, out).err();
        }
    };
    if repeats {
        store.for_each_verdict_with_repeats(&mut each)?;
    } else {
        store.for_each_verdict(&mut each)?;
    }
    store.for_each_label(|l| {
        if err.is_none() {
            let k = (l.key.clone(), l.persona_id.clone(), l.who.clone());
            let seed = sampled.get(&k).copied();
            err = emit(label_row(&l, split.as_ref(), seed, active.get(&k)), out).err();
        }
    })?;
    for a in store.adjudications()? {
        if err.is_none() {
            err = emit(adjudication_row(&a), out).err();
        }
    }
    for m in store.current_marks()? {
        if err.is_none() {
            err = emit(mark_row(&m), out).err();
        }
    }
    store.for_each_failure(None, |id, f| {
        for row in failure_rows(id, &f, runs.get(&f.run_id)) {
            if err.is_none() {
                err = emit(row, out).err();
            }
        }
    })?;
    // The CSV carries the items too (after the rows it always had), so
    // `jury import` reads it back.
    if csv && err.is_none() {
        store.for_each_item(|i| {
            err = emit(item_row(&i), out).err();
            err.is_none()
        })?;
    }
    match err {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}
