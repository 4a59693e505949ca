//! Reading one file's bytes into the batch: JSONL, a JSON array, one record,
//! or a whole Mode 1 request; each record checked for its file (duplicate
//! ids, an item also in another file) before it is kept.

use super::files::extension;
use super::records::{self, Record, record};
use super::{Batch, ImportError, Location, RecordError, fields};
use serde_json::Value;
use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Reads one file from disk. JSONL (by its extension, or a file whose first
/// record is a whole line) is read a line at a time; a JSON document (an
/// array, a Mode 1 request) is parsed whole.
pub(super) fn read_path(
    path: &Path,
    skip_invalid: bool,
    who: &str,
    map: Option<&super::CsvMap>,
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    let cannot_read = |e: std::io::Error| ImportError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut r =
        BufReader::with_capacity(1 << 16, crate::readfile::open(path).map_err(cannot_read)?);
    skip_bom(&mut r).map_err(cannot_read)?;
    let mut accept = Accept::new(path, who, skip_invalid, batch);
    accept.log_map = map.map(|m| m.pairs.clone()).unwrap_or_default();
    if extension(path).is_some_and(|x| x == "eval") {
        return super::inspect_eval::read_eval(path, &mut accept, batch);
    }
    if extension(path).is_some_and(|x| x == "jsonl" || x == "ndjson") {
        return read_jsonl(&mut accept, r, Vec::new(), batch);
    }
    // The lines up to the first that is not blank tell JSONL from a document.
    let mut head = Vec::new();
    loop {
        let start = head.len();
        if r.read_until(b'\n', &mut head).map_err(cannot_read)? == 0 {
            break;
        }
        let line = &head[start..];
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let is_jsonl = line.first() == Some(&b'{')
            && line.ends_with(b"\n")
            && serde_json::from_slice::<Value>(line).is_ok();
        if is_jsonl {
            return read_jsonl(&mut accept, r, head, batch);
        }
        break;
    }
    if head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        // An array of records: one element in memory at a time.
        if let Some(line) = first_bad_utf8_line(path).map_err(cannot_read)? {
            let e = accept.error(&Location::Line(line), "", "invalid UTF-8".into());
            return Err(ImportError::Invalid(e));
        }
        return read_array(&mut accept, std::io::Cursor::new(head).chain(r), batch);
    }
    r.read_to_end(&mut head).map_err(cannot_read)?;
    read_document(&mut accept, &head, batch)
}

/// The first line of the file that is not UTF-8, if any (read a line at a time).
fn first_bad_utf8_line(path: &Path) -> std::io::Result<Option<usize>> {
    let mut r = BufReader::with_capacity(1 << 16, crate::readfile::open(path)?);
    skip_bom(&mut r)?;
    let mut line = Vec::new();
    for n in 1.. {
        line.clear();
        if r.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if std::str::from_utf8(&line).is_err() {
            return Ok(Some(n));
        }
    }
    Ok(None)
}

/// A JSON array of records, each taken as soon as it is parsed.
fn read_array(
    accept: &mut Accept<'_>,
    r: impl Read,
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    use serde::Deserializer as _;
    use serde::de::{Error as _, SeqAccess, Visitor};

    struct Each<'x, 'a, 'b> {
        accept: &'x mut Accept<'a>,
        batch: &'x mut Batch<'b>,
        /// Why taking an element stopped the parse (not a JSON error).
        stopped: &'x mut Option<ImportError>,
    }
    impl<'de> Visitor<'de> for Each<'_, '_, '_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("an array of records")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let mut i = 0usize;
            while let Some(v) = seq.next_element::<Value>()? {
                let at = Location::Path(format!("$[{i}]"));
                if let Err(e) = self.accept.take(at, Ok(v), self.batch) {
                    *self.stopped = Some(e);
                    return Err(A::Error::custom("stopped"));
                }
                i += 1;
            }
            Ok(())
        }
    }
    let mut de = serde_json::Deserializer::from_reader(r);
    let mut stopped = None;
    let parsed = de
        .deserialize_seq(Each {
            accept,
            batch,
            stopped: &mut stopped,
        })
        .and_then(|()| de.end());
    if let Some(e) = stopped {
        return Err(e);
    }
    parsed.map_err(|e| {
        let at = Location::Line(e.line());
        ImportError::Invalid(accept.error(&at, "", format!("invalid JSON: {e}")))
    })
}

/// Drops a UTF-8 byte-order mark (editors on Windows write one): it is not content.
pub(super) fn skip_bom(r: &mut impl BufRead) -> std::io::Result<()> {
    if r.fill_buf()?.starts_with(b"\xEF\xBB\xBF") {
        r.consume(3);
    }
    Ok(())
}

