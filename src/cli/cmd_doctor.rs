//! `jury doctor`: checks the config, the store and the judge endpoint, one line
//! per check with ok / warning / problem and what to do. Exit 0 when no
//! check found a problem (warnings alone pass), 1 otherwise. The store and config checks need no key and no
//! network; `--skip-endpoint` leaves the endpoint alone.

use super::DoctorArgs;
use crate::config::{ConfigFile, Overrides, Settings};
use crate::provider::{
    AnswerPath, ChatCall, Client, ProviderConfig, ProviderError, StreamFrame, errtext,
};
use crate::sanitize::one_line;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

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

/// The `/models` URL next to the chat-completions URL.
fn models_url(client: &Client) -> Option<reqwest::Url> {
    let mut url = reqwest::Url::parse(client.endpoint()).ok()?;
    let path = url.path().trim_end_matches('/');
    let base = path
        .strip_suffix("/chat/completions")
        .unwrap_or(path)
        .to_string();
    url.set_path(&format!("{base}/models"));
    Some(url)
}

async fn check_endpoint(r: &mut Report, cfg: ProviderConfig, timeout_secs: u64) {
    let key = cfg.api_key.clone().filter(|k| !k.is_empty());
    let client = match Client::new(cfg.clone()) {
        Ok(c) => c,
        Err(e) => {
            r.line(
                Level::Problem,
                "endpoint",
                &format!("{e}; check OPENAI_BASE_URL"),
            );
            return;
        }
    };
    let where_ = errtext::clean(client.endpoint(), key.as_ref());
    let is_openai = client.endpoint().starts_with("https://api.openai.com/");
    r.line(
        if key.is_none() && is_openai {
            Level::Problem
        } else {
            Level::Ok
        },
        "key",
        match (&key, is_openai) {
            (Some(_), _) => "an API key is set (not shown)",
            (None, true) => "no API key: the OpenAI API needs one; set OPENAI_API_KEY",
            (None, false) => "no API key set (fine for local servers)",
        },
    );

    // Reachable, and does it list the model?
    let Some(models) = models_url(&client) else {
        r.line(
            Level::Problem,
            "endpoint",
            &format!("cannot build the models URL from {where_}"),
        );
        return;
    };
    let mut http =
        reqwest::Client::builder().timeout(cfg.request_timeout.min(Duration::from_secs(30)));
    if matches!(models.host_str(), Some("127.0.0.1" | "localhost" | "[::1]")) {
        http = http.no_proxy();
    }
    let Ok(http) = http.build() else {
        r.line(Level::Problem, "endpoint", "cannot set up HTTP");
        return;
    };
    let mut req = http.get(models.clone());
    if let Some(k) = &key {
        req = req.bearer_auth(k.expose());
    }
    match req.send().await {
        Err(e) => {
            let e = e.without_url();
            let mut text = e.to_string();
            let mut src = std::error::Error::source(&e);
            while let Some(s) = src {
                text.push_str(": ");
                text.push_str(&s.to_string());
                src = s.source();
            }
            r.line(
                Level::Problem,
                "endpoint",
                &format!(
                    "cannot reach {where_}: {}; is the server running? check OPENAI_BASE_URL",
                    errtext::clean(&text, key.as_ref())
                ),
            );
            return;
        }
        Ok(resp) => {
            let status = resp.status().as_u16();
            let ct = resp
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string);
            let body = resp.bytes().await.unwrap_or_default();
            match status {
                200 => {
                    let ids: Vec<String> = serde_json::from_slice::<serde_json::Value>(&body)
                        .ok()
                        .and_then(|v| v.get("data").and_then(|d| d.as_array()).cloned())
                        .unwrap_or_default()
                        .iter()
                        .filter_map(|m| m.get("id").and_then(|i| i.as_str()).map(str::to_string))
                        .collect();
                    if ids.iter().any(|i| i == &cfg.model) {
                        r.line(
                            Level::Ok,
                            "endpoint",
                            &format!("{where_} is reachable and lists the model '{}'", cfg.model),
                        );
                    } else {
                        let some: Vec<&str> = ids.iter().take(8).map(String::as_str).collect();
                        r.line(
                            Level::Warning,
                            "endpoint",
                            &format!(
                                "{where_} is reachable but does not list the model '{}' ({} model(s): {}{}); pick one with --model or JURY_MODEL",
                                cfg.model,
                                ids.len(),
                                some.join(", "),
                                if ids.len() > some.len() { ", …" } else { "" }
                            ),
                        );
                    }
                }
                401 | 403 => {
                    r.line(
                        Level::Problem,
                        "endpoint",
                        &format!(
                            "the key was refused (HTTP {status}): {}; check OPENAI_API_KEY",
                            errtext::body_message(&body, ct.as_deref(), key.as_ref())
                        ),
                    );
                    return;
                }
                _ => r.line(
                    Level::Warning,
                    "endpoint",
                    &format!(
                        "{where_} is reachable but GET /models answered HTTP {status} ({}); some servers have no model list",
                        errtext::body_message(&body, ct.as_deref(), key.as_ref())
                    ),
                ),
            }
        }
    }

    // A tiny forced tool call of the real kind (an AwAg Mode 2 request for one
    // made-up item), streamed; which structured mode does it end up in?
    let call = match probe_call() {
        Ok(c) => c,
        Err(e) => {
            r.line(
                Level::Problem,
                "judge",
                &format!("cannot build the test request: {e}"),
            );
            return;
        }
    };
    let started = Instant::now();
    let mut fragments = 0usize;
    let mut retries = Vec::new();
    let cancel = tokio_util::sync::CancellationToken::new();
    let result = client
        .complete(&call, &cancel, &mut |f| match f {
            StreamFrame::Content(_) | StreamFrame::ToolArgs { .. } => fragments += 1,
            StreamFrame::Retrying { reason, .. } => retries.push(reason),
        })
        .await;
    match result {
        Err(e) => {
            let text = e.to_string();
            let own_timeout = text.contains("request timeout") || text.contains("went silent");
            let msg = match &e {
                _ if own_timeout => format!(
                    "no answer within doctor's own {timeout_secs}s timeout ({text}); the server may just be slow (a small local model can take a minute per request): try --timeout-secs 300"
                ),
                ProviderError::Truncated { .. } => {
                    format!("the server cut the test answer off before it finished: {text}")
                }
                _ => format!("a test judgement failed: {text}"),
            };
            r.line(Level::Problem, "judge", &msg);
        }
        Ok(c) => {
            let answer_ok = serde_json::from_str::<serde_json::Value>(c.answer_text())
                .ok()
                .is_some_and(|v| v.get("resultItems").is_some());
            let secs = started.elapsed().as_secs_f64();
            match (c.path, answer_ok) {
                (AnswerPath::ToolCall, true) => r.line(
                    Level::Ok,
                    "judge",
                    &format!(
                        "a forced tool call works: the server answered with a real tool call ({secs:.1}s, {} attempt(s))",
                        c.attempts
                    ),
                ),
                (AnswerPath::IgnoredToolChoice, true) => r.line(
                    Level::Warning,
                    "judge",
                    "JSON in content: the server ignored tool_choice (llama.cpp does with an object tool_choice); use --structured json_schema (jury run --structured auto switches by itself and remembers it)",
                ),
                (AnswerPath::ResponseFormat, true) => r.line(
                    Level::Warning,
                    "judge",
                    &format!(
                        "tool calls did not work; {} does ({secs:.1}s): use --structured {} (auto finds it too); vLLM needs --enable-auto-tool-choice for tools, llama.cpp --jinja",
                        crate::provider::structured::mode_name(c.tool_mode),
                        c.tool_mode.as_str()
                    ),
                ),
                _ => r.line(
                    Level::Problem,
                    "judge",
                    &format!(
                        "the test answer was not a valid evaluation (finish reason {}): {}",
                        c.finish_reason.as_ref().map_or("none", |f| f.as_str()),
                        errtext::clean(c.answer_text(), key.as_ref())
                    ),
                ),
            }
            if fragments > 1 {
                r.line(
                    Level::Ok,
                    "streaming",
                    &format!("the answer streamed in {fragments} fragments"),
                );
            } else {
                r.line(
                    Level::Warning,
                    "streaming",
                    "the answer arrived in one piece: the server or a proxy does not stream; texts will not appear while they arrive",
                );
            }
            r.line(
                Level::Ok,
                "mode",
                &format!(
                    "structured answers via {} ({})",
                    crate::provider::structured::mode_name(client.tool_mode()),
                    client.tool_mode().as_str()
                ),
            );
        }
    }
    for reason in retries.iter().take(3) {
        r.line(
            Level::Warning,
            "judge",
            &format!(
                "needed a retry or fallback: {}",
                errtext::clean(reason, key.as_ref())
            ),
        );
    }
}

