//! Rows of a query, read the same way on both engines.

use super::super::{Result, StoreError};
use super::value::{FromCol, Value};

/// The rows of a query: SQLite's stepped one at a time; PostgreSQL's as
/// they arrived.
pub enum Rows<'s> {
    Sqlite(rusqlite::Rows<'s>),
    Values {
        rows: std::vec::IntoIter<Vec<Value>>,
        current: Option<Vec<Value>>,
    },
}

impl<'s> Rows<'s> {
    #[cfg_attr(not(feature = "postgres"), allow(dead_code))]
    pub(super) fn from_values(rows: Vec<Vec<Value>>) -> Rows<'s> {
        Rows::Values {
            rows: rows.into_iter(),
            current: None,
        }
    }

    /// The next row, None after the last. Named as rusqlite's (the store's
    /// loops read `while let Some(r) = rows.next()?`); not an `Iterator`:
    /// a row borrows from the rows it came from.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Result<Option<Row<'_>>> {
        match self {
            Rows::Sqlite(r) => Ok(r.next()?.map(Row::Sqlite)),
            Rows::Values { rows, current } => {
                *current = rows.next();
                Ok(current.as_deref().map(Row::Values))
            }
        }
    }
}

/// One row: columns by index from 0.
pub enum Row<'r> {
    Sqlite(&'r rusqlite::Row<'r>),
    Values(&'r [Value]),
}

impl Row<'_> {
    /// Column `i` as a `T` (`r.get::<_, String>(0)`, as in rusqlite).
    pub fn get<I: ColIndex, T: FromCol>(&self, i: I) -> Result<T> {
        let i = i.index();
        match self {
            Row::Sqlite(r) => Ok(r.get(i)?),
            Row::Values(v) => T::from_value(column(v, i)?)
                .map_err(|e| StoreError::Data(format!("column {i}: {e}"))),
        }
    }

    /// Column `i` as text borrowed from the row (no allocation: the report
    /// reads millions this way).
    pub fn text(&self, i: usize) -> Result<&str> {
        match self {
            Row::Sqlite(r) => r
                .get_ref(i)?
                .as_str()
                .map_err(|e| StoreError::Data(format!("column {i}: {e}"))),
            Row::Values(v) => match column(v, i)? {
                Value::Text(s) => Ok(s),
                other => Err(StoreError::Data(format!(
                    "column {i}: expected text, found {other:?}"
                ))),
            },
        }
    }
}

/// A column index (only `usize`, so a literal `0` needs no suffix).
pub trait ColIndex {
    fn index(self) -> usize;
}

impl ColIndex for usize {
    fn index(self) -> usize {
        self
    }
}

fn column(v: &[Value], i: usize) -> Result<&Value> {
    v.get(i)
        .ok_or(StoreError::Sql(rusqlite::Error::InvalidColumnIndex(i)))
}

/// Rows mapped through a function, as an iterator of results.
pub struct MappedRows<'s, F> {
    rows: Rows<'s>,
    f: F,
}

impl<'s, F> MappedRows<'s, F> {
    pub(super) fn new(rows: Rows<'s>, f: F) -> Self {
        MappedRows { rows, f }
    }
}

impl<T, F: FnMut(&Row<'_>) -> Result<T>> Iterator for MappedRows<'_, F> {
    type Item = Result<T>;
    fn next(&mut self) -> Option<Result<T>> {
        match self.rows.next() {
            Ok(Some(r)) => Some((self.f)(&r)),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
}