/// A file already in memory (the bundled sample data).
pub(super) fn read_bytes(
    path: &Path,
    bytes: &[u8],
    skip_invalid: bool,
    who: &str,
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut accept = Accept::new(path, who, skip_invalid, batch);
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
    let is_jsonl = extension(path).is_some_and(|x| x == "jsonl" || x == "ndjson")
        || (first == Some(b'{') && looks_like_jsonl(bytes));
    if is_jsonl {
        read_jsonl(&mut accept, bytes, Vec::new(), batch)
    } else {
        read_document(&mut accept, bytes, batch)
    }
}

/// One record per non-blank line: the lines of `head` (already read), then
/// the rest of `r`, one line in memory at a time.
fn read_jsonl(
    accept: &mut Accept<'_>,
    mut r: impl BufRead,
    head: Vec<u8>,
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    let mut n = 0usize;
    for line in head.split_inclusive(|b| *b == b'\n') {
        n += 1;
        jsonl_line(accept, n, line, batch)?;
    }
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = r
            .read_until(b'\n', &mut line)
            .map_err(|e| ImportError::Read {
                path: accept.path.to_path_buf(),
                message: e.to_string(),
            })?;
        if read == 0 {
            return Ok(());
        }
        n += 1;
        jsonl_line(accept, n, &line, batch)?;
    }
}

fn jsonl_line(
    accept: &mut Accept<'_>,
    n: usize,
    line: &[u8],
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    let at = Location::Line(n);
    let parsed = match std::str::from_utf8(line) {
        Err(e) => Err(format!("invalid UTF-8 at byte {}", e.valid_up_to())),
        Ok(s) if s.trim().is_empty() => return Ok(()),
        Ok(s) => serde_json::from_str::<Value>(s).map_err(|e| format!("invalid JSON: {e}")),
    };
    let parsed = parsed.map_err(|message| accept.error(&at, "", message));
    accept.take(at, parsed, batch)
}

/// One JSON document: an array of records, a Mode 1 request, or one record.
fn read_document(
    accept: &mut Accept<'_>,
    bytes: &[u8],
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        ImportError::Invalid(accept.error(&Location::Line(line), "", "invalid UTF-8".into()))
    })?;
    let doc: Value = serde_json::from_str(text).map_err(|e| {
        let at = Location::Line(e.line());
        ImportError::Invalid(accept.error(&at, "", format!("invalid JSON: {e}")))
    })?;
    match doc {
        Value::Array(records) => {
            for (i, v) in records.into_iter().enumerate() {
                accept.take(Location::Path(format!("$[{i}]")), Ok(v), batch)?;
            }
            Ok(())
        }
        Value::Object(obj) if obj.contains_key("items") && !obj.contains_key("classifications") => {
            read_request(accept, &obj, batch)
        }
        Value::Object(obj) if super::inspect::is_log(&obj) => {
            super::inspect::read_log(accept, &obj, batch)
        }
        Value::Object(obj) if super::promptfoo::is_results(&obj) => {
            super::promptfoo::read_results(accept, &obj, batch)
        }
        single => accept.take(Location::Path("$".into()), Ok(single), batch),
    }
}

/// A whole Mode 1 request (S8.1.3): persona, perspectives, items.
fn read_request(
    accept: &mut Accept<'_>,
    obj: &serde_json::Map<String, Value>,
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    let whole = Location::Path("$".into());
    if let Some(p) = obj.get("persona") {
        accept.take(Location::Path("$.persona".into()), Ok(p.clone()), batch)?;
    }
    match obj.get("perspectives") {
        None | Some(Value::Null) => {}
        Some(Value::Array(ps)) => {
            for (i, p) in ps.iter().enumerate() {
                let at = Location::Path(format!("$.perspectives[{i}]"));
                accept.take(at, Ok(p.clone()), batch)?;
            }
        }
        Some(other) => {
            let message = format!("must be an array, found {}", fields::kind(other));
            return Err(ImportError::Invalid(accept.error(
                &whole,
                "perspectives",
                message,
            )));
        }
    }
    match obj.get("items") {
        Some(Value::Array(items)) => {
            for (i, v) in items.iter().enumerate() {
                let at = Location::Path(format!("$.items[{i}]"));
                accept.take(at, Ok(v.clone()), batch)?;
            }
            Ok(())
        }
        other => {
            let message = format!(
                "must be an array, found {}",
                other.map(fields::kind).unwrap_or("nothing")
            );
            Err(ImportError::Invalid(accept.error(&whole, "items", message)))
        }
    }
}

