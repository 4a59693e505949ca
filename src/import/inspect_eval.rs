//! Inspect AI's own log format, `.eval`: a zip archive holding
//! `header.json` (the eval: task, model...) and one `samples/ID_epoch_N.json`
//! per sample, each what a JSON log's `samples[]` holds. Read here into the
//! JSON log's shape and taken by [`super::inspect`], each place named by
//! the archive's entry (`samples/k-002_epoch_1.json: $.scores.NAME`).
//! Entries are deflated (older Inspect) or zstd-compressed (0.3.285).

use super::parse::Accept;
use super::{Batch, ImportError, Location};
use serde_json::{Map, Value};
use std::io::Read;
use std::path::Path;

/// An entry is at most this large once inflated: a sample is a few kB to
/// a few MB; a zip bomb would not stop at memory.
const MAX_ENTRY: u64 = 256 << 20;

pub(super) fn read_eval(
    path: &Path,
    accept: &mut Accept<'_>,
    batch: &mut Batch<'_>,
) -> Result<(), ImportError> {
    let cannot = |why: String| ImportError::Read {
        path: path.to_path_buf(),
        message: why,
    };
    let file = crate::readfile::open(path).map_err(|e| cannot(e.to_string()))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| {
        cannot(format!(
            "not an Inspect AI .eval log (a zip archive): {e}; `inspect log convert LOG --to json` writes one as JSON"
        ))
    })?;
    let mut names: Vec<String> = zip
        .file_names()
        .filter_map(Result::ok)
        .filter(|n| n.starts_with("samples/") && n.ends_with(".json"))
        .map(|n| n.into_owned())
        .collect();
    names.sort();
    let mut json = |name: &str| -> Result<Value, ImportError> {
        let bytes = inflate(&mut zip, name).map_err(|e| cannot(format!("{name}: {e}")))?;
        if bytes.len() as u64 > MAX_ENTRY {
            return Err(cannot(format!(
                "{name}: larger than {} MB inflated",
                MAX_ENTRY >> 20
            )));
        }
        serde_json::from_slice(&bytes).map_err(|e| {
            let at = Location::Path(format!("{name}: line {}", e.line()));
            ImportError::Invalid(accept.error(&at, "", format!("invalid JSON: {e}")))
        })
    };
    let header = json("header.json")?;
    let mut log = Map::new();
    log.insert(
        "eval".into(),
        header.get("eval").cloned().unwrap_or(Value::Null),
    );
    let mut samples = Vec::with_capacity(names.len());
    for n in &names {
        samples.push(json(n)?);
    }
    let places: Vec<String> = names.iter().map(|n| format!("{n}: $")).collect();
    log.insert("samples".into(), Value::Array(samples));
    super::inspect::read_samples(accept, &log, Some(&places), batch)
}

/// An entry's bytes, inflated (deflate or stored through zip, zstd through
/// ruzstd), at most [`MAX_ENTRY`] + 1 of them.
fn inflate<R: Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    name: &str,
) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    let raw = zip
        .by_name_raw(name.as_bytes())
        .map_err(|e| e.to_string())?;
    if raw.compression() == zip::CompressionMethod::ZSTD {
        let mut packed = Vec::new();
        raw.take(MAX_ENTRY)
            .read_to_end(&mut packed)
            .map_err(|e| e.to_string())?;
        let decoder = ruzstd::decoding::StreamingDecoder::new(packed.as_slice())
            .map_err(|e| format!("zstd: {e}"))?;
        decoder
            .take(MAX_ENTRY + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("zstd: {e}"))?;
        return Ok(bytes);
    }
    drop(raw);
    zip.by_name(name)
        .map_err(|e| e.to_string())?
        .take(MAX_ENTRY + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}
