//! `jury import`: items (JSONL or a JSON array), personas, perspectives, human
//! labels and whole Mode 1 request files. All-or-nothing unless asked to skip
//! invalid records; errors name the file, the line (or JSON path) and the field.

mod fields;
mod records;

pub use fields::FieldError;
pub use records::{Record, infer_scale, is_not_relevant, record};

/// The scale a typed value is on: `4` Likert, `agree` agreement, `true` boolean...
pub fn infer_scale_text(s: &str) -> crate::domain::Scale {
    let v = match s.trim().parse::<i64>() {
        Ok(n) => serde_json::json!(n),
        Err(_) => serde_json::json!(s.trim()),
    };
    records::infer_scale(&v)
}

use crate::domain::{Item, Label, Persona, Perspective, Scale};
use crate::store::{Store, StoreError};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};

/// Where in a file a record sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Line(usize),
    Path(String),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Line(n) => write!(f, "line {n}"),
            Location::Path(p) => write!(f, "{p}"),
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
    for p in paths {
        if p.is_dir() {
            let mut inner = Vec::new();
            data_files_under(p, &mut inner, &mut batch.skipped_files, 0)?;
            inner.sort_by_key(|f| import_order(f));
            files.extend(inner);
        } else {
            files.push(p.clone());
        }
    }
    for f in &files {
        read_file(f, o.skip_invalid, &o.who, &mut batch)?;
    }
    write_batch(store, batch, o.skip_invalid, o.replace)
}

/// Deepest directory level a directory import descends to (sample-data/ has
/// one level of protocol folders; this only stops a symlink loop).
const MAX_DEPTH: usize = 8;

/// The extension of `f` in lower case (`.JSONL` is `.jsonl`).
fn extension(f: &Path) -> Option<String> {
    f.extension()
        .and_then(|x| x.to_str())
        .map(str::to_ascii_lowercase)
}

