//! `jury import`: items (JSONL or a JSON array), personas, perspectives, human
//! labels and whole Mode 1 request files. All-or-nothing unless asked to skip
//! invalid records; errors name the file, the line (or JSON path) and the field.

mod argilla;
pub mod csv_export;
mod csv_in;
mod csv_map;
mod fields;
mod files;
mod inspect;
mod inspect_eval;
mod label_studio;
mod labels;
mod log_ids;
mod owners;
mod parse;
mod promptfoo;
mod records;
mod sample_fields;
pub mod verdicts;

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

impl Location {
    /// A place inside this one (`$[0]` → `$[0].annotations[1]`); a line or
    /// a cell stays as it is.
    pub(crate) fn within(&self, suffix: &str) -> Location {
        match self {
            Location::Path(p) => Location::Path(format!("{p}{suffix}")),
            other => other.clone(),
        }
    }
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
    /// What was imported but deserves a look (a classification without a
    /// description), each naming the file.
    pub warnings: Vec<String>,
    /// Verdicts from other tools or stores: the run each source became.
    pub verdicts: verdicts::VerdictImport,
}

/// One import in progress: the open transaction every checked record is
/// written to as it is read (so a million rows are never held in memory),
/// and what must wait for the end (labels, owners named before their
/// persona, items whose change needs --replace).
struct Batch<'s> {
    tx: crate::store::ImportTx<'s>,
    /// Replace items whose content changed under verdicts or labels.
    replace: bool,
    /// Labels, checked once every file is read (they may refer to items
    /// and personas of a later file), each with where it came from.
    labels: Vec<Label>,
    label_origins: Vec<(PathBuf, Location)>,
    /// Labels whose record says they were sampled, and the seed if given.
    label_samples: HashMap<crate::store::SampledKey, sample_fields::LabelSampling>,
    /// Rubric examples skipped as the harness does: (file, index, reason).
    rubric_skips: Vec<(String, usize, String)>,
    /// The files read so far; [`Batch::item_origins`] names them by index.
    files: Vec<PathBuf>,
    /// Where each item id was first seen: (file index, place). The same id
    /// twice is an error, in one file or across two.
    item_origins: HashMap<String, (u32, Location)>,
    owners: owners::Owners,
    /// Items verdicts or labels refer to (read when the first item comes).
    worked: Option<std::collections::HashSet<String>>,
    /// Ids of items whose content changed under verdicts or labels.
    changed: Vec<String>,
    skipped: Vec<RecordError>,
    skipped_files: Vec<(PathBuf, String)>,
    csv_mappings: Vec<(PathBuf, MappingNote)>,
    csv_rows_left_out: usize,
    warnings: Vec<String>,
    /// Verdict rows, checked once every file is read (their items may come
    /// later), then written as one run per source.
    verdicts: Vec<verdicts::Pending>,
    verdict_import: verdicts::VerdictImport,
}

impl<'s> Batch<'s> {
    /// A record that cannot be taken: set aside under `--skip-invalid`,
    /// else the whole import is refused with it.
    fn skip_or_refuse(&mut self, skip_invalid: bool, e: RecordError) -> Result<(), ImportError> {
        if skip_invalid {
            self.skipped.push(e);
            Ok(())
        } else {
            Err(ImportError::Invalid(e))
        }
    }

