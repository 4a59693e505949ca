//! The clock heartbeats are written and judged by. On PostgreSQL it is the
//! server's: a run's heartbeat is written by its host and judged stale by
//! another, and two machines' clocks may disagree by more than the stale
//! time (a laptop off NTP), which would make a live run look dead, or a
//! dead one live. One clock for every host removes that. On SQLite, whose
//! processes share one machine, it is that machine's.

use super::Result;
use super::db::{Db, Dialect};

/// Now, by the store's clock.
pub(super) fn store_now(conn: &Db) -> Result<chrono::DateTime<chrono::Utc>> {
    match conn.dialect() {
        Dialect::Sqlite => Ok(chrono::Utc::now()),
        Dialect::Postgres => {
            // Milliseconds since the epoch: no time zone or text format of
            // the server's to read. clock_timestamp(), not now(): inside a
            // transaction now() is when it began.
            let ms: i64 = conn.query_row(
                "SELECT CAST(floor(extract(epoch FROM clock_timestamp()) * 1000) AS BIGINT)",
                [],
                |r| r.get(0),
            )?;
            chrono::DateTime::from_timestamp_millis(ms)
                .ok_or_else(|| super::StoreError::Data(format!("the server's clock reads {ms} ms")))
        }
    }
}

/// [`store_now`] as the store writes times (RFC 3339, milliseconds, UTC).
pub(super) fn store_timestamp(conn: &Db) -> Result<String> {
    Ok(super::timestamp(store_now(conn)?))
}

#[cfg(test)]
mod tests {
    use crate::store::testing::each_backend;

    /// A run's heartbeat is the store's time (on PostgreSQL the server's,
    /// here on the same machine, so within a few seconds of this one's) and
    /// moves on with each beat.
    #[test]
    fn heartbeats_are_written_by_the_stores_clock() {
        each_backend(|s| {
            let spec = crate::domain::RunSpec {
                protocol: crate::domain::Protocol::Awag,
                mode: None,
                persona_id: "p".into(),
                perspective_ids: vec![],
                model: "m".into(),
                prompt_hash: "h".into(),
                record: None,
            };
            let run = s.create_run(&spec, 1).unwrap();
            let beat = |s: &crate::store::Store| {
                let owners = s.running_owners().unwrap();
                let at = owners[0].1.heartbeat_at.clone().unwrap();
                chrono::DateTime::parse_from_rfc3339(&at)
                    .unwrap()
                    .with_timezone(&chrono::Utc)
            };
            let first = beat(s);
            let clock = super::store_now(&s.conn).unwrap();
            assert!((clock - first).num_milliseconds().abs() < 5_000);
            assert!((chrono::Utc::now() - clock).num_milliseconds().abs() < 5_000);
            std::thread::sleep(std::time::Duration::from_millis(20));
            s.heartbeat(run).unwrap();
            assert!(beat(s) > first, "the beat moved on");
        });
    }
}