/// Every .json/.jsonl/.ndjson file (in any case) under `dir`, its
/// subdirectories included; every entry left out goes to `skipped` with why.
fn data_files_under(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    skipped: &mut Vec<(PathBuf, String)>,
    depth: usize,
) -> Result<(), ImportError> {
    let entries = std::fs::read_dir(dir).map_err(|e| ImportError::Read {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut entries: Vec<_> = entries.collect();
    entries.sort_by_key(|e| e.as_ref().map(|e| e.path()).ok());
    for e in entries {
        let e = match e {
            Ok(e) => e,
            Err(err) => {
                skipped.push((dir.to_path_buf(), format!("could not list an entry: {err}")));
                continue;
            }
        };
        let f = e.path();
        if e.file_name().to_string_lossy().starts_with('.') {
            skipped.push((f, "hidden".into()));
            continue;
        }
        if f.is_dir() {
            if depth < MAX_DEPTH {
                data_files_under(&f, out, skipped, depth + 1)?;
            } else {
                skipped.push((f, format!("deeper than {MAX_DEPTH} levels")));
            }
        } else if !matches!(extension(&f).as_deref(), Some("json" | "jsonl" | "ndjson")) {
            skipped.push((f, "not a .json, .jsonl or .ndjson file".into()));
        } else if !f.is_file() {
            skipped.push((f, "not a regular file".into()));
        } else {
            out.push(f);
        }
    }
    Ok(())
}

/// Personas and perspectives, then items, then other inputs (rubric examples,
/// conversations), then labels, so a directory import can check references in
/// one pass and the inbox items keep the first places in the list.
fn import_order(f: &Path) -> (u8, PathBuf) {
    let name = f
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    let rank = if name.contains("label") {
        3
    } else if name.contains("item") {
        1
    } else if name.contains("persona") || name.contains("perspective") {
        0
    } else {
        2
    };
    (rank, f.to_path_buf())
}

fn read_file(
    path: &Path,
    skip_invalid: bool,
    who: &str,
    batch: &mut Batch,
) -> Result<(), ImportError> {
    let bytes = std::fs::read(path).map_err(|e| ImportError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    read_bytes(path, &bytes, skip_invalid, who, batch)
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
        if let Some(stored) = store.item(&item.id)?
            && stored != *item
        {
            changed.push(item.id.clone());
        }
    }
    Ok(changed)
}

fn read_bytes(
    path: &Path,
    bytes: &[u8],
    skip_invalid: bool,
    who: &str,
    batch: &mut Batch,
) -> Result<(), ImportError> {
    // A UTF-8 byte-order mark (editors on Windows write one) is not content.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut seen: HashSet<(u8, String)> = HashSet::new();
    let mut index = 0usize;
    let mut accept = |at: Location,
                      v: Result<Value, RecordError>,
                      batch: &mut Batch|
     -> Result<(), ImportError> {
        let this_index = index;
        index += 1;
        // Invalid rubric examples are skipped with their index and reason, as the
        // rubric harness specifies, whatever --skip-invalid says.
        if let Ok(Value::Object(o)) = &v
            && !o.contains_key("classifications")
            && (o.contains_key("ticket") || o.contains_key("response"))
            && let Err(e) = records::rubric_example(o)
        {
            batch
                .rubric_skips
                .push((path.display().to_string(), this_index, e.message));
            return Ok(());
        }
        let rec = v.and_then(|v| {
            record(&v, who).map_err(|e| RecordError {
                file: path.to_path_buf(),
                at: at.clone(),
                field: e.field,
                message: e.message,
            })
        });
        // The same item in two files of one import: which one is meant?
        let rec = rec.and_then(|r| match &r {
            Record::Item(i) => match batch.item_origins.get(&i.id) {
                Some((file, first)) if file != path => Err(RecordError {
                    file: path.to_path_buf(),
                    at: at.clone(),
                    field: "id".into(),
                    message: format!(
                        "item '{}' is also in {}: {first}; an id may appear in one file only",
                        crate::sanitize::one_line(&i.id, 80),
                        file.display()
                    ),
                }),
                _ => Ok(r),
            },
            _ => Ok(r),
        });
        let rec = rec.and_then(|r| {
            let tag = match &r {
                Record::Item(_) => 0,
                Record::Persona(_) => 1,
                Record::Perspective(_) => 2,
                Record::Label(_) => 3,
            };
            if seen.insert((tag, r.id())) {
                Ok(r)
            } else {
                Err(RecordError {
                    file: path.to_path_buf(),
                    at: at.clone(),
                    field: "id".into(),
                    message: format!(
                        "duplicate id '{}' in this file",
                        crate::sanitize::one_line(&r.id(), 80)
                    ),
                })
            }
        });
        match rec {
            Ok(Record::Item(i)) => {
                batch
                    .item_origins
                    .entry(i.id.clone())
                    .or_insert_with(|| (path.to_path_buf(), at.clone()));
                batch.items.push(i);
            }
            Ok(Record::Persona(p)) => batch.personas.push(p),
            Ok(Record::Perspective(p)) => batch.perspectives.push(p),
            Ok(Record::Label(l)) => {
                batch.labels.push(l);
                batch.label_origins.push((path.to_path_buf(), at));
            }
            Err(e) if skip_invalid => batch.skipped.push(e),
            Err(e) => return Err(ImportError::Invalid(e)),
        }
        Ok(())
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
    let is_jsonl = extension(path).is_some_and(|x| x == "jsonl" || x == "ndjson")
        || (first == Some(b'{') && looks_like_jsonl(bytes));
    if is_jsonl {
        for (i, line) in bytes.split(|b| *b == b'\n').enumerate() {
            let at = Location::Line(i + 1);
            let parsed = match std::str::from_utf8(line) {
                Err(e) => Err(format!("invalid UTF-8 at byte {}", e.valid_up_to())),
                Ok(s) if s.trim().is_empty() => continue,
                Ok(s) => serde_json::from_str::<Value>(s).map_err(|e| format!("invalid JSON: {e}")),
            };
            let parsed = parsed.map_err(|message| RecordError {
                file: path.to_path_buf(),
                at: at.clone(),
                field: String::new(),
                message,
            });
            accept(at, parsed, batch)?;
        }
        return Ok(());
    }
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        ImportError::Invalid(RecordError {
            file: path.to_path_buf(),
            at: Location::Line(line),
            field: String::new(),
            message: "invalid UTF-8".into(),
        })
    })?;
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        ImportError::Invalid(RecordError {
            file: path.to_path_buf(),
            at: Location::Line(e.line()),
            field: String::new(),
            message: format!("invalid JSON: {e}"),
        })
    })?;
    match doc {
        Value::Array(records) => {
            for (i, v) in records.into_iter().enumerate() {
                accept(Location::Path(format!("$[{i}]")), Ok(v), batch)?;
            }
        }
        Value::Object(obj) if obj.contains_key("items") && !obj.contains_key("classifications") => {
            // A whole Mode 1 request (S8.1.3): persona, perspectives, items.
            if let Some(p) = obj.get("persona") {
                accept(Location::Path("$.persona".into()), Ok(p.clone()), batch)?;
            }
            match obj.get("perspectives") {
                None | Some(Value::Null) => {}
                Some(Value::Array(ps)) => {
                    for (i, p) in ps.iter().enumerate() {
                        accept(
                            Location::Path(format!("$.perspectives[{i}]")),
                            Ok(p.clone()),
                            batch,
                        )?;
                    }
                }
                Some(other) => {
                    return Err(ImportError::Invalid(RecordError {
                        file: path.to_path_buf(),
                        at: Location::Path("$".into()),
                        field: "perspectives".into(),
                        message: format!("must be an array, found {}", fields::kind(other)),
                    }));
                }
            }
            match obj.get("items") {
                Some(Value::Array(items)) => {
                    for (i, v) in items.iter().enumerate() {
                        accept(
                            Location::Path(format!("$.items[{i}]")),
                            Ok(v.clone()),
                            batch,
                        )?;
                    }
                }
                other => {
                    return Err(ImportError::Invalid(RecordError {
                        file: path.to_path_buf(),
                        at: Location::Path("$".into()),
                        field: "items".into(),
                        message: format!(
                            "must be an array, found {}",
                            other.map(fields::kind).unwrap_or("nothing")
                        ),
                    }));
                }
            }
        }
        single => accept(Location::Path("$".into()), Ok(single), batch)?,
    }
    Ok(())
}

