//! The SQLite store (WAL). Every verdict, failure and label is committed the
//! moment it arrives, so a crash loses nothing already reported as saved.

mod error;
mod items;
mod labels;
mod runs;
mod schema;
mod verdicts;

pub use error::{Result, StoreError};
pub use items::UpsertCounts;
pub use labels::LabelRow;
pub use verdicts::VerdictFilter;

use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a writer waits for another process's lock before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// The platform data directory's `jury.db` (e.g. `~/.local/share/jury/jury.db`).
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "jury").map(|d| d.data_dir().join("jury.db"))
}

/// Timestamps are RFC 3339 UTC with milliseconds, so they sort as text.
pub fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Store {
    /// Opens (creating if needed) the store at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            // A missing directory is created; failure surfaces as an open error below.
            let _ = std::fs::create_dir_all(dir);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(path, flags).map_err(|source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        let mut store = Store {
            conn,
            path: path.to_path_buf(),
        };
        store.configure()?;
        store.migrate()?;
        Ok(store)
    }

    /// An in-memory store (tests and dry runs).
    pub fn open_in_memory() -> Result<Store> {
        let conn = Connection::open_in_memory()?;
        let mut store = Store {
            conn,
            path: PathBuf::from(":memory:"),
        };
        store.configure()?;
        store.migrate()?;
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn configure(&mut self) -> Result<()> {
        self.conn.busy_timeout(BUSY_TIMEOUT)?;
        // A damaged file shows itself on the first read; say so instead of writing.
        let mode: String = self
            .conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(StoreError::from)?;
        if mode != "wal" && self.path != Path::new(":memory:") {
            tracing_note(&format!("journal mode is {mode}, not wal"));
        }
        self.conn.execute_batch(
            "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY;",
        )?;
        Ok(())
    }

    fn migrate(&mut self) -> Result<()> {
        let found: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if found > schema::VERSION {
            return Err(StoreError::TooNew {
                path: self.path.clone(),
                found,
                supported: schema::VERSION,
            });
        }
        for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(found as usize) {
            let tx = self
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)?;
            tx.commit()?;
        }
        Ok(())
    }

    pub fn schema_version(&self) -> Result<i64> {
        Ok(self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))?)
    }

    /// `PRAGMA quick_check`: "ok" or the first problems found.
    pub fn integrity_check(&self) -> Result<String> {
        Ok(self
            .conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))?)
    }

    /// True when the store holds no items yet (a new workspace).
    pub fn is_empty(&self) -> Result<bool> {
        let n: i64 = self
            .conn
            .query_row("SELECT count(*) FROM items", [], |r| r.get(0))?;
        Ok(n == 0)
    }

    fn immediate(&mut self) -> Result<rusqlite::Transaction<'_>> {
        Ok(self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?)
    }
}

/// Diagnostics go to stderr only when asked for (JURY_DEBUG), never to the TUI.
fn tracing_note(msg: &str) {
    if std::env::var_os("JURY_DEBUG").is_some() {
        eprintln!("jury store: {msg}");
    }
}
