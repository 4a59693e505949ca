//! What a statement binds and a row yields, on either engine.
//!
//! On SQLite a parameter binds as rusqlite's own `ToSql` and a column reads
//! through rusqlite's `FromSql` (no copy, no allocation: the hot paths stay
//! as they were). On PostgreSQL a parameter becomes a [`Value`] that adapts
//! to the type the server expects (`pg.rs`), and a row arrives as values.

use super::super::{Result, StoreError};

/// One SQL value, engine-neutral (SQLite's five storage classes).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Int(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl Value {
    fn kind(&self) -> &'static str {
        match self {
            Value::Null => "NULL",
            Value::Int(_) => "an integer",
            Value::Real(_) => "a real",
            Value::Text(_) => "text",
            Value::Blob(_) => "a blob",
        }
    }
}

/// A statement parameter: anything rusqlite binds. On SQLite it binds as
/// itself; on PostgreSQL as the [`Value`] its SQLite form is.
pub trait Param {
    fn as_sqlite(&self) -> &dyn rusqlite::ToSql;
    fn to_value(&self) -> Value;
}

impl<T: rusqlite::ToSql> Param for T {
    fn as_sqlite(&self) -> &dyn rusqlite::ToSql {
        self
    }
    fn to_value(&self) -> Value {
        use rusqlite::types::ToSqlOutput;
        match self.to_sql() {
            Ok(ToSqlOutput::Borrowed(v)) => Value::from(v),
            Ok(ToSqlOutput::Owned(v)) => Value::from(rusqlite::types::ValueRef::from(&v)),
            // Zero blobs and errors are not bound by the store.
            _ => Value::Null,
        }
    }
}

impl From<rusqlite::types::ValueRef<'_>> for Value {
    fn from(v: rusqlite::types::ValueRef<'_>) -> Value {
        use rusqlite::types::ValueRef;
        match v {
            ValueRef::Null => Value::Null,
            ValueRef::Integer(i) => Value::Int(i),
            ValueRef::Real(r) => Value::Real(r),
            ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
            ValueRef::Blob(b) => Value::Blob(b.to_vec()),
        }
    }
}

impl Value {
    fn as_ref(&self) -> rusqlite::types::ValueRef<'_> {
        use rusqlite::types::ValueRef;
        match self {
            Value::Null => ValueRef::Null,
            Value::Int(i) => ValueRef::Integer(*i),
            Value::Real(r) => ValueRef::Real(*r),
            Value::Text(s) => ValueRef::Text(s.as_bytes()),
            Value::Blob(b) => ValueRef::Blob(b),
        }
    }
}

impl rusqlite::ToSql for Value {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        Ok(rusqlite::types::ToSqlOutput::Borrowed(self.as_ref()))
    }
}
impl rusqlite::types::FromSql for Value {
    fn column_result(v: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        Ok(Value::from(v))
    }
}

/// A column as a Rust value: anything rusqlite reads, through its
/// `FromSql` on SQLite and on PostgreSQL alike (from the [`Value`] the
/// server's column became), so both engines read a column the same way.
pub trait FromCol: rusqlite::types::FromSql + Sized {
    fn from_value(v: &Value) -> Result<Self> {
        Self::column_result(v.as_ref())
            .map_err(|e| StoreError::Data(format!("found {}: {e}", v.kind())))
    }
}

impl<T: rusqlite::types::FromSql> FromCol for T {}
