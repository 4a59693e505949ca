//! Two guards in front of every write: a store opened read-only refuses with
//! the path and the cause, and a damaged file is found (one `quick_check` per
//! file per process) before the first write rather than after it: SQLite
//! happily appends to a file whose other pages are broken.

use super::{Result, Store, StoreError};
use rusqlite::config::DbConfig;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Files that passed their check in this process.
fn checked_files() -> &'static Mutex<HashSet<PathBuf>> {
    static CHECKED: OnceLock<Mutex<HashSet<PathBuf>>> = OnceLock::new();
    CHECKED.get_or_init(|| Mutex::new(HashSet::new()))
}

impl Store {
    /// Called before a write: refuses on a read-only or damaged store.
    pub(super) fn before_write(&mut self) -> Result<()> {
        if let Some(why) = &self.read_only {
            return Err(StoreError::ReadOnly(why.clone()));
        }
        if self.checked {
            return Ok(());
        }
        let key = std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
        let known = checked_files()
            .lock()
            .map(|set| set.contains(&key))
            .unwrap_or(false);
        if !known {
            let verdict = self.integrity_check();
            let problem = match verdict {
                Ok(s) if s == "ok" => None,
                Ok(s) => Some(StoreError::Corrupt(s)),
                Err(e) => Some(e),
            };
            if let Some(e) = problem {
                if matches!(e, StoreError::Corrupt(_)) {
                    // Closing would checkpoint the -wal into the damaged file
                    // and delete it: keep both as they are for a recovery.
                    if let Some(c) = self.conn.sqlite() {
                        let _ = c.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true);
                    }
                }
                return Err(e);
            }
            if let Ok(mut set) = checked_files().lock() {
                set.insert(key);
            }
        }
        self.checked = true;
        Ok(())
    }

    /// SQLite opens a file it may not write read-only without saying so:
    /// note it, so a write is refused with the path and the cause.
    pub(super) fn note_read_only(mut self) -> Store {
        let read_only = self
            .conn
            .sqlite()
            .is_some_and(|c| c.is_readonly(rusqlite::MAIN_DB).unwrap_or(false));
        if self.read_only.is_none() && read_only {
            let uri = self.path.to_str().is_some_and(|p| p.starts_with("file:"));
            let cause = if uri { None } else { write_cause(&self.path) }
                .unwrap_or_else(|| "opened read-only".into());
            self.read_only = Some(format!("{}: {cause}", self.path.display()));
        }
        self
    }

    /// True when this store was opened for reading only (writes are refused).
    pub fn is_read_only(&self) -> bool {
        self.read_only.is_some()
    }
}

/// Did opening fail because the file or its directory cannot be written?
pub(super) fn is_permission_problem(e: &StoreError) -> bool {
    use rusqlite::ErrorCode as C;
    match e {
        StoreError::ReadOnly(_) => true,
        StoreError::Open {
            source: rusqlite::Error::SqliteFailure(f, _),
            ..
        }
        | StoreError::Sql(rusqlite::Error::SqliteFailure(f, _)) => {
            matches!(f.code, C::ReadOnly | C::CannotOpen | C::PermissionDenied)
        }
        _ => false,
    }
}

/// Opens `path` for reading after a read-write open failed with `first`:
/// plainly read-only, else (when no -wal holds commits it would miss) as an
/// immutable file, which needs no -shm beside it.
pub(super) fn open_read_only(path: &Path, first: StoreError) -> Result<Store> {
    let cause = write_cause(path).unwrap_or_else(|| match &first {
        StoreError::Full(detail) => format!("the disk is full ({detail})"),
        other => other.to_string(),
    });
    let readable = |s: Store| -> Result<Store> {
        s.conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| {
                r.get::<_, i64>(0)
            })?;
        let found = s.schema_version()?;
        if found > super::schema::VERSION {
            return Err(StoreError::TooNew {
                path: path.to_path_buf(),
                found,
                supported: super::schema::VERSION,
            });
        }
        Ok(s)
    };
    let mut store = match Store::open_at(path, true).and_then(readable) {
        Ok(s) => s,
        Err(e) if super::create::wal_has_content(path) => {
            return Err(StoreError::ReadOnly(format!(
                "{}: {cause}; reading it failed too ({e})",
                path.display()
            )));
        }
        Err(_) => {
            let uri = PathBuf::from(format!("file:{}?immutable=1", uri_path(path)));
            match Store::open_at(&uri, true).and_then(readable) {
                Ok(s) => s,
                Err(e) => {
                    return Err(StoreError::ReadOnly(format!(
                        "{}: {cause}; reading it failed too ({e})",
                        path.display()
                    )));
                }
            }
        }
    };
    store.path = path.to_path_buf();
    store.read_only = Some(format!(
        "{}: {cause}; opened for reading only",
        path.display()
    ));
    Ok(store)
}

/// The path as a URI path: `%`, `?` and `#` would otherwise end or change it.
fn uri_path(path: &Path) -> String {
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = String::new();
    for c in abs.to_string_lossy().chars() {
        match c {
            '%' => out.push_str("%25"),
            '?' => out.push_str("%3f"),
            '#' => out.push_str("%23"),
            c => out.push(c),
        }
    }
    out
}

/// Why `path` cannot be written: its directory or the file itself.
pub(super) fn write_cause(path: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let denied = |p: &Path| -> Option<std::io::Error> {
            let c = std::ffi::CString::new(p.as_os_str().as_bytes()).ok()?;
            // SAFETY: access(2) reads a NUL-terminated path we own.
            let rc = unsafe { libc::access(c.as_ptr(), libc::W_OK) };
            (rc != 0).then(std::io::Error::last_os_error)
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        if let Some(e) = denied(&dir) {
            return Some(format!(
                "the directory {} is not writable ({e}); SQLite needs to create the -wal and -shm files there",
                dir.display()
            ));
        }
        if let Some(e) = denied(path) {
            return Some(format!("the file is not writable ({e})"));
        }
    }
    None
}
