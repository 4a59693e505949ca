//! `jury doctor`: checks the config, the store and the judge endpoint, one line
//! per check with ok / warning / problem and what to do. Exit 0 when no
//! check found a problem (warnings alone pass), 1 otherwise. The store and config checks need no key and no
//! network; `--skip-endpoint` leaves the endpoint alone.

mod endpoint;

use super::DoctorArgs;
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
        ..Overrides::default()
    };
    let file = check_config(&mut r);
    let s = Settings::resolve_with(&o, file, crate::config::config_path())?;
    check_store(&mut r, &s.db_path);
    if a.skip_endpoint {
        r.line(Level::Skipped, "endpoint", "not checked (--skip-endpoint)");
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
                rt.block_on(check_endpoint(&mut r, cfg, a.timeout_secs.max(1)));
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
        r.line(
            Level::Ok,
            "config",
            "no config directory on this platform; settings come from flags and the environment",
        );
        return ConfigFile::default();
    };
    if !path.exists() {
        r.line(
            Level::Ok,
            "config",
            &format!(
                "no config file at {} (optional); settings come from flags and the environment",
                path.display()
            ),
        );
        return ConfigFile::default();
    }
    match crate::config::load_file(&path) {
        Ok(file) => {
            let key = if file.api_key.is_some() {
                " holds api_key and is private (0600)"
            } else {
                ""
            };
            r.line(
                Level::Ok,
                "config",
                &format!("{} is valid{key}", path.display()),
            );
            file
        }
        Err(e) => {
            r.line(
                Level::Problem,
                "config",
                &format!("{e}; fix the file (the other checks run without it)"),
            );
            ConfigFile::default()
        }
    }
}

/// The store: present, healthy (quick_check), WAL, current schema, sane permissions.
/// Read-only: doctor never changes the store.
fn check_store(r: &mut Report, path: &Path) {
    let shown = path.display().to_string();
    if !path.exists() {
        let dir_ok = path
            .parent()
            .map(|d| d.as_os_str().is_empty() || d.exists())
            .unwrap_or(true);
        r.line(
            Level::Warning,
            "store",
            &format!(
                "no store yet at {shown}; it is created on first use (e.g. jury import sample-data/){}",
                if dir_ok {
                    ""
                } else {
                    " together with its directory"
                }
            ),
        );
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
                &format!("cannot open {shown}: {}", crate::store::StoreError::from(e)),
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
        Ok(s) if s == "ok" => r.line(Level::Ok, "store", &format!("{shown}: integrity ok")),
        Ok(s) => r.line(
            Level::Problem,
            "store",
            &format!(
                "{shown} is damaged ({s}); do not write to it: copy it together with its -wal file and restore from a backup"
            ),
        ),
        Err(e) => {
            r.line(Level::Problem, "store", &format!("{shown}: {e}"));
            return;
        }
    }
    match q("PRAGMA journal_mode") {
        Ok(m) if m == "wal" => r.line(Level::Ok, "store", "journal mode WAL"),
        Ok(m) => r.line(
            Level::Warning,
            "store",
            &format!("journal mode is {m}, not WAL; any jury command that writes switches it back"),
        ),
        Err(e) => r.line(Level::Problem, "store", &e.to_string()),
    }
    let supported = crate::store::SCHEMA_VERSION;
    match q("PRAGMA user_version").map(|v| v.parse::<i64>().unwrap_or(-1)) {
        Ok(v) if v == supported => r.line(Level::Ok, "store", &format!("schema version {v}")),
        Ok(v) if v < supported => r.line(
            Level::Warning,
            "store",
            &format!(
                "schema version {v}; the next jury command that opens it upgrades it to {supported}"
            ),
        ),
        Ok(v) => r.line(
            Level::Problem,
            "store",
            &format!(
                "schema version {v} is newer than this jury understands ({supported}); upgrade jury"
            ),
        ),
        Err(e) => r.line(Level::Problem, "store", &e.to_string()),
    }
    drop(conn);
    check_permissions(r, path);
}

#[cfg(unix)]
fn check_permissions(r: &mut Report, path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let shown = path.display().to_string();
    let mode = match std::fs::metadata(path) {
        Ok(m) => m.permissions().mode() & 0o777,
        Err(e) => {
            r.line(Level::Problem, "store", &format!("{shown}: {e}"));
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
            &format!(
                "{shown} can be changed by other users (mode {mode:o}); run: chmod 600 {shown}"
            ),
        );
    } else if !writable(path) || !writable(dir) {
        r.line(
            Level::Problem,
            "store",
            &format!(
                "{shown} or its directory is read-only for you (mode {mode:o}); jury needs to write the file and its -wal/-shm files next to it"
            ),
        );
    } else {
        r.line(
            Level::Ok,
            "store",
            &format!("permissions: mode {mode:o}, writable by you only"),
        );
    }
}

#[cfg(not(unix))]
fn check_permissions(r: &mut Report, _path: &Path) {
    r.line(
        Level::Skipped,
        "store",
        "permissions are not checked on this platform",
    );
}
