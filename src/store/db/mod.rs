//! One query layer over two engines: the store's SQL is written once, in the
//! subset SQLite and PostgreSQL share, with `?N` placeholders, and runs on
//! either. On SQLite every call goes straight to rusqlite (statement cache,
//! borrowed rows: nothing is copied); on PostgreSQL (`pg.rs`) placeholders
//! become `$N`, parameters become [`Value`]s that adapt to the column types
//! the server expects, and rows come back as values.

#[cfg(feature = "postgres")]
pub mod pg;
mod rows;
pub mod translate;
mod value;

pub use rows::{MappedRows, Row, Rows};
pub use value::{FromCol, Param, Value};

use super::{Result, StoreError};

/// Which engine a connection talks to (where SQL must differ).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

/// A connection to the store's database.
pub enum Db {
    Sqlite(rusqlite::Connection),
    #[cfg(feature = "postgres")]
    Postgres(pg::PgConn),
}

/// A statement's parameters: `params![a, b]`, `[a, b]` or `[]`.
pub trait Params {
    fn each(&self) -> impl Iterator<Item = &dyn Param>;
    /// As values (what PostgreSQL is sent).
    fn values(&self) -> Vec<Value> {
        self.each().map(Param::to_value).collect()
    }
}

impl Params for &[&dyn Param] {
    fn each(&self) -> impl Iterator<Item = &dyn Param> {
        self.iter().copied()
    }
}

impl Params for [&dyn Param; 0] {
    fn each(&self) -> impl Iterator<Item = &dyn Param> {
        std::iter::empty()
    }
}

macro_rules! array_params {
    ($($n:literal)*) => {$(
        impl<T: Param> Params for [T; $n] {
            fn each(&self) -> impl Iterator<Item = &dyn Param> {
                self.iter().map(|p| p as &dyn Param)
            }
        }
    )*};
}
array_params!(1 2 3 4 5 6 7 8 9 10 11 12);

/// `params![a, b, ...]`: a statement's parameters of mixed types.
#[macro_export]
#[doc(hidden)]
macro_rules! store_params {
    () => { &[] as &[&dyn $crate::store::db::Param] };
    ($($p:expr),+ $(,)?) => { &[$(&$p as &dyn $crate::store::db::Param),+] as &[&dyn $crate::store::db::Param] };
}
pub use crate::store_params as params;

/// rusqlite's parameters from ours (borrowed: no copy on SQLite).
fn sqlite_params<P: Params>(p: &P) -> impl rusqlite::Params + '_ {
    rusqlite::params_from_iter(p.each().map(Param::as_sqlite))
}

/// `query_row`'s "no row" as `None` (as rusqlite's `OptionalExtension`).
pub trait OptionalExtension<T> {
    fn optional(self) -> Result<Option<T>>;
}

