//! `jury import`: items (JSONL or a JSON array), personas, perspectives, human
//! labels and whole Mode 1 request files. All-or-nothing unless asked to skip
//! invalid records; errors name the file, the line (or JSON path) and the field.

pub mod csv_export;
mod csv_in;
mod csv_map;
mod fields;
mod files;
mod labels;
mod owners;
mod parse;
mod records;

pub use csv_map::{CsvMap, MappingNote};
pub use fields::FieldError;
pub use owners::{INBOX_TAG, inbox_name};
pub use records::{Record, infer_scale, is_not_relevant, record};

/// The scale a typed value is on: `4` Likert, `agree` agreement, `true` boolean...
pub fn infer_scale_text(s: &str) -> crate::domain::Scale {
    let v = match s.trim().parse::<i64>() {
        Ok(n) => serde_json::json!(n),
        Err(_) => serde_json::json!(s.trim()),
    };
    records::infer_scale(&v)
}

use crate::domain::{Item, Label, Persona, Perspective};
use crate::store::{Store, StoreError};
use files::{data_files_under, import_order};
use labels::check_labels;
use parse::read_bytes;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Where in a file a record sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Line(usize),
    Path(String),
    /// A CSV cell: the line its record starts on (the header is line 1) and
    /// the column's header.
    Cell {
        line: usize,
        column: String,
    },
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Line(n) => write!(f, "line {n}"),
            Location::Path(p) => write!(f, "{p}"),
            Location::Cell { line, column } => write!(
                f,
                "line {line}, column '{}'",
                crate::sanitize::one_line(column, 80)
            ),
        }
    }
}

/// One record that could not be imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordError {
    pub file: PathBuf,
    pub at: Location,
    pub field: String,
    pub message: String,
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.at)?;
        if !self.field.is_empty() {
            write!(f, ": field '{}'", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{}: {message}", path.display())]
    Read { path: PathBuf, message: String },
    #[error("{0}\nnothing was imported (use --skip-invalid to import the valid records)")]
    Invalid(RecordError),
    /// The whole file cannot be read as asked (a CSV header or `--map`
    /// problem): skipping records would not help.
    #[error("{0}\nnothing was imported")]
    File(RecordError),
    #[error(
        "{} item(s) already judged or labelled would change: {}\nnothing was imported. Their verdicts and labels were \
         given on the stored content; pass --replace to import the new content anyway",
        ids.len(), shown_ids(ids)
    )]
    Changed { ids: Vec<String> },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The first ids of a list, for a message.
fn shown_ids(ids: &[String]) -> String {
    let mut s: Vec<String> = ids
        .iter()
        .take(20)
        .map(|i| crate::sanitize::one_line(i, 80))
        .collect();
    if ids.len() > 20 {
        s.push(format!("and {} more", ids.len() - 20));
    }
    s.join(", ")
}

/// How an import treats what is already stored.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Import the valid records and report each invalid one.
    pub skip_invalid: bool,
    /// Replace items whose content changed even when they have verdicts or labels.
    pub replace: bool,
    /// Who made the labels that do not say.
    pub who: String,
    /// `--map`: which CSV column holds which field (else guessed).
    pub csv_map: Option<CsvMap>,
}

/// What an import did.
#[derive(Debug, Default)]
pub struct ImportReport {
    pub items: usize,
    pub personas: usize,
    pub perspectives: usize,
    pub labels: usize,
    /// How the labels met those already stored (new, newer, unchanged, older).
    pub label_merge: crate::store::LabelCounts,
    /// Records left out under `--skip-invalid`, each with why.
    pub skipped: Vec<RecordError>,
    /// Files a directory import did not read, each with why.
    pub skipped_files: Vec<(PathBuf, String)>,
    /// Owner names (a `persona` field or an `inbox:` tag) that are no
    /// persona, with how many items named each: kept as `inbox:NAME` tags.
    pub unknown_owners: Vec<(String, usize)>,
    /// Each CSV file's mapping of columns to fields, to show the person.
    pub csv_mappings: Vec<(PathBuf, MappingNote)>,
    /// Verdict and failure rows of a jury CSV export: runs made them; an
    /// import does not.
    pub csv_rows_left_out: usize,
}

/// Everything parsed from the files, before it is written.
#[derive(Debug, Default)]
struct Batch {
    items: Vec<Item>,
    personas: Vec<Persona>,
    perspectives: Vec<Perspective>,
    labels: Vec<Label>,
    /// Rubric examples skipped as the harness does: (file, index, reason).
    rubric_skips: Vec<(String, usize, String)>,
    /// Where each label came from, for errors found after parsing.
    label_origins: Vec<(PathBuf, Location)>,
    /// Where each item id was first seen (the same id in two files is an error).
    item_origins: HashMap<String, (PathBuf, Location)>,
    skipped: Vec<RecordError>,
    skipped_files: Vec<(PathBuf, String)>,
    csv_mappings: Vec<(PathBuf, MappingNote)>,
    csv_rows_left_out: usize,
}

/// Reads every path (a directory means every .json/.jsonl file in it, sorted),
/// validates, then writes all in one transaction.
pub fn import_paths(
    store: &mut Store,
    paths: &[PathBuf],
    skip_invalid: bool,
    who: &str,
) -> Result<ImportReport, ImportError> {
    import_paths_with(
        store,
        paths,
        &ImportOptions {
            skip_invalid,
            replace: false,
            who: who.to_string(),
            csv_map: None,
        },
    )
}

