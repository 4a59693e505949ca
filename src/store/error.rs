use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the store at {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
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
        "the database file is damaged ({0}); refusing to write. Keep the -wal file next to it and restore from a copy"
    )]
    Corrupt(String),
    #[error("bad data in the store: {0}")]
    Data(String),
    #[error("database error: {0}")]
    Sql(rusqlite::Error),
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
                C::DatabaseCorrupt | C::NotADatabase => StoreError::Corrupt(detail),
                _ => StoreError::Sql(e),
            };
        }
        StoreError::Sql(e)
    }
}

pub type Result<T> = std::result::Result<T, StoreError>;
