//! Which files a directory import reads, and in what order.

use super::ImportError;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Deepest directory level a directory import descends to (sample-data/ has
/// one level of protocol folders); links are followed to each real
/// directory once, so this only bounds a very deep tree.
const MAX_DEPTH: usize = 8;

/// The extension of `f` in lower case (`.JSONL` is `.jsonl`).
pub(super) fn extension(f: &Path) -> Option<String> {
    f.extension()
        .and_then(|x| x.to_str())
        .map(str::to_ascii_lowercase)
}

/// Every .json/.jsonl/.ndjson file (in any case) under `dir`, its
/// subdirectories included; every entry left out goes to `skipped` with why.
/// `seen` holds the real (canonical) directories and files already taken:
/// a link back into a folder (`ln -s . again`) or to a file already read is
/// named and skipped, so a loop of links is read once, not once per path.
pub(super) fn data_files_under(
    dir: &Path,
    out: &mut Vec<PathBuf>,
    skipped: &mut Vec<(PathBuf, String)>,
    seen: &mut HashSet<PathBuf>,
    depth: usize,
) -> Result<(), ImportError> {
    let entries = std::fs::read_dir(dir).map_err(|e| ImportError::Read {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    if let Ok(real) = dir.canonicalize() {
        seen.insert(real);
    }
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
            let real = f.canonicalize().unwrap_or_else(|_| f.clone());
            if seen.contains(&real) {
                skipped.push((f, "a link to a directory already read".into()));
            } else if depth < MAX_DEPTH {
                data_files_under(&f, out, skipped, seen, depth + 1)?;
            } else {
                skipped.push((f, format!("deeper than {MAX_DEPTH} levels")));
            }
        } else if !matches!(extension(&f).as_deref(), Some("json" | "jsonl" | "ndjson")) {
            skipped.push((f, "not a .json, .jsonl or .ndjson file".into()));
        } else if !f.is_file() {
            skipped.push((f, "not a regular file".into()));
        } else if !seen.insert(f.canonicalize().unwrap_or_else(|_| f.clone())) {
            skipped.push((f, "a link to a file already read".into()));
        } else {
            out.push(f);
        }
    }
    Ok(())
}

/// Personas and perspectives, then items, then other inputs (rubric examples,
/// conversations), then labels, so a directory import can check references in
/// one pass and the inbox items keep the first places in the list.
pub(super) fn import_order(f: &Path) -> (u8, PathBuf) {
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
