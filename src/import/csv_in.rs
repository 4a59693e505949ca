//! CSV files (RFC 4180: quoted fields, embedded commas, newlines and quotes,
//! a BOM, CRLF): a spreadsheet of items mapped by `--map` or by a guess from
//! the headers, or jury's own `export --format csv` (its item and label rows).
//! Each row becomes the JSON record the other formats give, so it is checked
//! by the same rules; errors name the line (the header is line 1) and column.

use super::csv_map::{self, CsvMap, Description, Resolved};
use super::parse::Accept;
use super::{Batch, ImportError, Location, RecordError};
use serde_json::{Map, Value, json};
use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::Path;

/// The most columns a CSV may have. Reading is linear in the cells, but an
/// item with thousands of classifications is not a spreadsheet of items
/// anyone meant; measured times are in docs/reliability.md.
pub const MAX_COLUMNS: usize = 10_000;

/// One record as read: the line it starts on and its cells.
struct Row<'r> {
    line: usize,
    cells: &'r csv::StringRecord,
}

/// A problem with the whole file: (line, column, what).
type ReadError = (usize, Option<String>, String);

/// Reads a CSV file a record at a time. Before the records, one byte pass
/// (`scan`) finds an unclosed quote and invalid UTF-8 with their line. Then
/// a spreadsheet is read twice: first to check every record and collect the
/// values each classification column holds (they are its available values),
/// then to write the items; jury's own export once. Memory stays flat
/// however many rows the file has.
pub(super) fn read_csv(
    path: &Path,
    map: Option<&CsvMap>,
    skip_invalid: bool,
    who: &str,
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    let invalid = |(line, column, message): ReadError| {
        ImportError::File(RecordError {
            file: path.to_path_buf(),
            at: match column {
                Some(c) => Location::Cell { line, column: c },
                None => Location::Line(line),
            },
            field: String::new(),
            message,
        })
    };
    let cannot_read = |e: std::io::Error| ImportError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let unclosed = scan(path).map_err(cannot_read)?.map_err(invalid)?;
    let mut rows = Records::open(path).map_err(cannot_read)?;
    let headers = rows.headers(unclosed).map_err(invalid)?;
    let mut accept = Accept::new(path, who, skip_invalid, batch);
    if is_jury_export(&headers) {
        return read_export(&mut accept, &headers, rows, batch).map_err(|e| e.into_import(invalid));
    }
    let resolved = csv_map::resolve(&headers, map).map_err(|m| invalid((1, None, m)))?;
    let classes = resolved.classifications();
    if classes.is_empty() {
        return Err(invalid((
            1,
            None,
            format!(
                "no classification column: an item needs one; map it with --map classification:NAME=COLUMN (columns: {})",
                headers.join(", ")
            ),
        )));
    }
    if resolved.column("id").is_none() {
        return Err(invalid((
            1,
            None,
            format!(
                "no id column: map it with --map id=COLUMN (columns: {})",
                headers.join(", ")
            ),
        )));
    }
    // First pass: every record well-formed, and each classification's
    // values: those `--map values:` gave, else every value its column holds
    // (a spreadsheet's `not` is a value like `urgent`; blank is no choice).
    // Each classification's given values and description are looked up
    // once, not per row and cell (that was quadratic in the columns), and
    // the values seen are a set beside the list (quadratic in distinct values).
    let given: Vec<Option<&[String]>> = classes
        .iter()
        .map(|(name, _)| resolved.values_of(name))
        .collect();
    let mut available: Vec<Vec<String>> = given
        .iter()
        .map(|g| g.unwrap_or_default().to_vec())
        .collect();
    let mut seen: Vec<HashSet<String>> = vec![HashSet::new(); classes.len()];
    while let Some(row) = rows.next(headers.len()).map_err(invalid)? {
        for (k, (_, c)) in classes.iter().enumerate() {
            let v = row.cells[*c].trim();
            if given[k].is_none() && !v.is_empty() && !seen[k].contains(v) {
                seen[k].insert(v.to_string());
                available[k].push(v.to_string());
            }
        }
    }
    let names: HashSet<&str> = classes.iter().map(|(name, _)| name.as_ref()).collect();
    let stored = batch.tx.classification_definitions(&names)?;
    let mut undescribed = Vec::new();
    for ((name, _), values) in classes.iter().zip(&available) {
        let earlier = stored
            .get(name.as_ref() as &str)
            .map_or(&[][..], Vec::as_slice);
        if check_definition(
            path,
            name,
            resolved.description(name),
            values,
            earlier,
            batch,
        )? {
            undescribed.push(crate::sanitize::one_line(name, 80));
        }
    }
    if !undescribed.is_empty() {
        let file = crate::sanitize::one_line(&path.display().to_string(), 300);
        batch.warnings.push(no_description(&file, &undescribed));
    }
    drop(seen);
    let classes: Vec<Class<'_>> = classes
        .iter()
        .zip(&given)
        .map(|((name, c), g)| Class {
            name,
            column: *c,
            given: g.map(|v| (v, v.iter().map(String::as_str).collect())),
            description: resolved.description(name),
        })
        .collect();
    batch.csv_mappings.push((
        path.to_path_buf(),
        csv_map::note(&headers, &resolved, &available),
    ));
    accept.columns = columns_of(&headers, &resolved);
    let mut rows = Records::open(path).map_err(cannot_read)?;
    rows.headers(None).map_err(invalid)?;
    while let Some(row) = rows.next(headers.len()).map_err(invalid)? {
        let record = outside_given_values(&row, &headers, &classes)
            .map(|(column, field, message)| RecordError {
                file: path.to_path_buf(),
                at: Location::Cell {
                    line: row.line,
                    column,
                },
                field,
                message,
            })
            .map_or_else(
                || Ok(item_record(&row, &resolved, &classes, &available)),
                Err,
            );
        accept.take(Location::Line(row.line), record, batch)?;
    }
    Ok(())
}

