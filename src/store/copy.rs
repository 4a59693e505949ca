//! `jury store copy`: a whole store from one engine to the other (a solo
//! study to the team's PostgreSQL, or back for archiving and offline work),
//! verified: each table's row count and a checksum of its rows, read back
//! from the destination, must equal the source's.

use super::db::{Db, Dialect, Value, params};
use super::{Result, Store, StoreError};
use sha2::{Digest, Sha256};

/// Every table of the store, parents before children (foreign keys).
pub const TABLES: &[&str] = &[
    "items",
    "classifications",
    "personas",
    "perspectives",
    "runs",
    "verdicts",
    "failures",
    "labels",
    "label_events",
    "label_samples",
    "row_marks",
    "skipped_inputs",
    "endpoint_paths",
    "split_rule",
    "split_members",
    "prompt_examples",
    "workbench_sessions",
    "run_claims",
    "batch_jobs",
    "batch_requests",
    "adjudications",
    "assignments",
    "leases",
];

/// Tables whose `id` the database assigns: after a copy into PostgreSQL its
/// identity must continue past the copied ids.
const WITH_ID: &[&str] = &[
    "runs",
    "verdicts",
    "failures",
    "labels",
    "label_events",
    "row_marks",
    "skipped_inputs",
    "adjudications",
];

/// One table as copied: its rows and their checksum (the same on both sides).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableCopy {
    pub table: &'static str,
    pub rows: u64,
    pub checksum: String,
}

impl Store {
    /// Copies every row of this store into `to`, which must hold nothing,
    /// in one transaction on `to`; then reads both back and compares each
    /// table's count and checksum. Returns the tables as verified.
    pub fn copy_into(&self, to: &mut Store) -> Result<Vec<TableCopy>> {
        for t in TABLES {
            if count(&to.conn, t)? > 0 {
                return Err(StoreError::Data(format!(
                    "the destination {} is not empty (table {t} has rows): a copy goes into a new store",
                    to.location
                )));
            }
        }
        to.before_write()?;
        {
            let tx = to.conn.transaction()?;
            for t in TABLES {
                copy_table(&self.conn, &tx, t)?;
            }
            if tx.dialect() == Dialect::Postgres {
                for t in WITH_ID {
                    tx.execute_batch(&format!(
                        "SELECT setval(pg_get_serial_sequence('{t}', 'id'), \
                         COALESCE((SELECT max(id) FROM {t}), 0) + 1, false)"
                    ))?;
                }
            }
            tx.commit()?;
        }
        let mut out = Vec::new();
        for t in TABLES {
            let (from, back) = (summary(&self.conn, t)?, summary(&to.conn, t)?);
            if from != back {
                return Err(StoreError::Data(format!(
                    "the copy of table {t} does not match: {} rows (checksum {}) in the source, {} ({}) in {}",
                    from.0, from.1, back.0, back.1, to.location
                )));
            }
            out.push(TableCopy {
                table: t,
                rows: from.0,
                checksum: from.1,
            });
        }
        Ok(out)
    }
}

fn count(db: &Db, table: &str) -> Result<u64> {
    let n: i64 = db.query_row(
        &format!("SELECT CAST(count(*) AS BIGINT) FROM {table}"),
        [],
        |r| r.get(0),
    )?;
    Ok(n as u64)
}

/// The table's columns, by name (their order may differ between engines:
/// a column added later comes last on both, but names are what match).
fn columns(db: &Db, table: &str) -> Result<Vec<String>> {
    let sql = match db.dialect() {
        Dialect::Sqlite => "SELECT name FROM pragma_table_info(?1) ORDER BY cid",
        Dialect::Postgres => {
            "SELECT CAST(column_name AS TEXT) FROM information_schema.columns
             WHERE table_schema = current_schema() AND table_name = ?1 ORDER BY ordinal_position"
        }
    };
    let mut stmt = db.prepare(sql)?;
    let names = stmt.query_map(params![table], |r| r.get::<_, String>(0))?;
    names.collect()
}

fn copy_table(from: &Db, to: &Db, table: &str) -> Result<()> {
    let cols = columns(from, table)?;
    let theirs = columns(to, table)?;
    if let Some(c) = cols.iter().find(|c| !theirs.contains(c)) {
        return Err(StoreError::Data(format!(
            "table {table}: the destination has no column {c} (stores of different versions?)"
        )));
    }
    let list = cols.join(", ");
    let marks: Vec<String> = (1..=cols.len()).map(|i| format!("?{i}")).collect();
    let mut read = from.prepare(&format!("SELECT {list} FROM {table}"))?;
    let mut write = to.prepare_cached(&format!(
        "INSERT INTO {table} ({list}) VALUES ({})",
        marks.join(", ")
    ))?;
    let mut rows = read.query([])?;
    while let Some(r) = rows.next()? {
        let values: Vec<Value> = (0..cols.len())
            .map(|i| r.get::<_, Value>(i))
            .collect::<Result<_>>()?;
        let refs: Vec<&dyn super::db::Param> =
            values.iter().map(|v| v as &dyn super::db::Param).collect();
        write.execute(refs.as_slice())?;
    }
    Ok(())
}

/// A table's row count and a checksum of its rows that does not depend on
/// the order rows come back in, nor on the order of columns: each row is
/// hashed as (column name, value) pairs by name, and the sorted row hashes
/// are hashed again.
fn summary(db: &Db, table: &str) -> Result<(u64, String)> {
    let mut cols = columns(db, table)?;
    cols.sort();
    let mut stmt = db.prepare(&format!("SELECT {} FROM {table}", cols.join(", ")))?;
    let mut rows = stmt.query([])?;
    let mut hashes = Vec::new();
    while let Some(r) = rows.next()? {
        let mut h = Sha256::new();
        for (i, c) in cols.iter().enumerate() {
            h.update(c.as_bytes());
            match r.get::<_, Value>(i)? {
                Value::Null => h.update(b"n"),
                Value::Int(v) => h.update(format!("i{v}").as_bytes()),
                Value::Real(v) => h.update(format!("r{}", v.to_bits()).as_bytes()),
                Value::Text(s) => {
                    h.update(format!("t{}:", s.len()).as_bytes());
                    h.update(s.as_bytes());
                }
                Value::Blob(b) => {
                    h.update(format!("b{}:", b.len()).as_bytes());
                    h.update(&b);
                }
            }
        }
        hashes.push(h.finalize());
    }
    hashes.sort();
    let mut all = Sha256::new();
    for h in &hashes {
        all.update(h);
    }
    let hex: String = all.finalize()[..12]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok((hashes.len() as u64, hex))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table the migrations make is copied: a table added by a later
    /// migration and forgotten here would be lost by `jury store copy`.
    #[test]
    fn every_table_of_the_schema_is_copied() {
        let store = Store::open_in_memory().expect("store");
        let conn = store.conn.sqlite().expect("sqlite");
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            .expect("prepare");
        let mut tables: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .expect("query")
            .collect::<rusqlite::Result<_>>()
            .expect("rows");
        let mut copied: Vec<String> = TABLES.iter().map(|t| t.to_string()).collect();
        tables.sort();
        copied.sort();
        assert_eq!(tables, copied);
    }
}
