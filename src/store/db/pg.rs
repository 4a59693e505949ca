//! The PostgreSQL connection, confined to a thread of its own.
//!
//! `postgres::Client` (the synchronous client) drives a tokio runtime of its
//! own and panics when called from inside another runtime's context, and
//! jury calls the store from async tasks and `spawn_blocking`. So one
//! thread owns the client and its prepared statements; the store sends it
//! each call over a channel and waits for the answer. The store is
//! synchronous either way: a call blocks its caller as a SQLite call does.

use super::super::{Result, StoreError};
use super::translate;
use super::value::Value;
use postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use rustls::pki_types::pem::PemObject;
use std::collections::HashMap;
use std::sync::mpsc;

type Job = Box<dyn FnOnce(&mut Session) + Send>;

/// The client and what it has prepared, owned by the connection's thread.
struct Session {
    client: postgres::Client,
    statements: HashMap<String, postgres::Statement>,
}

/// A handle on the connection's thread.
pub struct PgConn {
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for PgConn {
    /// Closes the connection before returning: the session ends on the
    /// server (its locks released) by the time the store is gone.
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl std::fmt::Debug for PgConn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PgConn")
    }
}

impl PgConn {
    /// Connects to `url` (a `postgres://` URL; `sslmode=disable|prefer|require|verify-ca|verify-full`).
    /// The error never holds the password.
    pub fn connect(url: &str) -> Result<PgConn> {
        let (config, tls) = config_of(url)?;
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (ready, started) = mpsc::channel::<Result<()>>();
        let shown = super::super::location::display_url(url);
        let thread = std::thread::Builder::new()
            .name("jury-postgres".into())
            .spawn(move || {
                let client = match tls {
                    Some(tls) => config.connect(tls),
                    None => config.connect(postgres::NoTls),
                };
                let client = match client {
                    Ok(c) => c,
                    Err(e) => {
                        let _ = ready.send(Err(StoreError::Postgres(format!(
                            "cannot connect to {shown}: {}",
                            describe(&e)
                        ))));
                        return;
                    }
                };
                let _ = ready.send(Ok(()));
                let mut session = Session {
                    client,
                    statements: HashMap::new(),
                };
                // Ends when the store (every sender) is dropped.
                for job in inbox {
                    job(&mut session);
                }
            })
            .map_err(|e| StoreError::Postgres(format!("cannot start its thread: {e}")))?;
        started
            .recv()
            .map_err(|_| StoreError::Postgres("its thread ended".into()))??;
        Ok(PgConn {
            jobs: Some(jobs),
            thread: Some(thread),
        })
    }

    /// Runs `f` on the connection's thread and returns what it returned.
    fn call<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Session) -> R + Send + 'static,
    ) -> Result<R> {
        let (tx, rx) = mpsc::sync_channel(1);
        self.jobs
            .as_ref()
            .ok_or_else(|| StoreError::Postgres("the connection is closed".into()))?
            .send(Box::new(move |s: &mut Session| {
                let _ = tx.send(f(s));
            }))
            .map_err(|_| StoreError::Postgres("the connection's thread ended".into()))?;
        rx.recv()
            .map_err(|_| StoreError::Postgres("the connection's thread ended".into()))
    }

    /// Whether the server ended the session; a connection whose thread is
    /// gone is closed too. The client marks itself closed from its own
    /// connection task, which can lag the error a call just returned (the
    /// label writer kept a dead session for one more label, now and then),
    /// so a session not yet marked closed is asked with a round trip:
    /// call this after a failure, not on every call.
    pub fn is_closed(&self) -> bool {
        self.call(|s| {
            s.client.is_closed()
                || s.client
                    .is_valid(std::time::Duration::from_secs(2))
                    .is_err()
        })
        .unwrap_or(true)
    }

    pub fn execute(&self, sql: &str, params: Vec<Value>) -> Result<usize> {
        let sql = sql.to_owned();
        self.call(move |s| {
            let stmt = s.prepare(&sql)?;
            let refs: Vec<&(dyn ToSql + Sync)> =
                params.iter().map(|v| v as &(dyn ToSql + Sync)).collect();
            Ok(s.client.execute(&stmt, &refs).map_err(pg_error)? as usize)
        })?
    }

    pub fn query(&self, sql: &str, params: Vec<Value>) -> Result<Vec<Vec<Value>>> {
        let sql = sql.to_owned();
        self.call(move |s| {
            let stmt = s.prepare(&sql)?;
            // Each row converted as it arrives: collecting the client's
            // rows first held a 1 M-verdict result twice (issue 32 §5).
            use postgres::fallible_iterator::FallibleIterator;
            let mut rows = s.client.query_raw(&stmt, params.iter()).map_err(pg_error)?;
            let mut out = Vec::with_capacity(rows.size_hint().0);
            while let Some(row) = rows.next().map_err(pg_error)? {
                out.push(values_of(&row)?);
            }
            Ok(out)
        })?
    }

    /// Statements without parameters (DDL, BEGIN, COMMIT...).
    pub fn batch(&self, sql: &str) -> Result<()> {
        let sql = sql.to_owned();
        self.call(move |s| s.client.batch_execute(&sql).map_err(pg_error))?
    }
}