/// One classification column, what `--map` said of it looked up once.
struct Class<'r> {
    name: &'r str,
    column: usize,
    /// The values `--map values:` gave, in order and as a set.
    given: Option<(&'r [String], HashSet<&'r str>)>,
    description: Option<&'r Description>,
}

/// A classification this file defines: warned when it has no description
/// (the judge is asked about an id alone); refused, unless `--replace`,
/// when an earlier import defined the same id with another description or
/// another set of values — its labels and verdicts would be pooled with
/// this one's as if they answered the same question.
fn check_definition(
    path: &Path,
    name: &str,
    description: Option<&Description>,
    values: &[String],
    earlier: &[(String, Vec<String>)],
    batch: &Batch<'_>,
) -> Result<bool, ImportError> {
    let shown = crate::sanitize::one_line(name, 80);
    let text = match description {
        Some(Description::Text(t)) => Some(t.trim()),
        // Read per row: compared by its values only.
        Some(Description::Column(_)) => None,
        None => Some(""),
    };
    let undescribed = text == Some("");
    if batch.replace {
        return Ok(undescribed);
    }
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        v.sort();
        v
    };
    let mine = sorted(values);
    for (stored_text, stored_values) in earlier {
        let other_text = text.is_some_and(|t| t != stored_text.trim());
        let other_values = sorted(stored_values) != mine;
        if other_text || other_values {
            return Err(ImportError::File(RecordError {
                file: path.to_path_buf(),
                at: Location::Line(1),
                field: format!("classification:{shown}"),
                message: redefined(
                    &crate::sanitize::one_line(stored_text, 120),
                    &stored_values.join("|"),
                    text.unwrap_or("(per row)"),
                    &values.join("|"),
                ),
            }));
        }
    }
    Ok(undescribed)
}

/// One warning for every classification of a file without a description
/// (a wide sheet has thousands: their names are cut after a few).
fn no_description(file: &str, names: &[String]) -> String {
    const SHOWN: usize = 5;
    let listed = names[..names.len().min(SHOWN)].join(", ");
    let more = match names.len().saturating_sub(SHOWN) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    let (what, example) = match names {
        [one] => (format!("classification {one} has"), one.as_str()),
        _ => (
            format!("{} classifications ({listed}{more}) have", names.len()),
            "ID",
        ),
    };
    format!(
        "{file}: {what} no description: the judge is asked about the id alone; give one with --map description:{example}=COLUMN or =TEXT"
    )
}