/// [`import_paths`] with every option.
pub fn import_paths_with(
    store: &mut Store,
    paths: &[PathBuf],
    o: &ImportOptions,
) -> Result<ImportReport, ImportError> {
    let mut files = Vec::new();
    let mut batch = Batch::default();
    // Real directories and files already taken: each is read once however
    // many paths (links, a file named twice) lead to it.
    let mut seen = std::collections::HashSet::new();
    for p in paths {
        if p.is_dir() {
            let mut inner = Vec::new();
            data_files_under(p, &mut inner, &mut batch.skipped_files, &mut seen, 0)?;
            inner.sort_by_key(|f| import_order(f));
            files.extend(inner);
        } else if p.is_file() && !seen.insert(p.canonicalize().unwrap_or_else(|_| p.clone())) {
            batch
                .skipped_files
                .push((p.clone(), "the same file as one already read".into()));
        } else {
            files.push(p.clone());
        }
    }
    for f in &files {
        read_file(f, o, &mut batch)?;
    }
    write_batch(store, batch, o.skip_invalid, o.replace)
}

fn read_file(path: &Path, o: &ImportOptions, batch: &mut Batch) -> Result<(), ImportError> {
    let bytes = std::fs::read(path).map_err(|e| ImportError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    if files::extension(path).is_some_and(|x| x == "csv") {
        return csv_in::read_csv(
            path,
            &bytes,
            o.csv_map.as_ref(),
            o.skip_invalid,
            &o.who,
            batch,
        );
    }
    read_bytes(path, &bytes, o.skip_invalid, &o.who, batch)
}

/// The sample workspace compiled into the binary, so `jury` works from any directory.
pub const SAMPLE_DATA: &[(&str, &str)] = &[
    (
        "sample-data/personas.json",
        include_str!("../../sample-data/personas.json"),
    ),
    (
        "sample-data/perspectives.json",
        include_str!("../../sample-data/perspectives.json"),
    ),
    (
        "sample-data/items.jsonl",
        include_str!("../../sample-data/items.jsonl"),
    ),
    (
        "sample-data/labels.jsonl",
        include_str!("../../sample-data/labels.jsonl"),
    ),
    (
        "sample-data/rubric/examples.json",
        include_str!("../../sample-data/rubric/examples.json"),
    ),
    (
        "sample-data/guideline/conversations.json",
        include_str!("../../sample-data/guideline/conversations.json"),
    ),
    (
        "sample-data/guideline/labels.jsonl",
        include_str!("../../sample-data/guideline/labels.jsonl"),
    ),
    (
        "sample-data/proposition/labels.jsonl",
        include_str!("../../sample-data/proposition/labels.jsonl"),
    ),
];

/// Loads the bundled sample data (a new workspace starts with it).
pub fn import_sample(store: &mut Store, who: &str) -> Result<ImportReport, ImportError> {
    let mut batch = Batch::default();
    for (name, text) in SAMPLE_DATA {
        read_bytes(Path::new(name), text.as_bytes(), false, who, &mut batch)?;
    }
    write_batch(store, batch, false, false)
}

fn write_batch(
    store: &mut Store,
    mut batch: Batch,
    skip_invalid: bool,
    replace: bool,
) -> Result<ImportReport, ImportError> {
    check_labels(store, &mut batch, skip_invalid)?;
    let unknown_owners = owners::resolve_owners(store, &mut batch)?;
    if !replace {
        let changed = changed_under_work(store, &batch.items)?;
        if !changed.is_empty() {
            return Err(ImportError::Changed { ids: changed });
        }
    }
    if !batch.rubric_skips.is_empty() {
        let skips: Vec<(String, String, usize, String)> = batch
            .rubric_skips
            .iter()
            .map(|(f, i, r)| ("rubric".to_string(), f.clone(), *i, r.clone()))
            .collect();
        store.record_skips(&skips)?;
        for (file, i, reason) in &batch.rubric_skips {
            batch.skipped.push(RecordError {
                file: PathBuf::from(file),
                at: Location::Path(format!("$[{i}]")),
                field: String::new(),
                message: format!("rubric example skipped: {reason}"),
            });
        }
    }
    let counts = store.upsert_all(
        &batch.items,
        &batch.personas,
        &batch.perspectives,
        &batch.labels,
    )?;
    Ok(ImportReport {
        items: counts.items,
        personas: counts.personas,
        perspectives: counts.perspectives,
        labels: counts.labels,
        label_merge: counts.label_merge,
        skipped: batch.skipped,
        skipped_files: batch.skipped_files,
        unknown_owners: unknown_owners.into_iter().collect(),
        csv_mappings: batch.csv_mappings,
        csv_rows_left_out: batch.csv_rows_left_out,
    })
}

/// Ids of incoming items that differ from the stored item of the same id
/// while verdicts or labels refer to it: replacing them would leave those
/// judgements about content nobody judged.
fn changed_under_work(store: &Store, items: &[Item]) -> Result<Vec<String>, ImportError> {
    if items.is_empty() {
        return Ok(Vec::new());
    }
    let mut worked = store.judged_item_ids()?;
    worked.extend(store.labelled_item_ids()?);
    let mut changed = Vec::new();
    for item in items.iter().filter(|i| worked.contains(&i.id)) {
        // The owner is not content: the judge saw the same item either way.
        if let Some(stored) = store.item(&item.id)?
            && (Item {
                owner: item.owner.clone(),
                ..stored
            }) != *item
        {
            changed.push(item.id.clone());
        }
    }
    Ok(changed)
}