impl Session {
    /// The statement for the store's `sql` (translated once, then kept).
    fn prepare(&mut self, sql: &str) -> Result<postgres::Statement> {
        if let Some(s) = self.statements.get(sql) {
            return Ok(s.clone());
        }
        let stmt = self
            .client
            .prepare(&translate::placeholders(sql))
            .map_err(|e| StoreError::Postgres(format!("{} (in: {sql})", describe(&e))))?;
        // A bound on the cache: statements built with format! (a filter's
        // text) would otherwise pile up for the life of the connection.
        if self.statements.len() >= 512 {
            self.statements.clear();
        }
        self.statements.insert(sql.to_owned(), stmt.clone());
        Ok(stmt)
    }
}

/// The server's message (with its detail), not the client's "db error".
/// A refused privilege (a table not granted, a row-level security policy)
/// also says what a team role may write.
fn describe(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => {
            let said = match db.detail() {
                Some(d) => format!("{}: {} ({d})", db.severity(), db.message()),
                None => format!("{}: {}", db.severity(), db.message()),
            };
            if *db.code() == postgres::error::SqlState::INSUFFICIENT_PRIVILEGE {
                format!("{said}; {}", super::super::team_roles::REFUSED)
            } else {
                said
            }
        }
        None => e.to_string(),
    }
}

fn pg_error(e: postgres::Error) -> StoreError {
    StoreError::Postgres(describe(&e))
}

/// A row's columns as values, by the types the server sent.
fn values_of(row: &postgres::Row) -> Result<Vec<Value>> {
    let mut out = Vec::with_capacity(row.len());
    for (i, col) in row.columns().iter().enumerate() {
        let ty = col.type_();
        let get_err =
            |e: postgres::Error| StoreError::Data(format!("column {} ({ty}): {e}", col.name()));
        let v = if *ty == Type::INT8 {
            row.try_get::<_, Option<i64>>(i)
                .map_err(get_err)?
                .map(Value::Int)
        } else if *ty == Type::INT4 {
            row.try_get::<_, Option<i32>>(i)
                .map_err(get_err)?
                .map(|v| Value::Int(v.into()))
        } else if *ty == Type::INT2 {
            row.try_get::<_, Option<i16>>(i)
                .map_err(get_err)?
                .map(|v| Value::Int(v.into()))
        } else if *ty == Type::BOOL {
            row.try_get::<_, Option<bool>>(i)
                .map_err(get_err)?
                .map(|v| Value::Int(v.into()))
        } else if *ty == Type::FLOAT8 {
            row.try_get::<_, Option<f64>>(i)
                .map_err(get_err)?
                .map(Value::Real)
        } else if *ty == Type::FLOAT4 {
            row.try_get::<_, Option<f32>>(i)
                .map_err(get_err)?
                .map(|v| Value::Real(v.into()))
        } else if *ty == Type::BYTEA {
            row.try_get::<_, Option<Vec<u8>>>(i)
                .map_err(get_err)?
                .map(Value::Blob)
        } else if [Type::TEXT, Type::VARCHAR, Type::BPCHAR, Type::NAME].contains(ty) {
            row.try_get::<_, Option<String>>(i)
                .map_err(get_err)?
                .map(Value::Text)
        } else {
            return Err(StoreError::Data(format!(
                "column {} has type {ty}, which the store does not read (a query should cast it: \
                 CAST(SUM(..) AS BIGINT))",
                col.name()
            )));
        };
        out.push(v.unwrap_or(Value::Null));
    }
    Ok(out)
}