fn redefined(was_text: &str, was_values: &str, now_text: &str, now_values: &str) -> String {
    format!(
        "an earlier import defined this classification as \"{was_text}\" with values {was_values}; this file as \"{now_text}\" with values {now_values}: their labels and verdicts would be pooled as one question. Use another id, the same description and values, or --replace to redefine it"
    )
}

/// The first cell holding a value its classification's `--map values:`
/// list does not have: (column, record field, why).
fn outside_given_values(
    row: &Row<'_>,
    headers: &[String],
    classes: &[Class<'_>],
) -> Option<(String, String, String)> {
    classes.iter().enumerate().find_map(|(i, class)| {
        let (list, given) = class.given.as_ref()?;
        let v = row.cells[class.column].trim();
        (!v.is_empty() && !given.contains(v)).then(|| {
            (
                headers[class.column].clone(),
                format!("classifications[{i}].selected"),
                format!(
                    "'{}' is not one of the values --map values:{} gives ({})",
                    crate::sanitize::one_line(v, 60),
                    class.name,
                    list.join("|")
                ),
            )
        })
    })
}

/// The csv reader over a file, with the record it reads into reused.
struct Records {
    rdr: csv::Reader<BufReader<File>>,
    record: csv::StringRecord,
}

impl Records {
    fn open(path: &Path) -> std::io::Result<Records> {
        let mut r = BufReader::with_capacity(1 << 16, crate::readfile::open(path)?);
        super::parse::skip_bom(&mut r)?;
        let rdr = ::csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(r);
        Ok(Records {
            rdr,
            record: csv::StringRecord::new(),
        })
    }

    /// The header row (trimmed), each header once. `unclosed` is where a
    /// quoted cell opens that is never closed (the csv reader would read
    /// the rest of the file into that one cell): named by its column.
    fn headers(&mut self, unclosed: Option<(usize, usize)>) -> Result<Vec<String>, ReadError> {
        let headers: Vec<String> = match self.rdr.read_record(&mut self.record) {
            Ok(false) => return Err((1, None, "is empty: a CSV needs a header row".into())),
            Err(e) => return Err((1, None, format!("cannot read the header: {}", utf8_or(&e)))),
            Ok(true) => self.record.iter().map(|c| c.trim().to_string()).collect(),
        };
        if headers.len() > MAX_COLUMNS {
            return Err((
                1,
                None,
                format!(
                    "has {} columns; jury reads at most {MAX_COLUMNS} (an item's fields and its classifications): leave out the columns that are not needed",
                    headers.len()
                ),
            ));
        }
        // Two columns under one header: a field mapped or guessed by that
        // name would silently take the first, so neither is taken. Each
        // header is looked up once in a map of those before it (comparing
        // every pair was quadratic: 100 000 columns ran for minutes).
        let mut seen: HashMap<String, usize> = HashMap::with_capacity(headers.len());
        for (j, h) in headers.iter().enumerate().filter(|(_, h)| !h.is_empty()) {
            if let Some(i) = seen.insert(h.to_ascii_lowercase(), j) {
                return Err((
                    1,
                    None,
                    format!(
                        "columns {} and {} are both headed '{}': rename one so each column says what it holds",
                        i + 1,
                        j + 1,
                        crate::sanitize::one_line(&headers[i], 80)
                    ),
                ));
            }
        }
        if let Some((line, field)) = unclosed {
            let column = headers.get(field).cloned();
            return Err((
                line,
                column,
                "unbalanced quote: the quoted cell that starts here is never closed".into(),
            ));
        }
        Ok(headers)
    }

    /// The next record that is not blank, with as many cells as the header.
    fn next(&mut self, width: usize) -> Result<Option<Row<'_>>, ReadError> {
        loop {
            match self.rdr.read_record(&mut self.record) {
                Ok(false) => return Ok(None),
                Err(e) => {
                    let line = e.position().map(|p| p.line() as usize).unwrap_or(0);
                    return Err((
                        line,
                        None,
                        format!("cannot read this record: {}", utf8_or(&e)),
                    ));
                }
                Ok(true) => {}
            }
            let line = self
                .record
                .position()
                .map(|p| p.line() as usize)
                .unwrap_or(0);
            if self.record.iter().all(|c| c.trim().is_empty()) {
                continue;
            }
            if self.record.len() != width {
                return Err((
                    line,
                    None,
                    format!(
                        "has {} cells, the header has {width} (a cell holding a comma must be quoted)",
                        self.record.len(),
                    ),
                ));
            }
            return Ok(Some(Row {
                line,
                cells: &self.record,
            }));
        }
    }
}

