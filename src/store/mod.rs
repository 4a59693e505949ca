//! The SQLite store (WAL). Every verdict, failure and label is committed the
//! moment it arrives, so a crash loses nothing already reported as saved.

mod active_samples;
mod adjudications;
mod assignments;
mod batches;
mod cascade_runs;
mod changes;
mod claims;
mod clock;
mod copy;
mod create;
pub mod db;
mod error;
mod files;
mod health;
mod import_tx;
mod imported_runs;
mod items;
mod label_history;
mod labels;
mod leases;
mod legacy_record;
pub mod location;
mod marks;
mod runs;
mod samples;
mod schema;
mod schema_pg;
mod sessions;
mod splits;
mod team_roles;
#[cfg(any(test, feature = "testserver"))]
#[doc(hidden)]
pub mod testing;
mod verdicts;

pub use active_samples::ActiveDraw;
pub use adjudications::{AdjudicationEvent, AdjudicationKind};
pub use assignments::{AssignedWork, Assignment};
pub use batches::{Adoption, BatchJob, BatchRequestRow, BatchStatus};
pub use changes::{ChangeMarker, Changed, Tail};
pub use claims::Claimed;
pub use copy::{TABLES, TableCopy};
pub use error::{Result, StoreError};
pub use files::{UNSAVED_LABELS_SUFFIX, is_own_file, remove_temporaries, write_atomically};
pub use import_tx::ImportTx;
pub use imported_runs::{IMPORT_RECORD_VERSION, ImportOrigin, ImportRecord};
pub use items::{LabelCounts, UpsertCounts};
pub use label_history::{EventKind, LabelEvent, LabelUndo, Slot};
pub use labels::{LabelRow, UPSERT_LABEL};
pub use leases::Lease;
pub use marks::{MarkEvent, MarkEventKind, MarkSlot};
pub use runs::{
    HEARTBEAT_EVERY, HEARTBEAT_STALE_AFTER, INTERRUPTED_NOTE, RunOwner, RunningRun,
    TEST_HOST_NAME_ENV, TEST_STALE_AFTER_ENV, heartbeat_every, heartbeat_stale_after, host_name,
    pid_alive,
};
pub use samples::{SampleSeed, SampledKey, Selected};
pub use splits::{Split, SplitCounts};
pub use team_roles::ConnectedRole;
pub use verdicts::{VerdictFilter, VerdictValue};

use db::{Db, Dialect};
pub use location::Location;
use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The schema version this jury writes (SQLite `user_version`).
pub const SCHEMA_VERSION: i64 = schema::VERSION;

/// The migrations in order (tests build stores of older versions with them).
#[doc(hidden)]
pub fn migrations() -> &'static [&'static str] {
    schema::MIGRATIONS
}

/// How long a writer waits for another process's lock before giving up.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

pub struct Store {
    conn: Db,
    /// The file; for a PostgreSQL store, a local stand-in beside the
    /// default store (what files kept "beside the store", such as the
    /// unsaved labels, are named after).
    path: PathBuf,
    location: Location,
    /// How long a write waits for another connection's lock (see [`Store::set_busy_timeout`]).
    busy_timeout: Duration,
    /// Inside [`Store::in_one_transaction`]: writes join its transaction.
    grouped: bool,
    /// Why this store was opened read-only (it could not be opened for
    /// writing); every write is refused with this reason.
    read_only: Option<String>,
    /// The file passed its integrity check in this process (see `before_write`).
    checked: bool,
    /// Dropped after the connection: a test's throwaway database.
    _keep: Option<Box<dyn std::any::Any + Send>>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("location", &self.location)
            .finish()
    }
}

/// The platform data directory's `jury.db` (e.g. `~/.local/share/jury/jury.db`).
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "jury").map(|d| d.data_dir().join("jury.db"))
}

/// Timestamps are RFC 3339 UTC with milliseconds, so they sort as text.
pub fn now() -> String {
    timestamp(chrono::Utc::now())
}