/// A file starting with `{` whose first line is a complete JSON value is JSONL.
fn looks_like_jsonl(bytes: &[u8]) -> bool {
    let first_line = bytes
        .split(|b| *b == b'\n')
        .find(|l| !l.iter().all(u8::is_ascii_whitespace));
    first_line.is_some_and(|l| serde_json::from_slice::<Value>(l).is_ok())
        && bytes.iter().filter(|b| **b == b'\n').count() > 0
}

/// Takes one file's parsed values into the batch, in order.
pub(super) struct Accept<'a> {
    path: &'a Path,
    who: &'a str,
    skip_invalid: bool,
    /// Which of the import's files this is.
    file: u32,
    /// `(kind, id)` of every persona, perspective and label of this file so
    /// far (items are in the batch's `item_origins`).
    seen: HashSet<(u8, String)>,
    /// Index of the next value in the file (rubric skips are reported by it).
    index: usize,
    /// For a CSV file: which column each record field came from (a field
    /// path prefix and the column's header), so an error names the column.
    pub(super) columns: Vec<(String, String)>,
    /// For another tool's log (Inspect, promptfoo): `--map`'s (field, path)
    /// pairs, a path naming where in a sample or test the field is
    /// (`id=metadata.ticket`).
    pub(super) log_map: Vec<(String, String)>,
}