/// A csv error in words: invalid UTF-8 said as such.
fn utf8_or(e: &csv::Error) -> String {
    match e.kind() {
        csv::ErrorKind::Utf8 { .. } => "invalid UTF-8".into(),
        _ => e.to_string(),
    }
}

/// One pass over the bytes before the csv reader reads them: the first line
/// that is not UTF-8 (an error), and where a quoted cell opens that is
/// never closed, as (line, cell index). Only ASCII bytes steer it, so it
/// reads UTF-8 byte by byte.
fn scan(path: &Path) -> std::io::Result<Result<Option<(usize, usize)>, ReadError>> {
    let mut r = BufReader::with_capacity(1 << 16, crate::readfile::open(path)?);
    super::parse::skip_bom(&mut r)?;
    let (mut line, mut field, mut at_start) = (1usize, 0usize, true);
    let mut open: Option<(usize, usize)> = None;
    let mut quote_pending = false;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if r.read_until(b'\n', &mut buf)? == 0 {
            // A quote that was the file's last byte closed its cell.
            return Ok(Ok(open.filter(|_| !quote_pending)));
        }
        if std::str::from_utf8(&buf).is_err() {
            return Ok(Err((line, None, "invalid UTF-8".into())));
        }
        for &b in &buf {
            if open.is_some() {
                // `""` inside a quoted cell is a quote, not its end.
                if quote_pending {
                    quote_pending = false;
                    if b == b'"' {
                        continue;
                    }
                    open = None;
                } else {
                    match b {
                        b'"' => quote_pending = true,
                        b'\n' => line += 1,
                        _ => {}
                    }
                    continue;
                }
            }
            match b {
                b'"' if at_start => open = Some((line, field)),
                b',' => {
                    field += 1;
                    at_start = true;
                    continue;
                }
                b'\n' => {
                    line += 1;
                    field = 0;
                    at_start = true;
                    continue;
                }
                b'\r' => continue,
                _ => {}
            }
            at_start = false;
        }
    }
}

/// Each mapped field's record path and its column, for errors.
fn columns_of(headers: &[String], r: &Resolved) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut class_index = 0;
    for (field, c, _) in &r.fields {
        let h = headers[*c].clone();
        if field.starts_with(csv_map::CLASSIFICATION) {
            out.push((format!("classifications[{class_index}]"), h));
            class_index += 1;
            continue;
        }
        let path = match field.as_str() {
            "source_type" => "source.type",
            "source_originator" => "source.originator",
            "source_channel" => "source.channel",
            other => other,
        };
        out.push((path.to_string(), h.clone()));
        // An item with neither title nor text is reported on `summary`.
        if field == "text" {
            out.push(("summary".into(), h));
        }
    }
    out
}

