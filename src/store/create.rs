//! Making a new store: it is built beside its path and linked into place, so
//! a process killed while creating it leaves no empty or half-made file
//! behind that a later open would have to guess about.

use super::{Result, Store, StoreError};
use std::path::{Path, PathBuf};

/// `<path>-wal`: SQLite's write-ahead log next to the store.
pub(super) fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

/// Does a `-wal` next to `path` hold anything (commits not yet in the file)?
pub(super) fn wal_has_content(path: &Path) -> bool {
    std::fs::metadata(sibling(path, "-wal")).is_ok_and(|m| m.len() > 0)
}

/// Creates the store at `path`, which does not exist yet.
pub(super) fn create_new(path: &Path) -> Result<Store> {
    if wal_has_content(path) {
        // A -wal left by a store that is gone would be replayed into the new
        // file: it holds another database's pages.
        return Err(StoreError::OrphanWal {
            path: path.to_path_buf(),
        });
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // A missing directory is created; failure surfaces as an open error below.
    let _ = std::fs::create_dir_all(&dir);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "jury.db".into());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    // A store being made by a process killed with SIGKILL stays behind
    // under its scratch name: the next creation here removes it.
    super::files::remove_stale(&dir, &format!(".{name}.new-"));
    let tmp = dir.join(format!(".{name}.new-{}-{nanos}", std::process::id()));
    let built = Store::open_at(&tmp, false).map(drop);
    let placed = built.and_then(|()| {
        match std::fs::hard_link(&tmp, path) {
            Ok(()) => Ok(()),
            // Another process made it meanwhile: theirs is complete too, use it.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
            // A file system without hard links: rename, unless it appeared.
            Err(_) if !path.exists() => std::fs::rename(&tmp, path),
            Err(e) => Err(e),
        }
        .map_err(|e| StoreError::Create {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    });
    // Our own scratch files only (the store, once linked, has its own name).
    for f in [tmp.clone(), sibling(&tmp, "-wal"), sibling(&tmp, "-shm")] {
        let _ = std::fs::remove_file(f);
    }
    match placed {
        Ok(()) => Store::open_at(path, false),
        Err(StoreError::Open { source, .. }) => Err(match super::health::write_cause(path) {
            Some(cause) => StoreError::Create {
                path: path.to_path_buf(),
                message: cause,
            },
            None => StoreError::Open {
                path: path.to_path_buf(),
                source,
            },
        }),
        Err(e) => Err(e),
    }
}
