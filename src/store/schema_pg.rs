//! The migrations on PostgreSQL: the same numbered steps as SQLite's
//! (`schema.rs`), their DDL typed for PostgreSQL (`db::translate::ddl`), and
//! the version in a table, `jury_schema`, instead of SQLite's
//! `user_version`. The few statements only SQLite reads are rewritten here.

use super::Result;
use super::db::{Db, params};

/// Step `i` (from 0) of [`super::schema::MIGRATIONS`] as PostgreSQL runs it.
pub fn migration(i: usize, sql: &str) -> String {
    let _ = i;
    // Roles and row-level security exist only here (SQLite's step is empty).
    if sql == super::schema::TEAM_ROLES {
        return super::team_roles::POSTGRES.to_owned();
    }
    let mut pg = super::db::translate::ddl(sql);
    // Step 9 reads each item's tags (a JSON array) with SQLite's json_each.
    if let Some(at) = pg.find("FROM json_each(items.tags) t") {
        pg.replace_range(
            at..at + "FROM json_each(items.tags) t".len(),
            "FROM jsonb_array_elements_text(CAST(items.tags AS jsonb)) AS t(value)",
        );
    }
    pg
}

/// The schema version of the database `db` talks to (0: no jury store yet).
pub fn version(db: &Db) -> Result<i64> {
    let tables: i64 = db.query_row(
        "SELECT CAST(count(*) AS BIGINT) FROM information_schema.tables
         WHERE table_schema = current_schema() AND table_name = 'jury_schema'",
        [],
        |r| r.get(0),
    )?;
    if tables == 0 {
        return Ok(0);
    }
    db.query_row(
        "SELECT CAST(COALESCE(max(version), 0) AS BIGINT) FROM jury_schema",
        [],
        |r| r.get(0),
    )
}

/// Records `version` (inside the migration's transaction).
pub fn set_version(db: &Db, version: i64) -> Result<()> {
    db.execute_batch(
        "CREATE TABLE IF NOT EXISTS jury_schema (version BIGINT NOT NULL);
         DELETE FROM jury_schema;",
    )?;
    db.execute(
        "INSERT INTO jury_schema (version) VALUES (?1)",
        params![version],
    )?;
    Ok(())
}

/// Serialises migrations between processes that open a new database at
/// once (the key is arbitrary, jury's own): taken inside the migration's
/// transaction, released at its end.
pub fn lock_migrations(db: &Db) -> Result<()> {
    db.execute_batch("SELECT pg_advisory_xact_lock(7032001)")
}