/// One spreadsheet row as an item record.
fn item_record(
    row: &Row<'_>,
    r: &Resolved,
    classes: &[Class<'_>],
    available: &[Vec<String>],
) -> Value {
    let cell = |field: &str| {
        r.column(field)
            .map(|c| row.cells[c].trim().to_string())
            .filter(|s| !s.is_empty())
    };
    let mut obj = Map::new();
    obj.insert("id".into(), json!(cell("id").unwrap_or_default()));
    for f in ["title", "text", "sent", "persona"] {
        if let Some(v) = cell(f) {
            obj.insert(f.into(), json!(v));
        }
    }
    if let Some(t) = cell("tags") {
        obj.insert("tags".into(), tags(&t));
    }
    let source: Map<String, Value> = [
        ("type", "source_type"),
        ("originator", "source_originator"),
        ("channel", "source_channel"),
    ]
    .iter()
    .filter_map(|(k, f)| cell(f).map(|v| (k.to_string(), json!(v))))
    .collect();
    if !source.is_empty() {
        obj.insert("source".into(), Value::Object(source));
    }
    let list: Vec<Value> = classes
        .iter()
        .zip(available)
        .map(|(class, avail)| {
            let (name, v) = (class.name, row.cells[class.column].trim());
            let description = match class.description {
                Some(Description::Column(d)) => row.cells[*d].trim(),
                Some(Description::Text(t)) => t.as_str(),
                None => "",
            };
            json!({"name": name, "description": description, "available": avail,
                   "selected": (!v.is_empty()).then_some(v)})
        })
        .collect();
    obj.insert("classifications".into(), Value::Array(list));
    Value::Object(obj)
}

/// A tags cell: a JSON array of strings, else names split at `,` or `;`.
fn tags(cell: &str) -> Value {
    if cell.starts_with('[')
        && let Ok(v @ Value::Array(_)) = serde_json::from_str::<Value>(cell)
    {
        return v;
    }
    let list: Vec<&str> = cell
        .split([',', ';'])
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    json!(list)
}

/// A file `jury export --format csv` wrote: its `kind` and `item_id` columns.
fn is_jury_export(headers: &[String]) -> bool {
    let has = |n: &str| headers.iter().any(|h| h == n);
    // A CSV of verdicts from another tool has the same columns, with
    // `judge` naming the source in place of `kind`.
    (has("kind") || has("judge")) && has("item_id") && has("classification_id") && has("persona_id")
}

/// Why reading jury's own export stopped: the file (a record that cannot be
/// read) or a record (the import's own error).
enum ExportError {
    File(ReadError),
    Import(ImportError),
}

impl ExportError {
    fn into_import(self, file: impl Fn(ReadError) -> ImportError) -> ImportError {
        match self {
            ExportError::File(e) => file(e),
            ExportError::Import(e) => e,
        }
    }
}

/// jury's own CSV export: item rows become items, label rows labels;
/// verdict and failure rows are what runs wrote and are not imported.
fn read_export(
    accept: &mut Accept<'_>,
    headers: &[String],
    mut rows: Records,
    batch: &mut Batch<'_>,
) -> Result<(), ExportError> {
    accept.columns = super::csv_export::COLUMN_OF_FIELD
        .iter()
        .filter(|(_, c)| headers.iter().any(|h| h == c))
        .map(|(f, c)| (f.to_string(), c.to_string()))
        .collect();
    let mut left_out = 0usize;
    let has_kind = headers.iter().any(|h| h == "kind");
    while let Some(row) = rows.next(headers.len()).map_err(ExportError::File)? {
        let cell = |name: &str| -> String {
            headers
                .iter()
                .position(|h| h == name)
                .map(|c| super::csv_export::cell_text(name, &row.cells[c]))
                .unwrap_or_default()
        };
        let at = Location::Line(row.line);
        // Without a `kind` column every row is a verdict (`judge` names its source).
        let kind = if has_kind {
            cell("kind")
        } else {
            "verdict".to_string()
        };
        let taken = match kind.as_str() {
            "item" => {
                let v = super::csv_export::item_from_cells(&cell)
                    .map_err(|(field, m)| accept.error(&at, field, m));
                accept.take(at, v, batch)
            }
            "label" => accept.take(at, Ok(super::csv_export::label_from_cells(&cell)), batch),
            // A verdict row: its cells under their column names (blank
            // cells left out), read as a JSON verdict row is.
            "verdict" => {
                let obj: serde_json::Map<String, serde_json::Value> = headers
                    .iter()
                    .filter(|h| !super::csv_export::JSON_COLUMNS.contains(&h.as_str()))
                    .map(|h| (h.clone(), cell(h)))
                    .filter(|(_, c)| !c.is_empty())
                    .map(|(h, c)| (h, serde_json::Value::String(c)))
                    .collect();
                accept.take_verdict(at, &obj, batch)
            }
            _ => {
                left_out += 1;
                Ok(())
            }
        };
        taken.map_err(ExportError::Import)?;
    }
    batch.csv_rows_left_out += left_out;
    Ok(())
}