/// `at` in the form of [`now`] (the workbench stamps labels with the time
/// its event loop read, so tests drive that time).
pub fn timestamp(at: chrono::DateTime<chrono::Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

impl Store {
    /// Opens the store at `path` and brings its schema up to date.
    ///
    /// Only a path that does not exist becomes a new store, and it appears
    /// complete or not at all (built beside it, then linked into place). An
    /// existing zero-length file is refused: it is what a truncated store
    /// looks like, and treating it as new would bury what it held. A store
    /// that cannot be opened for writing (read-only file or directory) is
    /// opened for reading where SQLite allows it; its writes are refused
    /// with the path and the cause.
    pub fn open(path: &Path) -> Result<Store> {
        if let Location::Postgres(url) = Location::from(path) {
            return Store::open_postgres(&url);
        }
        // A `file:` URI (e.g. `file:/x/jury.db?mode=ro`) is passed to SQLite as it is.
        if path.to_str().is_some_and(|p| p.starts_with("file:")) {
            return Store::open_at(path, false).map(|s| s.note_read_only());
        }
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => create::create_new(path),
            // SQLite would block on a FIFO for ever, and take a device
            // (`/dev/null`) for an empty file: only a regular file is a store.
            Ok(m) if !m.is_file() => Err(StoreError::NotAFile {
                path: path.to_path_buf(),
                kind: crate::readfile::kind_of(m.file_type()),
            }),
            Ok(m) if m.len() == 0 && !create::wal_has_content(path) => Err(StoreError::EmptyFile {
                path: path.to_path_buf(),
            }),
            _ => match Store::open_at(path, false) {
                // A full disk (no room for the -shm) still lets the store be read.
                Err(e)
                    if path.is_file()
                        && (health::is_permission_problem(&e)
                            || matches!(e, StoreError::Full(_))) =>
                {
                    health::open_read_only(path, e)
                }
                other => other.map(Store::note_read_only),
            },
        }
    }

    /// Opens an existing file (or URI). `read_only` opens it without write access.
    fn open_at(path: &Path, read_only: bool) -> Result<Store> {
        let flags = if read_only {
            OpenFlags::SQLITE_OPEN_READ_ONLY
        } else {
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
        } | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(path, flags).map_err(|source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        // Until the file has proved healthy, closing must not checkpoint: SQLite
        // would copy the -wal into a damaged file and delete the -wal, losing
        // the very commits a recovery needs (docs/reliability.md row 20).
        let _ = conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true);
        let mut store = Store {
            conn: Db::Sqlite(conn),
            path: path.to_path_buf(),
            location: Location::File(path.to_path_buf()),
            busy_timeout: BUSY_TIMEOUT,
            grouped: false,
            read_only: None,
            checked: false,
            _keep: None,
        };
        store.configure(read_only)?;
        if !read_only {
            store.migrate()?;
        }
        if let Some(c) = store.conn.sqlite() {
            let _ = c.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, false);
        }
        Ok(store)
    }

    /// An in-memory store (tests and dry runs).
    pub fn open_in_memory() -> Result<Store> {
        let conn = Connection::open_in_memory()?;
        let mut store = Store {
            conn: Db::Sqlite(conn),
            path: PathBuf::from(":memory:"),
            location: Location::File(PathBuf::from(":memory:")),
            busy_timeout: BUSY_TIMEOUT,
            grouped: false,
            read_only: None,
            checked: true,
            _keep: None,
        };
        store.configure(false)?;
        store.migrate()?;
        Ok(store)
    }

    /// Opens the store at `location`: a file, or a PostgreSQL database.
    pub fn open_location(location: &Location) -> Result<Store> {
        match location {
            Location::File(p) => Store::open(p),
            Location::Postgres(url) => Store::open_postgres(url),
        }
    }

    /// Opens the PostgreSQL store at `url` and brings its schema up to date
    /// (an empty database becomes a new store).
    #[cfg(feature = "postgres")]
    pub fn open_postgres(url: &str) -> Result<Store> {
        let conn = db::pg::PgConn::connect(url)?;
        let mut store = Store {
            conn: Db::Postgres(conn),
            path: location::stand_in(url),
            location: Location::Postgres(url.to_owned()),
            busy_timeout: BUSY_TIMEOUT,
            grouped: false,
            read_only: None,
            checked: true,
            _keep: None,
        };
        store.migrate()?;
        Ok(store)
    }

    /// The schema version of the PostgreSQL store at `url` (0: none yet),
    /// read without migrating (`jury doctor`).
    #[cfg(feature = "postgres")]
    pub fn postgres_schema_version(url: &str) -> Result<i64> {
        schema_pg::version(&Db::Postgres(db::pg::PgConn::connect(url)?))
    }

    #[cfg(not(feature = "postgres"))]
    pub fn postgres_schema_version(url: &str) -> Result<i64> {
        Store::open_postgres(url).map(|_| 0)
    }

    #[cfg(not(feature = "postgres"))]
    pub fn open_postgres(url: &str) -> Result<Store> {
        Err(StoreError::Postgres(format!(
            "{} is a PostgreSQL store, and this jury was built without PostgreSQL (cargo feature `postgres`)",
            location::display_url(url)
        )))
    }

    /// The store's file; for a PostgreSQL store a local stand-in path
    /// (files jury keeps beside a store are named after it).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the store lives (Display hides a URL's password).
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// Which engine holds the store.
    pub fn dialect(&self) -> Dialect {
        self.conn.dialect()
    }

    /// Whether the connection is gone (a PostgreSQL session the server
    /// ended): a long-lived holder opens the store again rather than fail
    /// every later call on it. Never true on SQLite.
    /// (On PostgreSQL a round trip when the client has not marked the
    /// session closed yet: ask after a failure.)
    pub fn connection_lost(&self) -> bool {
        self.conn.is_lost()
    }

    /// How long a write waits for another process's lock before it fails with
    /// [`StoreError::Busy`] (default [`BUSY_TIMEOUT`]).
    pub fn set_busy_timeout(&mut self, wait: Duration) -> Result<()> {
        if let Some(c) = self.conn.sqlite() {
            c.busy_timeout(wait)?;
        }
        self.busy_timeout = wait;
        Ok(())
    }

    pub fn busy_timeout(&self) -> Duration {
        self.busy_timeout
    }

    /// Caps the database at `pages` pages for this connection (a size quota;
    /// writes beyond it fail with [`StoreError::Full`], as on a full disk).
    /// Returns the cap SQLite settled on (never below the current size).
    pub fn set_max_page_count(&self, pages: u64) -> Result<u64> {
        let Some(conn) = self.conn.sqlite() else {
            return Ok(pages);
        };
        Ok(
            conn.query_row(&format!("PRAGMA max_page_count = {pages}"), [], |r| {
                r.get::<_, i64>(0)
            })? as u64,
        )
    }

    /// `PRAGMA journal_mode` as SQLite reports it (`wal` for a healthy store).
    pub fn journal_mode(&self) -> Result<String> {
        match self.conn.sqlite() {
            Some(c) => Ok(c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?),
            None => Ok("postgres".into()),
        }
    }

    /// A busy error with the wait that was actually spent.
    fn with_wait(&self, e: StoreError) -> StoreError {
        with_wait(e, self.busy_timeout)
    }

    fn configure(&mut self, read_only: bool) -> Result<()> {
        let Some(conn) = self.conn.sqlite() else {
            return Ok(());
        };
        conn.busy_timeout(BUSY_TIMEOUT)?;
        if read_only {
            // Asking for WAL would be a write; the file says what it is.
            conn.execute_batch("PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY;")?;
            return Ok(());
        }
        // A damaged file shows itself on the first read; say so instead of writing.
        let mode: String = conn
            .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
            .map_err(StoreError::from)?;
        if mode != "wal" && self.path != Path::new(":memory:") {
            tracing_note(&format!("journal mode is {mode}, not wal"));
        }
        conn.execute_batch(
            "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY;",
        )?;
        Ok(())
    }

    fn migrate(&mut self) -> Result<()> {
        let found = self.schema_version()?;
        if found > schema::VERSION {
            return Err(StoreError::TooNew {
                path: self.path.clone(),
                found,
                supported: schema::VERSION,
            });
        }
        if found > 0 && found < schema::VERSION {
            // A migration writes: check an existing store's health first.
            self.before_write()?;
        }
        if self.conn.dialect() == Dialect::Postgres {
            return self.migrate_postgres();
        }
        for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(found as usize) {
            let tx = self.conn.transaction()?;
            tx.execute_batch(sql)?;
            // The step to typed run records converts today's rows in Rust:
            // known by its text, so it runs wherever the step is numbered.
            if *sql == schema::RUN_RECORDS {
                legacy_record::convert(&tx)?;
            }
            tx.pragma_update("user_version", &((i + 1) as i64))?;
            tx.commit()?;
        }
        Ok(())
    }

    /// The migrations on PostgreSQL, all the missing steps in one
    /// transaction (its DDL is transactional): a database is a complete
    /// store of one version or untouched. Two processes opening a new
    /// database at once take turns (an advisory lock), and the second finds
    /// the work done.
    fn migrate_postgres(&mut self) -> Result<()> {
        let tx = self.conn.transaction()?;
        schema_pg::lock_migrations(&tx)?;
        let found = schema_pg::version(&tx)?;
        if found >= schema::VERSION {
            return tx.commit();
        }
        team_roles::check_may_migrate(&tx, found, &self.location.to_string())?;
        for (i, sql) in schema::MIGRATIONS.iter().enumerate().skip(found as usize) {
            tx.execute_batch(&schema_pg::migration(i, sql))?;
            if *sql == schema::RUN_RECORDS {
                legacy_record::convert(&tx)?;
            }
        }
        schema_pg::set_version(&tx, schema::VERSION)?;
        tx.commit()
    }

    pub fn schema_version(&self) -> Result<i64> {
        match self.conn.sqlite() {
            Some(c) => Ok(c.query_row("PRAGMA user_version", [], |r| r.get(0))?),
            None => schema_pg::version(&self.conn),
        }
    }

    /// `PRAGMA quick_check`: "ok" or the first problems found.
    pub fn integrity_check(&self) -> Result<String> {
        match self.conn.sqlite() {
            Some(c) => Ok(c.query_row("PRAGMA quick_check", [], |r| r.get(0))?),
            // The server keeps its own files sound; there is nothing to check here.
            None => Ok("ok".into()),
        }
    }

    /// True when the store holds no items yet.
    pub fn is_empty(&self) -> Result<bool> {
        let n: i64 = self
            .conn
            .query_row("SELECT count(*) FROM items", [], |r| r.get(0))?;
        Ok(n == 0)
    }

    /// True when the store holds nothing a person put there: no items,
    /// personas, perspectives, labels or runs (a new workspace). A store with
    /// no items but labels, runs or personas is someone's work, not a blank
    /// slate to fill with sample data.
    pub fn holds_nothing(&self) -> Result<bool> {
        let n: i64 = self.conn.query_row(
            "SELECT (SELECT count(*) FROM items) + (SELECT count(*) FROM personas)
                  + (SELECT count(*) FROM perspectives) + (SELECT count(*) FROM labels)
                  + (SELECT count(*) FROM runs)",
            [],
            |r| r.get(0),
        )?;
        Ok(n == 0)
    }

    /// Runs `f`'s writes as one transaction: all of them are committed
    /// together, or (on an error) none. The run's writer groups the answers
    /// that arrived together this way: one commit, one set of WAL pages and
    /// locks instead of one per answer. Only the writes that take part in a
    /// group ([`Store::insert_verdicts`], [`Store::insert_failure`],
    /// [`Store::add_run_usage`]) may be called inside.
    pub fn in_one_transaction<T>(&mut self, f: impl FnOnce(&mut Store) -> Result<T>) -> Result<T> {
        self.before_write()?;
        let wait = self.busy_timeout;
        let begin = match self.conn.dialect() {
            Dialect::Sqlite => "BEGIN IMMEDIATE",
            Dialect::Postgres => "BEGIN",
        };
        self.conn
            .execute_batch(begin)
            .map_err(|e| with_wait(e, wait))?;
        self.grouped = true;
        let result = f(self);
        self.grouped = false;
        match result {
            Ok(v) => match self.conn.execute_batch("COMMIT") {
                Ok(()) => Ok(v),
                Err(e) => {
                    let _ = self.conn.execute_batch("ROLLBACK");
                    Err(with_wait(e, wait))
                }
            },
            Err(e) => {
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// One write statement in a transaction of its own, begun IMMEDIATE:
    /// it takes the write lock up front, waiting the busy timeout for it,
    /// and a refusal says how long it waited. Inside
    /// [`Store::in_one_transaction`] it joins that transaction.
    fn write_one(&mut self, sql: &str, p: impl db::Params) -> Result<usize> {
        if self.grouped {
            return self.conn.execute(sql, p);
        }
        let wait = self.busy_timeout;
        let tx = self.immediate()?;
        let n = tx.execute(sql, p)?;
        tx.commit().map_err(|e| with_wait(e, wait))?;
        Ok(n)
    }

    /// Runs `write` with `synchronous=FULL`, for what a person wrote (a
    /// label, its note, an undo): it must survive a power loss, not only a
    /// crash. Back to NORMAL for verdict traffic whatever happened.
    fn durably<T>(&mut self, write: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        self.conn.pragma_update("synchronous", &"FULL")?;
        let result = write(self);
        let _ = self.conn.pragma_update("synchronous", &"NORMAL");
        result.map_err(|e| self.with_wait(e))
    }

    fn immediate(&mut self) -> Result<db::Tx<'_>> {
        self.before_write()?;
        let wait = self.busy_timeout;
        self.conn.transaction().map_err(|e| with_wait(e, wait))
    }
}

/// A busy error says how long it waited (SQLite's own code does not).
fn with_wait(e: StoreError, wait: Duration) -> StoreError {
    match e {
        StoreError::Busy { .. } => StoreError::Busy {
            waited_ms: wait.as_millis() as u64,
        },
        other => other,
    }
}

/// Diagnostics go to stderr only when asked for (JURY_DEBUG), never to the TUI.
fn tracing_note(msg: &str) {
    if std::env::var_os("JURY_DEBUG").is_some() {
        eprintln!("jury store: {msg}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store a newer jury wrote is refused, opened plainly or read-only
    /// (a `file:` URI), with both versions named, and left byte for byte
    /// as it was: an older jury must not migrate or write what it cannot
    /// read.
    #[test]
    fn a_store_from_a_newer_jury_is_refused_and_left_alone() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("jury.db");
        drop(Store::open(&path).expect("a new store"));
        let conn = Connection::open(&path).expect("open");
        conn.pragma_update(None, "user_version", schema::VERSION + 1)
            .expect("bump the version");
        drop(conn);
        let before = std::fs::read(&path).expect("read");
        let uri = PathBuf::from(format!("file:{}?mode=ro", path.display()));
        for p in [&path, &uri] {
            let Err(e) = Store::open(p) else {
                panic!("{} opened", p.display())
            };
            assert!(
                matches!(e, StoreError::TooNew { found, supported, .. }
                    if found == schema::VERSION + 1 && supported == schema::VERSION),
                "{e}"
            );
            assert!(e.to_string().contains("upgrade jury"), "{e}");
        }
        assert_eq!(std::fs::read(&path).expect("read"), before);
    }
}