/// A file starting with `{` whose first line is a complete JSON value is JSONL.
fn looks_like_jsonl(bytes: &[u8]) -> bool {
    let first_line = bytes
        .split(|b| *b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace));
    first_line.is_some_and(|l| serde_json::from_slice::<Value>(l).is_ok())
        && bytes.iter().filter(|b| **b == b'\n').count() > 0
}

/// A label is checked as `jury label` checks one: its item, classification,
/// persona and perspective must exist (in this import or already in the
/// store), and its value must be on its classification's scale.
fn check_labels(store: &Store, batch: &mut Batch, skip_invalid: bool) -> Result<(), ImportError> {
    if batch.labels.is_empty() {
        return Ok(());
    }
    let mut known: HashMap<String, HashSet<String>> = HashMap::new();
    for item in store.items()?.iter().chain(batch.items.iter()) {
        known
            .entry(item.id.clone())
            .or_default()
            .extend(item.classifications.iter().map(|c| c.id.clone()));
        // A conversation's guidelines are what guideline labels are about.
        known.entry(item.id.clone()).or_default().extend(
            crate::protocol::guideline::guidelines(item)
                .into_iter()
                .map(|g| g.id),
        );
    }
    let personas: HashSet<String> = store
        .personas()?
        .into_iter()
        .map(|p| p.id)
        .chain(batch.personas.iter().map(|p| p.id.clone()))
        .collect();
    let perspectives: HashSet<String> = store
        .perspectives()?
        .into_iter()
        .map(|p| p.id)
        .chain(batch.perspectives.iter().map(|p| p.id.clone()))
        .collect();
    // Claim ids and rubric dimensions are defined by runs, not by items.
    let free = |p: &str| {
        p == crate::protocol::proposition::PERSPECTIVE || p == crate::protocol::rubric::PERSPECTIVE
    };
    let mut kept = Vec::with_capacity(batch.labels.len());
    let origins = std::mem::take(&mut batch.label_origins);
    for (l, (file, at)) in std::mem::take(&mut batch.labels).into_iter().zip(origins) {
        let problem = match known.get(&l.key.item_id) {
            None => Some(("itemId", format!("no item '{}'", l.key.item_id))),
            Some(c) if !c.contains(&l.key.classification_id) && !free(&l.key.perspective_id) => {
                Some((
                    "classificationId",
                    format!(
                        "item '{}' has no classification '{}'",
                        l.key.item_id, l.key.classification_id
                    ),
                ))
            }
            _ => label_problem(&l, &personas, &perspectives),
        };
        match problem {
            None => kept.push(l),
            Some((field, message)) => {
                let e = RecordError {
                    file,
                    at,
                    field: field.into(),
                    message,
                };
                if skip_invalid {
                    batch.skipped.push(e);
                } else {
                    return Err(ImportError::Invalid(e));
                }
            }
        }
    }
    batch.labels = kept;
    Ok(())
}

/// The scales a label on `perspective` may use, as the judges of that
/// protocol answer on them (and `jury label` reads them).
fn scales_for(perspective: &str) -> &'static [Scale] {
    use crate::protocol::{guideline, proposition, rubric};
    match perspective {
        p if p == rubric::PERSPECTIVE => &[Scale::Likert],
        p if p == guideline::PERSPECTIVE => &[Scale::Degree],
        p if p == proposition::PERSPECTIVE => &[Scale::Bool, Scale::Score09],
        // Classifications: Likert (modes 1 and 2) or agreement (mode 3).
        _ => &[Scale::Likert, Scale::Agreement],
    }
}

/// What is wrong with a label's persona, perspective or scale, if anything.
fn label_problem(
    l: &Label,
    personas: &HashSet<String>,
    perspectives: &HashSet<String>,
) -> Option<(&'static str, String)> {
    use crate::protocol::{guideline, proposition, rubric};
    let p = l.key.perspective_id.as_str();
    let protocol =
        p == rubric::PERSPECTIVE || p == guideline::PERSPECTIVE || p == proposition::PERSPECTIVE;
    // Protocol labels belong to no persona ("-", as their runs record it).
    let persona_ok = personas.contains(&l.persona_id) || (protocol && l.persona_id == "-");
    if !persona_ok {
        return Some(("personaId", format!("no persona '{}'", l.persona_id)));
    }
    if !protocol && !perspectives.contains(p) {
        return Some(("perspectiveId", format!("no perspective '{p}'")));
    }
    let allowed = scales_for(p);
    let scale = l.value.scale();
    if !allowed.contains(&scale) {
        let names: Vec<&str> = allowed.iter().map(|s| s.as_str()).collect();
        return Some((
            "value",
            format!(
                "'{}' is on the {} scale; a label on perspective '{p}' is on the {} scale",
                l.value.as_text(),
                scale.as_str(),
                names.join(" or ")
            ),
        ));
    }
    None
}