/// A value bound as the type the server expects for its place: an integer
/// into INT2/4/8, REAL, BOOL or TEXT; a real into FLOAT4/8; text into any
/// text type; a blob into BYTEA. PostgreSQL is strictly typed, SQLite is
/// not; the store's values are SQLite's, so they adapt here.
impl ToSql for Value {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut bytes::BytesMut,
    ) -> std::result::Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Value::Null => Ok(IsNull::Yes),
            Value::Int(i) => {
                if *ty == Type::INT8 {
                    i.to_sql(ty, out)
                } else if *ty == Type::INT4 {
                    i32::try_from(*i)?.to_sql(ty, out)
                } else if *ty == Type::INT2 {
                    i16::try_from(*i)?.to_sql(ty, out)
                } else if *ty == Type::FLOAT8 {
                    (*i as f64).to_sql(ty, out)
                } else if *ty == Type::FLOAT4 {
                    (*i as f32).to_sql(ty, out)
                } else if *ty == Type::BOOL {
                    (*i != 0).to_sql(ty, out)
                } else {
                    i.to_string().to_sql(ty, out)
                }
            }
            Value::Real(r) => {
                if *ty == Type::FLOAT4 {
                    (*r as f32).to_sql(ty, out)
                } else if *ty == Type::FLOAT8 {
                    r.to_sql(ty, out)
                } else {
                    r.to_string().to_sql(ty, out)
                }
            }
            Value::Text(s) => s.to_sql(ty, out),
            Value::Blob(b) => b.to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    to_sql_checked!();
}

/// The client's configuration and TLS from a URL. libpq's `sslmode`
/// values beyond what the client parses (`verify-ca`, `verify-full`) are
/// taken here: TLS is then required and the server's certificate checked
/// against the web roots and the `sslrootcert` file, if any.
fn config_of(
    url: &str,
) -> Result<(
    postgres::Config,
    Option<tokio_postgres_rustls::MakeRustlsConnect>,
)> {
    let mut mode = String::from("prefer");
    let mut rootcert = None;
    let mut kept = Vec::new();
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("sslmode", v)) => mode = v.to_owned(),
            Some(("sslrootcert", v)) => rootcert = Some(v.to_owned()),
            _ => kept.push(pair),
        }
    }
    let client_mode = match mode.as_str() {
        "disable" => "disable",
        "allow" | "prefer" => "prefer",
        "require" | "verify-ca" | "verify-full" => "require",
        other => {
            return Err(StoreError::Postgres(format!(
                "sslmode={other} is not one of disable, allow, prefer, require, verify-ca, verify-full"
            )));
        }
    };
    kept.push(match client_mode {
        "disable" => "sslmode=disable",
        "prefer" => "sslmode=prefer",
        _ => "sslmode=require",
    });
    let rebuilt = format!("{base}?{}", kept.join("&"));
    let mut config: postgres::Config = rebuilt.parse().map_err(|e: postgres::Error| {
        StoreError::Postgres(format!(
            "{} is not a PostgreSQL URL jury can use: {e}",
            super::super::location::display_url(url)
        ))
    })?;
    notice_a_dead_network(&mut config, &kept);
    if config.get_password().is_none()
        && let Ok(p) = std::env::var("PGPASSWORD")
    {
        config.password(p);
    }
    if client_mode == "disable" {
        return Ok((config, None));
    }
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = rootcert {
        let pem = std::fs::read(&path)
            .map_err(|e| StoreError::Postgres(format!("sslrootcert {path}: {e}")))?;
        for cert in rustls::pki_types::CertificateDer::pem_slice_iter(&pem) {
            let cert =
                cert.map_err(|e| StoreError::Postgres(format!("sslrootcert {path}: {e}")))?;
            roots
                .add(cert)
                .map_err(|e| StoreError::Postgres(format!("sslrootcert {path}: {e}")))?;
        }
    }
    let provider = std::sync::Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| StoreError::Postgres(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok((
        config,
        Some(tokio_postgres_rustls::MakeRustlsConnect::new(tls)),
    ))
}

/// Timeouts that notice a network gone silent (packets dropped, no reset)
/// in about a minute rather than the operating system's defaults (TCP
/// keepalive after two hours, retransmissions for about fifteen minutes),
/// so the label writer says "store unreachable" and keeps labels in the
/// unsaved file instead of waiting. Each is left as the URL sets it.
fn notice_a_dead_network(config: &mut postgres::Config, url_keys: &[&str]) {
    use std::time::Duration;
    let given = |key: &str| {
        url_keys
            .iter()
            .any(|pair| pair.split_once('=').map(|(k, _)| k) == Some(key))
    };
    if !given("connect_timeout") {
        config.connect_timeout(Duration::from_secs(10));
    }
    if !given("keepalives_idle") {
        config.keepalives_idle(Duration::from_secs(30));
    }
    if !given("keepalives_interval") {
        config.keepalives_interval(Duration::from_secs(10));
    }
    if !given("keepalives_retries") {
        config.keepalives_retries(3);
    }
    // Data sent and not acknowledged for this long ends the connection
    // (a query the server is still working on sends nothing: unaffected).
    if !given("tcp_user_timeout") {
        config.tcp_user_timeout(Duration::from_secs(30));
    }
}

