//! `jury doctor`: checks the config, the store and the judge endpoint, one line
//! per check with ok / warning / problem and what to do. Exit 0 when no
//! check found a problem (warnings alone pass), 1 otherwise. The store and config checks need no key and no
//! network; `--skip-endpoint` leaves the endpoint alone.

mod endpoint;

use super::DoctorArgs;
use super::strings::doctor as say;
use crate::config::{ConfigFile, Overrides, Settings};
use crate::sanitize::one_line;
use endpoint::check_endpoint;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    Ok,
    Skipped,
    Warning,
    Problem,
}

impl Level {
    fn label(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Skipped => "skipped",
            Level::Warning => "warning",
            Level::Problem => "problem",
        }
    }
}

struct Report {
    worst: Level,
}

impl Report {
    fn line(&mut self, level: Level, check: &str, message: &str) {
        self.worst = self.worst.max(level);
        println!(
            "{:<8} {:<10} {}",
            level.label(),
            check,
            one_line(message, 600)
        );
    }
}

pub fn doctor(cli_db: Option<std::path::PathBuf>, a: DoctorArgs) -> anyhow::Result<ExitCode> {
    let mut r = Report { worst: Level::Ok };
    let o = Overrides {
        db: cli_db,
        model: a.model.clone(),
        base_urls: a.base_url.clone(),
        ..Overrides::default()
    };
    let file = check_config(&mut r);
    let s = Settings::resolve_with(&o, file, crate::config::config_path())?;
    check_store(&mut r, &s.db_path);
    if a.skip_endpoint {
        r.line(Level::Skipped, "endpoint", say::ENDPOINT_SKIPPED);
    } else {
        match s.provider() {
            Err(msg) => r.line(Level::Warning, "endpoint", &msg),
            Ok(mut cfg) => {
                cfg.max_retries = 1;
                cfg.backoff_base = Duration::from_millis(200);
                cfg.request_timeout = Duration::from_secs(a.timeout_secs.max(1));
                // The wait for the first token is part of the test answer:
                // doctor's own timeout bounds it, not a shorter cap.
                cfg.idle_timeout = Duration::from_secs(a.timeout_secs.max(1));
                let rt = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()?;
                // Each server of a run is checked on its own, named first.
                let servers = std::mem::take(&mut cfg.servers);
                if servers.len() > 1 {
                    for server in servers {
                        let mut one = cfg.clone();
                        one.base_url = server.base_url;
                        r.line(
                            Level::Ok,
                            "server",
                            &crate::provider::url::shown(&one.base_url),
                        );
                        rt.block_on(check_endpoint(&mut r, one, a.timeout_secs.max(1)));
                    }
                } else {
                    rt.block_on(check_endpoint(&mut r, cfg, a.timeout_secs.max(1)));
                }
            }
        }
    }
    // Warnings say what could be better; only a problem fails the check.
    Ok(if r.worst <= Level::Warning {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The config file: readable, valid, private when it holds the key. Returns
/// what could be read (nothing when the file is bad) so the other checks run.
fn check_config(r: &mut Report) -> ConfigFile {
    let Some(path) = crate::config::config_path() else {
        r.line(Level::Ok, "config", say::NO_CONFIG_DIR);
        return ConfigFile::default();
    };
    if !path.exists() {
        r.line(
            Level::Ok,
            "config",
            &say::no_config_file(&path.display().to_string()),
        );
        return ConfigFile::default();
    }
    match crate::config::load_file(&path) {
        Ok(file) => {
            let key = if file.api_key.is_some() {
                say::KEY_PRIVATE
            } else {
                ""
            };
            r.line(
                Level::Ok,
                "config",
                &say::config_valid(&path.display().to_string(), key),
            );
            file
        }
        Err(e) => {
            r.line(Level::Problem, "config", &say::config_bad(&e.to_string()));
            ConfigFile::default()
        }
    }
}

/// The store: present, healthy (quick_check), WAL, current schema, sane permissions.
/// Read-only: doctor never changes the store.
fn check_store(r: &mut Report, path: &Path) {
    if let crate::store::Location::Postgres(url) = crate::store::Location::from(path) {
        return check_postgres(r, &url);
    }
    let shown = path.display().to_string();
    if !path.exists() {
        let dir_ok = path
            .parent()
            .map(|d| d.as_os_str().is_empty() || d.exists())
            .unwrap_or(true);
        r.line(Level::Warning, "store", &say::no_store(&shown, dir_ok));
        return;
    }
    // Opening a FIFO would block doctor for ever; a device is no store.
    if let Ok(m) = std::fs::metadata(path)
        && !m.is_file()
    {
        let e = crate::store::StoreError::NotAFile {
            path: path.to_path_buf(),
            kind: crate::readfile::kind_of(m.file_type()),
        };
        r.line(Level::Problem, "store", &e.to_string());
        return;
    }
    let flags =
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = match rusqlite::Connection::open_with_flags(path, flags) {
        Ok(c) => c,
        Err(e) => {
            r.line(
                Level::Problem,
                "store",
                &say::cannot_open(&shown, &crate::store::StoreError::from(e).to_string()),
            );
            return;
        }
    };
    // Never checkpoint into (and delete the -wal of) a file that may be damaged.
    let _ = conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    );
    let _ = conn.busy_timeout(Duration::from_secs(2));
    let q = |sql: &str| -> Result<String, crate::store::StoreError> {
        conn.query_row(sql, [], |row| {
            row.get::<_, rusqlite::types::Value>(0).map(|v| match v {
                rusqlite::types::Value::Integer(i) => i.to_string(),
                rusqlite::types::Value::Text(t) => t,
                other => format!("{other:?}"),
            })
        })
        .map_err(crate::store::StoreError::from)
    };
    match q("PRAGMA quick_check") {
        Ok(s) if s == "ok" => r.line(Level::Ok, "store", &say::integrity_ok(&shown)),
        Ok(s) => r.line(Level::Problem, "store", &say::damaged(&shown, &s)),
        Err(e) => {
            r.line(
                Level::Problem,
                "store",
                &say::store_error(&shown, &e.to_string()),
            );
            return;
        }
    }
    match q("PRAGMA journal_mode") {
        Ok(m) if m == "wal" => r.line(Level::Ok, "store", say::WAL),
        Ok(m) => r.line(Level::Warning, "store", &say::not_wal(&m)),
        Err(e) => r.line(Level::Problem, "store", &e.to_string()),
    }
    let supported = crate::store::SCHEMA_VERSION;
    match q("PRAGMA user_version").map(|v| v.parse::<i64>().unwrap_or(-1)) {
        Ok(v) if v == supported => r.line(Level::Ok, "store", &say::schema_current(v)),
        Ok(v) if v < supported => r.line(Level::Warning, "store", &say::schema_older(v, supported)),
        Ok(v) => r.line(Level::Problem, "store", &say::schema_newer(v, supported)),
        Err(e) => r.line(Level::Problem, "store", &e.to_string()),
    }
    drop(conn);
    check_permissions(r, path);
}

/// A PostgreSQL store: reachable, and its schema version (read without
/// migrating: doctor never changes the store). The URL is shown without
/// its password.
fn check_postgres(r: &mut Report, url: &str) {
    let shown = crate::store::location::display_url(url);
    let supported = crate::store::SCHEMA_VERSION;
    match crate::store::Store::postgres_schema_version(url) {
        Err(e) => r.line(
            Level::Problem,
            "store",
            &say::cannot_open(&shown, &e.to_string()),
        ),
        Ok(v) => {
            r.line(Level::Ok, "store", &say::postgres_reachable(&shown));
            match v {
                v if v == supported => r.line(Level::Ok, "store", &say::schema_current(v)),
                v if v < supported => {
                    r.line(Level::Warning, "store", &say::schema_older(v, supported))
                }
                v => r.line(Level::Problem, "store", &say::schema_newer(v, supported)),
            }
            check_role(r, url);
        }
    }
}

/// Who this connection writes as on a team's store, and whether the group
/// roles a team needs exist (issue 32; README "A team on one store").
fn check_role(r: &mut Report, url: &str) {
    match crate::store::Store::postgres_role(url) {
        Err(e) => r.line(Level::Problem, "store", &e.to_string()),
        Ok(role) => {
            let name = one_line(&role.name, 60);
            r.line(
                Level::Ok,
                "store",
                &if role.administers {
                    say::role_administers(&name)
                } else {
                    say::role_of_team(&name)
                },
            );
            if !role.groups_missing.is_empty() {
                r.line(
                    Level::Warning,
                    "store",
                    &say::groups_missing(&role.groups_missing.join(", ")),
                );
            }
        }
    }
}

#[cfg(unix)]
fn check_permissions(r: &mut Report, path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let shown = path.display().to_string();
    let mode = match std::fs::metadata(path) {
        Ok(m) => m.permissions().mode() & 0o777,
        Err(e) => {
            r.line(
                Level::Problem,
                "store",
                &say::store_error(&shown, &e.to_string()),
            );
            return;
        }
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let writable = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_encoded_bytes())
            // SAFETY: access(2) on a NUL-terminated path we own.
            .map(|c| unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0)
            .unwrap_or(false)
    };
    if mode & 0o022 != 0 {
        r.line(
            Level::Problem,
            "store",
            &say::others_can_write(&shown, mode),
        );
    } else if !writable(path) || !writable(dir) {
        r.line(Level::Problem, "store", &say::read_only(&shown, mode));
    } else {
        r.line(Level::Ok, "store", &say::permissions_ok(mode));
    }
}

#[cfg(not(unix))]
fn check_permissions(r: &mut Report, _path: &Path) {
    r.line(Level::Skipped, "store", say::PERMISSIONS_UNCHECKED);
}
