use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the store at {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error(
        "the store file {path} is empty (0 bytes): it is not a jury store, and jury will not treat it as a new one \
         (a store that was truncated looks like this). If it held data, restore it from a copy; \
         to start a new workspace, delete the empty file or pass a path that does not exist (--db)"
    )]
    EmptyFile { path: PathBuf },
    #[error(
        "{path} is {kind}, not a jury store: a store is a regular file. Pass the path of a store, or a path that \
         does not exist yet for a new one (--db)"
    )]
    NotAFile { path: PathBuf, kind: &'static str },
    #[error(
        "{path} does not exist but {path}-wal does and holds data: a new store would replay another database's log. \
         Restore the store file from a copy, or move the -wal away to start a new workspace"
    )]
    OrphanWal { path: PathBuf },
    #[error("cannot create the store at {path}: {message}")]
    Create { path: PathBuf, message: String },
    #[error(
        "the store at {path} has schema version {found}, newer than this jury understands ({supported}); upgrade jury"
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },
    #[error(
        "the database is busy: another process holds the write lock (waited {waited_ms} ms); nothing was saved, try again"
    )]
    Busy { waited_ms: u64 },
    #[error("the database is read-only ({0}); nothing was saved")]
    ReadOnly(String),
    #[error("the disk is full ({0}); nothing was saved")]
    Full(String),
    #[error(
        "the database file is damaged ({0}); refusing to write. Nothing was changed: keep the file and its -wal and -shm \
         files next to it as they are, run `jury doctor` for details, and restore from a copy (or recover what is readable \
         with `sqlite3 <store> .recover`)"
    )]
    Corrupt(String),
    #[error("bad data in the store: {0}")]
    Data(String),
    #[error(
        "this workspace already has a held-out split (holdout {holdout}, seed {seed}, made {made}); it stays fixed so \
         held-out figures stay honest. `jury split --replace` makes a new one (few-shot sets built from the old \
         train side may then hold test items)"
    )]
    SplitExists {
        holdout: f64,
        seed: i64,
        made: String,
    },
    /// An undo found the label changed since the change it would revert.
    #[error("{}", label_changed(current.as_deref()))]
    LabelChanged {
        current: Option<Box<crate::domain::Label>>,
    },
    #[error("database error: {0}")]
    Sql(rusqlite::Error),
    /// PostgreSQL's message (never the URL's password: the location is
    /// shown through `location::display_url`).
    #[error("PostgreSQL: {0}")]
    Postgres(String),
}

impl From<rusqlite::Error> for StoreError {
    fn from(e: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode as C;
        if let rusqlite::Error::SqliteFailure(f, msg) = &e {
            let detail = msg.clone().unwrap_or_else(|| f.to_string());
            return match f.code {
                C::DatabaseBusy | C::DatabaseLocked => StoreError::Busy { waited_ms: 0 },
                C::ReadOnly => StoreError::ReadOnly(detail),
                C::DiskFull => StoreError::Full(detail),
                // SQLite reports a write that found no space (growing the
                // -shm or -wal, a sync) as an I/O error; the errno it left
                // behind tells a full disk from a failing one.
                C::SystemIoFailure if no_space_left() => {
                    StoreError::Full(format!("{detail}: no space left on device"))
                }
                C::DatabaseCorrupt | C::NotADatabase => StoreError::Corrupt(detail),
                _ => StoreError::Sql(e),
            };
        }
        StoreError::Sql(e)
    }
}

/// "not undone: the label changed since …", saying what it is now.
fn label_changed(current: Option<&crate::domain::Label>) -> String {
    match current {
        None => "not undone: the label was removed since (by another process); nothing was changed"
            .into(),
        Some(l) => {
            let mut s = format!(
                "not undone: the label changed since (now {} by {}, {})",
                l.value.as_text(),
                l.who,
                l.created_at
            );
            if !l.note.is_empty() {
                s.push_str(&format!(", note \"{}\"", l.note));
            }
            s.push_str("); nothing was changed");
            s
        }
    }
}

/// Did the last system call of this thread fail for want of space (or
/// quota)? Read right after SQLite returned, before anything else runs.
fn no_space_left() -> bool {
    matches!(
        std::io::Error::last_os_error().raw_os_error(),
        Some(libc::ENOSPC) | Some(libc::EDQUOT)
    )
}

pub type Result<T> = std::result::Result<T, StoreError>;

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn io_error() -> rusqlite::Error {
        rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_IOERR_WRITE),
            Some("disk I/O error".into()),
        )
    }

    /// The errno SQLite's failed write left tells a full disk from a
    /// failing one.
    #[test]
    fn an_io_error_for_want_of_space_is_a_full_disk() {
        // SAFETY: this thread's errno, set as a failed write(2) would.
        unsafe { *libc::__errno_location() = libc::ENOSPC };
        let e = StoreError::from(io_error());
        assert!(matches!(e, StoreError::Full(_)), "{e:?}");
        assert!(e.to_string().contains("disk is full"), "{e}");
        unsafe { *libc::__errno_location() = libc::EIO };
        assert!(matches!(StoreError::from(io_error()), StoreError::Sql(_)));
    }
}