impl<'a> Accept<'a> {
    pub(super) fn new(
        path: &'a Path,
        who: &'a str,
        skip_invalid: bool,
        batch: &mut Batch<'_>,
    ) -> Accept<'a> {
        Accept {
            file: batch.file_index(path),
            path,
            who,
            skip_invalid,
            seen: HashSet::new(),
            index: 0,
            columns: Vec::new(),
            log_map: Vec::new(),
        }
    }

    pub(super) fn error(&self, at: &Location, field: &str, message: String) -> RecordError {
        let at = match at {
            Location::Line(line) => match self.column_of(field) {
                Some(column) => Location::Cell {
                    line: *line,
                    column: column.to_string(),
                },
                None => at.clone(),
            },
            other => other.clone(),
        };
        RecordError {
            file: self.path.to_path_buf(),
            at,
            field: field.into(),
            message,
        }
    }

    /// Where `--map` says a log's `field` is in `obj` (a sample, a test):
    /// `None` when it is not mapped; an error naming the path when `obj`
    /// has nothing there or not a string or number.
    pub(super) fn mapped(
        &self,
        field: &str,
        obj: &serde_json::Map<String, Value>,
    ) -> Option<Result<Value, String>> {
        let (_, path) = self.log_map.iter().find(|(f, _)| f == field)?;
        let mut keys = path.split('.');
        let first = keys.next().and_then(|k| obj.get(k));
        let found = keys.fold(first, |v, k| v.and_then(|v| v.get(k)));
        Some(match found {
            Some(Value::String(s)) if !s.trim().is_empty() => Ok(Value::String(s.clone())),
            Some(Value::Number(n)) => Ok(Value::String(n.to_string())),
            _ => Err(format!(
                "--map {field}={path}: nothing there (a string or number is needed)"
            )),
        })
    }

    /// The CSV column a record field came from, if this file is a CSV.
    fn column_of(&self, field: &str) -> Option<&str> {
        self.columns
            .iter()
            .filter(|(prefix, _)| {
                field == prefix
                    || field.starts_with(&format!("{prefix}."))
                    || field.starts_with(&format!("{prefix}["))
            })
            .map(|(_, c)| c.as_str())
            .next()
    }

    /// Keep the value at `at` (or its error, under `--skip-invalid`).
    pub(super) fn take(
        &mut self,
        at: Location,
        v: Result<Value, RecordError>,
        batch: &mut Batch<'_>,
    ) -> Result<(), ImportError> {
        let this_index = self.index;
        self.index += 1;
        // Invalid rubric examples are skipped with their index and reason, as the
        // rubric harness specifies, whatever --skip-invalid says.
        if let Ok(Value::Object(o)) = &v
            && !o.contains_key("classifications")
            && (o.contains_key("ticket") || o.contains_key("response"))
            && let Err(e) = records::rubric_example(o)
        {
            batch
                .rubric_skips
                .push((self.path.display().to_string(), this_index, e.message));
            return Ok(());
        }
        // People's answers exported by Label Studio or Argilla: labels.
        if let Ok(Value::Object(o)) = &v {
            if super::label_studio::is_task(o) {
                return super::label_studio::read_task(self, &at, o, batch);
            }
            if super::argilla::is_record(o) {
                return super::argilla::read_record(self, &at, o, batch);
            }
        }
        // Verdict rows (jury's export, another tool's) wait for the end of
        // the import; failure and mark rows are not imported.
        if let Ok(Value::Object(o)) = &v {
            match super::verdicts::row_kind(o) {
                super::verdicts::RowKind::Verdict => {
                    return self.take_verdict(at, o, batch);
                }
                super::verdicts::RowKind::LeftOut => {
                    batch.verdict_import.left_out += 1;
                    return Ok(());
                }
                super::verdicts::RowKind::Other => {}
            }
        }
        // Whether a label record says it was sampled (read before the
        // record is converted; it matters only for a label).
        let sample = match &v {
            Ok(Value::Object(o)) => Some(super::sample_fields::label_sampling(o)),
            _ => None,
        };
        match v.and_then(|v| self.checked(&at, &v, batch)) {
            Ok(Record::Item(i)) => {
                batch
                    .item_origins
                    .entry(i.id.clone())
                    .or_insert_with(|| (self.file, at));
                batch.put_item(i)?;
            }
            Ok(Record::Persona(p)) => batch.put_persona(p)?,
            Ok(Record::Perspective(p)) => batch.put_perspective(p)?,
            Ok(Record::Label(l)) => match sample {
                Some(Err(e)) => {
                    let e = self.error(&at, &e.field, e.message);
                    if !self.skip_invalid {
                        return Err(ImportError::Invalid(e));
                    }
                    batch.skipped.push(e);
                }
                sample => {
                    if let Some(Ok(Some(how))) = sample {
                        let who = (l.key.clone(), l.persona_id.clone(), l.who.clone());
                        batch.label_samples.insert(who, how);
                    }
                    batch.labels.push(l);
                    batch.label_origins.push((self.path.to_path_buf(), at));
                }
            },
            Err(e) if self.skip_invalid => batch.skipped.push(e),
            Err(e) => return Err(ImportError::Invalid(e)),
        }
        Ok(())
    }

    /// An invalid record: the import's error, or skipped and reported
    /// under `--skip-invalid`.
    pub(super) fn refuse(&self, e: RecordError, batch: &mut Batch<'_>) -> Result<(), ImportError> {
        if !self.skip_invalid {
            return Err(ImportError::Invalid(e));
        }
        batch.skipped.push(e);
        Ok(())
    }

    /// A verdict row, kept for the end of the import (or its error).
    pub(super) fn take_verdict(
        &mut self,
        at: Location,
        o: &serde_json::Map<String, Value>,
        batch: &mut Batch<'_>,
    ) -> Result<(), ImportError> {
        match super::verdicts::verdict(o) {
            Ok(v) => batch.verdicts.push(super::verdicts::Pending {
                v,
                file: self.path.to_path_buf(),
                at,
            }),
            Err(e) => {
                let e = self.error(&at, &e.field, e.message);
                if !self.skip_invalid {
                    return Err(ImportError::Invalid(e));
                }
                batch.skipped.push(e);
            }
        }
        Ok(())
    }

    /// The record in `v`, unless it is invalid, an item another file of the
    /// import already has, or an id this file already had.
    fn checked(
        &mut self,
        at: &Location,
        v: &Value,
        batch: &Batch<'_>,
    ) -> Result<Record, RecordError> {
        let r = record(v, self.who).map_err(|e| self.error(at, &e.field, e.message))?;
        // The same item in two files of one import: which one is meant?
        // (The import's one table of item ids also finds an item twice in
        // this file, without a second copy of every id per file.)
        let tag = match &r {
            Record::Item(i) => match batch.item_origins.get(&i.id) {
                Some((file, first)) if *file != self.file => {
                    let message = format!(
                        "item '{}' is also in {}: {first}; an id may appear in one file only",
                        crate::sanitize::one_line(&i.id, 80),
                        batch.files[*file as usize].display()
                    );
                    return Err(self.error(at, "id", message));
                }
                Some(_) => None,
                None => return Ok(r),
            },
            Record::Persona(_) => Some(1),
            Record::Perspective(_) => Some(2),
            Record::Label(_) => Some(3),
        };
        if tag.is_none_or(|tag| !self.seen.insert((tag, r.id()))) {
            let message = format!(
                "duplicate id '{}' in this file",
                crate::sanitize::one_line(&r.id(), 80)
            );
            return Err(self.error(at, "id", message));
        }
        Ok(r)
    }
}