    fn new(tx: crate::store::ImportTx<'s>, replace: bool) -> Result<Batch<'s>, ImportError> {
        let owners = owners::Owners::new(tx.persona_ids()?);
        Ok(Batch {
            tx,
            replace,
            labels: Vec::new(),
            label_origins: Vec::new(),
            label_samples: HashMap::new(),
            rubric_skips: Vec::new(),
            files: Vec::new(),
            item_origins: HashMap::new(),
            owners,
            worked: None,
            changed: Vec::new(),
            skipped: Vec::new(),
            skipped_files: Vec::new(),
            csv_mappings: Vec::new(),
            csv_rows_left_out: 0,
            warnings: Vec::new(),
            verdicts: Vec::new(),
            verdict_import: Default::default(),
        })
    }

    /// The index `path` is known by in [`Batch::item_origins`].
    fn file_index(&mut self, path: &Path) -> u32 {
        match self.files.iter().position(|f| f == path) {
            Some(i) => i as u32,
            None => {
                self.files.push(path.to_path_buf());
                (self.files.len() - 1) as u32
            }
        }
    }

    /// Writes a checked item: its owner resolved, and noted when it would
    /// change an item verdicts or labels were given on.
    fn put_item(&mut self, mut item: Item) -> Result<(), ImportError> {
        self.owners.resolve(&mut item);
        if !self.replace {
            if self.worked.is_none() {
                self.worked = Some(self.tx.worked_item_ids()?);
            }
            // The owner is not content: the judge saw the same item either way.
            if self.worked.as_ref().is_some_and(|w| w.contains(&item.id))
                && let Some(stored) = self.tx.item(&item.id)?
                && (Item {
                    owner: item.owner.clone(),
                    ..stored
                }) != item
            {
                self.changed.push(item.id.clone());
            }
        }
        Ok(self.tx.put_item(&item)?)
    }

    fn put_persona(&mut self, p: Persona) -> Result<(), ImportError> {
        self.tx.put_persona(&p)?;
        self.owners.known(p.id);
        Ok(())
    }

    fn put_perspective(&mut self, p: Perspective) -> Result<(), ImportError> {
        Ok(self.tx.put_perspective(&p)?)
    }

    /// What must wait for every file, then the commit: nothing is written
    /// unless all of it is.
    fn finish(mut self, skip_invalid: bool) -> Result<ImportReport, ImportError> {
        let unknown_owners = self.owners.finish(&mut self.tx)?;
        check_labels(&mut self, skip_invalid)?;
        if !self.changed.is_empty() {
            return Err(ImportError::Changed { ids: self.changed });
        }
        verdicts::finish_verdicts(&mut self, skip_invalid)?;
        if !self.rubric_skips.is_empty() {
            let skips: Vec<(String, String, usize, String)> = self
                .rubric_skips
                .iter()
                .map(|(f, i, r)| ("rubric".to_string(), f.clone(), *i, r.clone()))
                .collect();
            self.tx.record_skips(&skips)?;
            for (file, i, reason) in &self.rubric_skips {
                self.skipped.push(RecordError {
                    file: PathBuf::from(file),
                    at: Location::Path(format!("$[{i}]")),
                    field: String::new(),
                    message: format!("rubric example skipped: {reason}"),
                });
            }
        }
        for l in std::mem::take(&mut self.labels) {
            self.tx.merge_label(&l)?;
            let who = (l.key.clone(), l.persona_id.clone(), l.who.clone());
            match self.label_samples.get(&who) {
                Some(sample_fields::LabelSampling::Random(seed)) => {
                    self.tx.mark_sampled(&l, *seed)?
                }
                Some(sample_fields::LabelSampling::Active(d)) => self.tx.mark_active(&l, d)?,
                None => {}
            }
        }
        let counts = self.tx.commit()?;
        Ok(ImportReport {
            items: counts.items,
            personas: counts.personas,
            perspectives: counts.perspectives,
            labels: counts.labels,
            label_merge: counts.label_merge,
            skipped: self.skipped,
            skipped_files: self.skipped_files,
            unknown_owners: unknown_owners.into_iter().collect(),
            csv_mappings: self.csv_mappings,
            csv_rows_left_out: self.csv_rows_left_out,
            warnings: self.warnings,
            verdicts: self.verdict_import,
        })
    }
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

/// [`import_paths`] with every option. Files are read one record at a
/// time into one transaction: memory does not grow with the file, and an
/// error anywhere leaves the store as it was.
pub fn import_paths_with(
    store: &mut Store,
    paths: &[PathBuf],
    o: &ImportOptions,
) -> Result<ImportReport, ImportError> {
    let mut files = Vec::new();
    let mut skipped_files = Vec::new();
    // Real directories and files already taken: each is read once however
    // many paths (links, a file named twice) lead to it.
    let mut seen = std::collections::HashSet::new();
    for p in paths {
        if p.is_dir() {
            let mut inner = Vec::new();
            data_files_under(p, &mut inner, &mut skipped_files, &mut seen, 0)?;
            inner.sort_by_key(|f| import_order(f));
            files.extend(inner);
        } else if p.is_file() && !seen.insert(p.canonicalize().unwrap_or_else(|_| p.clone())) {
            skipped_files.push((p.clone(), "the same file as one already read".into()));
        } else {
            files.push(p.clone());
        }
    }
    let mut batch = Batch::new(store.begin_import()?, o.replace)?;
    batch.skipped_files = skipped_files;
    for f in &files {
        read_file(f, o, &mut batch)?;
    }
    batch.finish(o.skip_invalid)
}

fn read_file(path: &Path, o: &ImportOptions, batch: &mut Batch<'_>) -> Result<(), ImportError> {
    if files::extension(path).is_some_and(|x| x == "csv") {
        return csv_in::read_csv(path, o.csv_map.as_ref(), o.skip_invalid, &o.who, batch);
    }
    parse::read_path(path, o.skip_invalid, &o.who, o.csv_map.as_ref(), batch)
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
    let mut batch = Batch::new(store.begin_import()?, false)?;
    for (name, text) in SAMPLE_DATA {
        read_bytes(Path::new(name), text.as_bytes(), false, who, &mut batch)?;
    }
    batch.finish(false)
}
