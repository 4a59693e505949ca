//! CSV files (RFC 4180: quoted fields, embedded commas, newlines and quotes,
//! a BOM, CRLF): a spreadsheet of items mapped by `--map` or by a guess from
//! the headers, or jury's own `export --format csv` (its item and label rows).
//! Each row becomes the JSON record the other formats give, so it is checked
//! by the same rules; errors name the line (the header is line 1) and column.

use super::csv_map::{self, CsvMap, Resolved};
use super::parse::Accept;
use super::{Batch, ImportError, Location, RecordError};
use serde_json::{Map, Value, json};
use std::path::Path;

/// One record as read: the line it starts on and its cells.
struct Row {
    line: usize,
    cells: Vec<String>,
}

pub(super) fn read_csv(
    path: &Path,
    bytes: &[u8],
    map: Option<&CsvMap>,
    skip_invalid: bool,
    who: &str,
    batch: &mut Batch,
) -> Result<(), ImportError> {
    let invalid = |line: usize, column: Option<&str>, message: String| {
        ImportError::File(RecordError {
            file: path.to_path_buf(),
            at: match column {
                Some(c) => Location::Cell {
                    line,
                    column: c.to_string(),
                },
                None => Location::Line(line),
            },
            field: String::new(),
            message,
        })
    };
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        invalid(line, None, "invalid UTF-8".into())
    })?;
    let (headers, rows) =
        records(text).map_err(|(line, col, m)| invalid(line, col.as_deref(), m))?;
    let mut accept = Accept::new(path, who, skip_invalid);
    if is_jury_export(&headers) {
        return read_export(&mut accept, &headers, rows, batch);
    }
    let resolved = csv_map::resolve(&headers, map).map_err(|m| invalid(1, None, m))?;
    let classes = resolved.classifications();
    if classes.is_empty() {
        return Err(invalid(
            1,
            None,
            format!(
                "no classification column: an item needs one; map it with --map classification:NAME=COLUMN (columns: {})",
                headers.join(", ")
            ),
        ));
    }
    if resolved.column("id").is_none() {
        return Err(invalid(
            1,
            None,
            format!(
                "no id column: map it with --map id=COLUMN (columns: {})",
                headers.join(", ")
            ),
        ));
    }
    batch
        .csv_mappings
        .push((path.to_path_buf(), csv_map::note(&headers, &resolved)));
    accept.columns = columns_of(&headers, &resolved);
    let available = available_values(&rows, &classes);
    for row in &rows {
        let record = item_record(row, &resolved, &classes, &available);
        accept.take(Location::Line(row.line), Ok(record), batch)?;
    }
    Ok(())
}

/// The header and the records, each with the line it starts on; a quote
/// that is never closed is named by the line and column it opens in (the
/// csv reader would read the rest of the file into that one cell).
type ReadError = (usize, Option<String>, String);
fn records(text: &str) -> Result<(Vec<String>, Vec<Row>), ReadError> {
    let unclosed = unclosed_quote(text);
    let mut rdr = ::csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(text.as_bytes());
    let mut all = rdr.records();
    let headers: Vec<String> = match all.next() {
        None => return Err((1, None, "is empty: a CSV needs a header row".into())),
        Some(Err(e)) => return Err((1, None, format!("cannot read the header: {e}"))),
        Some(Ok(h)) => h.iter().map(|c| c.trim().to_string()).collect(),
    };
    // Two columns under one header: a field mapped or guessed by that name
    // would silently take the first, so neither is taken.
    for (i, h) in headers.iter().enumerate().filter(|(_, h)| !h.is_empty()) {
        if let Some(j) = headers[i + 1..]
            .iter()
            .position(|o| o.eq_ignore_ascii_case(h))
        {
            return Err((
                1,
                None,
                format!(
                    "columns {} and {} are both headed '{}': rename one so each column says what it holds",
                    i + 1,
                    i + j + 2,
                    crate::sanitize::one_line(h, 80)
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
    let mut rows = Vec::new();
    for r in all {
        let r = r.map_err(|e| {
            let line = e.position().map(|p| p.line() as usize).unwrap_or(0);
            (line, None, format!("cannot read this record: {e}"))
        })?;
        let line = r.position().map(|p| p.line() as usize).unwrap_or(0);
        if r.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        if r.len() != headers.len() {
            return Err((
                line,
                None,
                format!(
                    "has {} cells, the header has {} (a cell holding a comma must be quoted)",
                    r.len(),
                    headers.len()
                ),
            ));
        }
        rows.push(Row {
            line,
            cells: r.iter().map(str::to_string).collect(),
        });
    }
    Ok((headers, rows))
}

/// Where a quoted cell opens that is never closed: (line, cell index).
fn unclosed_quote(text: &str) -> Option<(usize, usize)> {
    let (mut line, mut field, mut at_start) = (1usize, 0usize, true);
    let mut open: Option<(usize, usize)> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if open.is_some() {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                }
                '"' => open = None,
                '\n' => line += 1,
                _ => {}
            }
            continue;
        }
        match c {
            '"' if at_start => open = Some((line, field)),
            ',' => {
                field += 1;
                at_start = true;
                continue;
            }
            '\n' => {
                line += 1;
                field = 0;
                at_start = true;
                continue;
            }
            '\r' => continue,
            _ => {}
        }
        at_start = false;
    }
    open
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

/// A classification's values are those its column holds (first seen first),
/// "not relevant" spellings and empty cells aside.
fn available_values(rows: &[Row], classes: &[(String, usize)]) -> Vec<Vec<String>> {
    classes
        .iter()
        .map(|(_, c)| {
            let mut seen: Vec<String> = Vec::new();
            for row in rows {
                let v = row.cells[*c].trim();
                if !v.is_empty() && !super::is_not_relevant(v) && !seen.iter().any(|s| s == v) {
                    seen.push(v.to_string());
                }
            }
            seen
        })
        .collect()
}

/// One spreadsheet row as an item record.
fn item_record(
    row: &Row,
    r: &Resolved,
    classes: &[(String, usize)],
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
        .map(|((name, c), avail)| {
            let v = row.cells[*c].trim();
            json!({"name": name, "available": avail, "selected": (!v.is_empty()).then_some(v)})
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
    has("kind") && has("item_id") && has("classification_id") && has("persona_id")
}

/// jury's own CSV export: item rows become items, label rows labels;
/// verdict and failure rows are what runs wrote and are not imported.
fn read_export(
    accept: &mut Accept<'_>,
    headers: &[String],
    rows: Vec<Row>,
    batch: &mut Batch,
) -> Result<(), ImportError> {
    accept.columns = super::csv_export::COLUMN_OF_FIELD
        .iter()
        .filter(|(_, c)| headers.iter().any(|h| h == c))
        .map(|(f, c)| (f.to_string(), c.to_string()))
        .collect();
    let mut left_out = 0usize;
    for row in rows {
        let cell = |name: &str| -> String {
            headers
                .iter()
                .position(|h| h == name)
                .map(|c| super::csv_export::cell_text(name, &row.cells[c]))
                .unwrap_or_default()
        };
        let at = Location::Line(row.line);
        match cell("kind").as_str() {
            "item" => {
                let v = super::csv_export::item_from_cells(&cell)
                    .map_err(|(field, m)| accept.error(&at, field, m));
                accept.take(at, v, batch)?;
            }
            "label" => accept.take(at, Ok(super::csv_export::label_from_cells(&cell)), batch)?,
            _ => left_out += 1,
        }
    }
    batch.csv_rows_left_out += left_out;
    Ok(())
}