/// One made-up item judged in Mode 2 with the embedded prompts.
fn probe_call() -> Result<ChatCall, String> {
    use crate::import::{Record, record};
    use serde_json::json;
    let item = match record(
        &json!({
            "itemId": "doctor-1", "sent": "2026-01-05T09:00:00Z",
            "title": "Team lunch on Friday",
            "summary": "Hi all, we are booking a table for Friday at 12:30. Reply if you can come.",
            "source": {"type": "email", "originator": "office@example.com", "channel": "work-mail"},
            "classifications": [{"name": "work-pers", "desc": "Is this item about my work or my personal life?",
                                 "available": ["work", "personal"], "selected": "work"}]
        }),
        "doctor",
    ) {
        Ok(Record::Item(i)) => i,
        Ok(_) => return Err("not an item".into()),
        Err(e) => return Err(e.message),
    };
    let persona = crate::domain::Persona {
        id: "doctor".into(),
        name: "Alex".into(),
        definition: json!({"type": "Persona", "does": "I work in an office and read my mail every morning."}),
    };
    let perspective = crate::domain::Perspective {
        id: "classification".into(),
        name: "Classification".into(),
        text: "Has this item been correctly classified?".into(),
    };
    crate::protocol::awag::preview(
        std::sync::Arc::new(crate::prompt::PromptSet::embedded()),
        crate::domain::Mode::Two,
        &persona,
        &[perspective],
        &item,
        &crate::protocol::new_boundary(),
    )
}