#[cfg(test)]
mod tests {
    use crate::store::testing::TestDatabase;

    #[test]
    fn a_silent_network_is_noticed_within_a_minute_unless_the_url_says_otherwise() {
        use std::time::Duration;
        let (c, _) = super::config_of("postgres://ann@db.example/jury").unwrap();
        assert_eq!(c.get_connect_timeout(), Some(&Duration::from_secs(10)));
        assert_eq!(c.get_keepalives_idle(), Duration::from_secs(30));
        assert_eq!(c.get_keepalives_interval(), Some(Duration::from_secs(10)));
        assert_eq!(c.get_keepalives_retries(), Some(3));
        assert_eq!(c.get_tcp_user_timeout(), Some(&Duration::from_secs(30)));
        let (c, _) = super::config_of(
            "postgres://ann@db.example/jury?connect_timeout=3&keepalives_idle=600&tcp_user_timeout=0",
        )
        .unwrap();
        assert_eq!(c.get_connect_timeout(), Some(&Duration::from_secs(3)));
        assert_eq!(c.get_keepalives_idle(), Duration::from_secs(600));
        // 0 in the URL is libpq's "the system's default": left so.
        assert_eq!(c.get_tcp_user_timeout(), None);
    }

    /// The client runs its own runtime: called from inside jury's (an async
    /// task, `spawn_blocking`) it must not panic, because its thread is
    /// its own.
    #[test]
    fn a_store_call_from_inside_a_runtime_works() {
        let Some(db) = TestDatabase::create() else {
            return;
        };
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("runtime");
        let url = db.url.clone();
        let (empty, version) = rt.block_on(async move {
            let store = crate::store::Store::open_postgres(&url).expect("open inside a runtime");
            let empty = store.is_empty().expect("read inside a runtime");
            let version = tokio::task::spawn_blocking(move || store.schema_version())
                .await
                .expect("join")
                .expect("read in spawn_blocking");
            (empty, version)
        });
        assert!(empty);
        assert_eq!(version, crate::store::SCHEMA_VERSION);
    }

    /// Opening a migrated database again migrates nothing and keeps its version.
    #[test]
    fn migrations_run_once_and_record_the_version() {
        let Some(db) = TestDatabase::create() else {
            return;
        };
        let first = db.store();
        assert_eq!(
            first.schema_version().unwrap(),
            crate::store::SCHEMA_VERSION
        );
        drop(first);
        let again = db.store();
        assert_eq!(
            again.schema_version().unwrap(),
            crate::store::SCHEMA_VERSION
        );
        assert!(again.holds_nothing().unwrap());
    }
}

#[cfg(test)]
mod url_tests {
    use super::config_of;

    /// libpq's sslmode values: TLS (through rustls) for require and the
    /// verifying modes, none for disable; anything else is refused by name.
    #[test]
    fn sslmode_chooses_tls_and_bad_modes_are_refused() {
        for (mode, tls) in [
            ("disable", false),
            ("prefer", true),
            ("require", true),
            ("verify-ca", true),
            ("verify-full", true),
        ] {
            let url =
                format!("postgres://ann:pw@db.example/jury?sslmode={mode}&application_name=jury");
            let (config, maker) = config_of(&url).unwrap_or_else(|e| panic!("{mode}: {e}"));
            assert_eq!(maker.is_some(), tls, "{mode}");
            assert_eq!(config.get_dbname(), Some("jury"));
            assert_eq!(config.get_application_name(), Some("jury"));
        }
        let Err(e) = config_of("postgres://ann:secret-pw@db.example/jury?sslmode=sometimes") else {
            panic!("a bad sslmode was taken");
        };
        let said = e.to_string();
        assert!(said.contains("sslmode=sometimes"), "{said}");
        assert!(!said.contains("secret-pw"), "{said}");
        let Err(e) = config_of(
            "postgres://ann:secret-pw@db.example/jury?sslrootcert=/no/such.pem&sslmode=verify-full",
        ) else {
            panic!("a missing root certificate was taken");
        };
        assert!(e.to_string().contains("/no/such.pem"), "{e}");
    }
}