impl<T> OptionalExtension<T> for Result<T> {
    fn optional(self) -> Result<Option<T>> {
        match self {
            Ok(v) => Ok(Some(v)),
            Err(StoreError::Sql(rusqlite::Error::QueryReturnedNoRows)) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A prepared statement.
pub enum Stmt<'c> {
    Sqlite(rusqlite::Statement<'c>),
    SqliteCached(rusqlite::CachedStatement<'c>),
    #[cfg(feature = "postgres")]
    Postgres {
        conn: &'c pg::PgConn,
        sql: String,
    },
}

impl Db {
    pub fn dialect(&self) -> Dialect {
        match self {
            Db::Sqlite(_) => Dialect::Sqlite,
            #[cfg(feature = "postgres")]
            Db::Postgres(_) => Dialect::Postgres,
        }
    }

    /// The SQLite connection (PRAGMAs, busy timeout), None on PostgreSQL.
    pub fn sqlite(&self) -> Option<&rusqlite::Connection> {
        match self {
            Db::Sqlite(c) => Some(c),
            #[cfg(feature = "postgres")]
            Db::Postgres(_) => None,
        }
    }

    pub fn prepare(&self, sql: &str) -> Result<Stmt<'_>> {
        Ok(match self {
            Db::Sqlite(c) => Stmt::Sqlite(c.prepare(sql)?),
            #[cfg(feature = "postgres")]
            Db::Postgres(conn) => Stmt::Postgres {
                conn,
                sql: sql.to_owned(),
            },
        })
    }

    /// As [`Db::prepare`], kept for the next call with the same text.
    pub fn prepare_cached(&self, sql: &str) -> Result<Stmt<'_>> {
        Ok(match self {
            Db::Sqlite(c) => Stmt::SqliteCached(c.prepare_cached(sql)?),
            #[cfg(feature = "postgres")]
            Db::Postgres(conn) => Stmt::Postgres {
                conn,
                sql: sql.to_owned(),
            },
        })
    }

    pub fn execute<P: Params>(&self, sql: &str, p: P) -> Result<usize> {
        match self {
            Db::Sqlite(c) => Ok(c.prepare_cached(sql)?.execute(sqlite_params(&p))?),
            #[cfg(feature = "postgres")]
            Db::Postgres(conn) => conn.execute(sql, p.values()),
        }
    }

    pub fn query_row<T, P: Params>(
        &self,
        sql: &str,
        p: P,
        f: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        self.prepare(sql)?.query_row(p, f)
    }

    /// Statements without parameters, separated by `;` (DDL, BEGIN/COMMIT).
    pub fn execute_batch(&self, sql: &str) -> Result<()> {
        match self {
            Db::Sqlite(c) => Ok(c.execute_batch(sql)?),
            #[cfg(feature = "postgres")]
            Db::Postgres(conn) => conn.batch(sql),
        }
    }

    /// Whether the connection is gone for good: a PostgreSQL session the
    /// server ended (a restart, a terminated backend, a network cut), which
    /// every later call would fail on until a new connection is opened. A
    /// SQLite connection is never lost (its file may be refused, not it).
    pub fn is_lost(&self) -> bool {
        match self {
            Db::Sqlite(_) => false,
            #[cfg(feature = "postgres")]
            Db::Postgres(conn) => conn.is_closed(),
        }
    }

    /// A PRAGMA on SQLite; nothing on PostgreSQL (which has no such knobs
    /// per connection that the store relies on).
    pub fn pragma_update(&self, name: &str, value: &dyn rusqlite::ToSql) -> Result<()> {
        match self {
            Db::Sqlite(c) => Ok(c.pragma_update(None, name, value)?),
            #[cfg(feature = "postgres")]
            Db::Postgres(_) => Ok(()),
        }
    }

    /// Begins a transaction that takes the write lock up front on SQLite
    /// (`BEGIN IMMEDIATE`); a plain `BEGIN` on PostgreSQL, whose row locks
    /// need no such thing. Dropped without [`Tx::commit`], it rolls back.
    pub fn transaction(&self) -> Result<Tx<'_>> {
        self.execute_batch(match self.dialect() {
            Dialect::Sqlite => "BEGIN IMMEDIATE",
            Dialect::Postgres => "BEGIN",
        })?;
        Ok(Tx {
            db: self,
            open: true,
        })
    }
}

/// An open transaction on a [`Db`] (which it derefs to).
pub struct Tx<'c> {
    db: &'c Db,
    open: bool,
}

impl std::ops::Deref for Tx<'_> {
    type Target = Db;
    fn deref(&self) -> &Db {
        self.db
    }
}

impl Tx<'_> {
    pub fn commit(mut self) -> Result<()> {
        self.open = false;
        let r = self.db.execute_batch("COMMIT");
        if r.is_err() {
            let _ = self.db.execute_batch("ROLLBACK");
        }
        r
    }
}

impl Drop for Tx<'_> {
    fn drop(&mut self) {
        if self.open {
            let _ = self.db.execute_batch("ROLLBACK");
        }
    }
}

impl<'c> Stmt<'c> {
    fn sqlite(&mut self) -> Option<&mut rusqlite::Statement<'c>> {
        match self {
            Stmt::Sqlite(s) => Some(s),
            Stmt::SqliteCached(s) => Some(s),
            #[cfg(feature = "postgres")]
            Stmt::Postgres { .. } => None,
        }
    }

    pub fn execute<P: Params>(&mut self, p: P) -> Result<usize> {
        #[cfg(feature = "postgres")]
        if let Stmt::Postgres { conn, sql } = self {
            return conn.execute(sql, p.values());
        }
        let s = self.sqlite().expect("a SQLite statement");
        Ok(s.execute(sqlite_params(&p))?)
    }

    pub fn query<P: Params>(&mut self, p: P) -> Result<Rows<'_>> {
        #[cfg(feature = "postgres")]
        if let Stmt::Postgres { conn, sql } = self {
            return Ok(Rows::from_values(conn.query(sql, p.values())?));
        }
        let s = self.sqlite().expect("a SQLite statement");
        Ok(Rows::Sqlite(s.query(sqlite_params(&p))?))
    }

    /// The first row through `f`; no row is rusqlite's `QueryReturnedNoRows`
    /// on both engines (see [`OptionalExtension`]).
    pub fn query_row<T, P: Params>(
        &mut self,
        p: P,
        f: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        let mut rows = self.query(p)?;
        match rows.next()? {
            Some(r) => f(&r),
            None => Err(StoreError::Sql(rusqlite::Error::QueryReturnedNoRows)),
        }
    }

    /// Each row through `f`, as an iterator of results.
    pub fn query_map<T, P: Params, F: FnMut(&Row<'_>) -> Result<T>>(
        &mut self,
        p: P,
        f: F,
    ) -> Result<MappedRows<'_, F>> {
        Ok(MappedRows::new(self.query(p)?, f))
    }
}
