//! Settings: flags override environment, which overrides `config.toml` in the
//! platform config directory, which overrides defaults.
//!
//! The one place configuration is read: the environment (clap only parses
//! flags), `config.toml` and `prices.toml`. A bad file is an error naming the
//! file, the line and, where it is safe to show, the key.

use crate::provider::{ProviderConfig, Secret};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The model used when nothing else names one.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";

/// `config.toml` as written by a person; every field optional.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// One base URL, or a list of them: a run spreads its requests over
    /// all (`URL#8`: that server takes 8 at once).
    pub base_url: Option<BaseUrls>,
    /// Accepted, but the file must then be private (0600): checked on load.
    /// A [`Secret`], so a `{:?}` of the config never shows it.
    pub api_key: Option<Secret>,
    pub model: Option<String>,
    pub db: Option<PathBuf>,
    pub prompts: Option<PathBuf>,
    pub theme: Option<String>,
    pub who: Option<String>,
    pub temperature: Option<f64>,
    /// Seconds an answer may stay silent (keep-alive comments do not count).
    pub idle_timeout: Option<f64>,
    /// Seconds one request may take in all.
    pub request_timeout: Option<f64>,
    /// `auto`, `tools`, `json_schema` or `json`.
    pub structured: Option<String>,
    /// Answer tokens allowed per entry of a request.
    pub max_tokens_per_entry: Option<u32>,
    /// Largest answer read, in bytes.
    pub max_answer_bytes: Option<usize>,
    /// How verdicts get a confidence.
    pub confidence: Option<ConfidenceChoice>,
    /// Where the workbench's focus goes after a label.
    pub auto_advance: Option<AutoAdvance>,
    /// Seconds between looks at a batch the workbench sent.
    pub batch_poll: Option<u64>,
    /// The tags a label may carry (why the judge was wrong); default
    /// [`DEFAULT_TAGS`].
    pub tags: Option<Vec<String>>,
    /// Minutes an item opened from one's queue stays leased (default 5).
    pub lease_minutes: Option<u64>,
    /// Krippendorff's α among people below which `jury report`, `estimate`
    /// and `trust` warn that the labels are too uncertain to calibrate a
    /// judge on (default [`crate::report::people::DEFAULT_MIN_HUMAN_AGREEMENT`]).
    pub min_human_agreement: Option<f64>,
}

/// The tags a label may carry when config.toml names none.
pub const DEFAULT_TAGS: &[&str] = &["persona-misread", "injection-worked", "ignored-context"];

/// Why a tag name cannot be one: tags are stored comma-separated and typed
/// as `tag:NAME` search terms, so a name is one word without commas.
pub fn bad_tag_name(t: &str) -> Option<String> {
    if t.is_empty() {
        return Some("an empty tag".into());
    }
    if t.chars()
        .any(|c| c == ',' || c.is_whitespace() || c.is_control())
    {
        return Some(format!(
            "tag '{}' holds a comma or a space (a tag is one word)",
            crate::sanitize::one_line(t, 40)
        ));
    }
    None
}

/// Checks tags against the configured set: the first one outside it, with
/// the set named.
pub fn check_tags(tags: &[String], set: &[String]) -> Result<(), String> {
    match tags.iter().find(|t| !set.contains(t)) {
        Some(t) => Err(format!(
            "tag '{}' is not in the configured set ({}); config.toml's `tags` sets it",
            crate::sanitize::one_line(t, 40),
            set.join(", ")
        )),
        None => Ok(()),
    }
}

/// `auto_advance` in `config.toml`: where the workbench's focus goes after
/// a label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AutoAdvance {
    /// To the next row of the item without your label, never past the
    /// item's last row (no later row needs you: the focus stays).
    Row,
    /// As `row`, then on to the next listed item that still needs you. The
    /// default: over a 40-item session it costs one key per label, `row`
    /// one `j` more per item (1.49 keys per label at 2 rows an item, 1.20
    /// at 5; `update::tests::keys_per_label`).
    #[default]
    Item,
    /// Where it was.
    Off,
}

impl AutoAdvance {
    pub fn as_str(self) -> &'static str {
        match self {
            AutoAdvance::Row => "row",
            AutoAdvance::Item => "item",
            AutoAdvance::Off => "off",
        }
    }
}

/// `base_url` in `config.toml`: one URL or a list.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum BaseUrls {
    One(String),
    Many(Vec<String>),
}

impl BaseUrls {
    pub fn into_vec(self) -> Vec<String> {
        match self {
            BaseUrls::One(s) => vec![s],
            BaseUrls::Many(v) => v,
        }
    }
}

/// `confidence` in `config.toml` (and `--confidence`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConfidenceChoice {
    Logprobs,
    Repeats,
    Off,
}

impl ConfidenceChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            ConfidenceChoice::Logprobs => "logprobs",
            ConfidenceChoice::Repeats => "repeats",
            ConfidenceChoice::Off => "off",
        }
    }
}

/// `structured` in `config.toml` (and `--structured`): `auto`, or the one
/// path to ask on. A name jury does not know is kept as given, refused
/// where it is used (the workbench warns without echoing the file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StructuredChoice {
    Auto,
    Path(crate::provider::ToolMode),
    Unknown(String),
}

impl StructuredChoice {
    pub fn parse(s: &str) -> StructuredChoice {
        match s {
            "auto" => StructuredChoice::Auto,
            other => crate::provider::ToolMode::parse(other).map_or_else(
                || StructuredChoice::Unknown(other.to_string()),
                StructuredChoice::Path,
            ),
        }
    }
}

/// What the command line said (None = not given).
#[derive(Debug, Default, Clone)]
pub struct Overrides {
    pub db: Option<PathBuf>,
    pub model: Option<String>,
    pub prompts: Option<PathBuf>,
    pub theme: Option<String>,
    pub who: Option<String>,
    /// `--base-url`, each as given (`URL` or `URL#N`).
    pub base_urls: Vec<String>,
}

impl Overrides {
    /// Only who labels (`--who`).
    pub fn who(who: &Option<String>) -> Overrides {
        Overrides {
            who: who.clone(),
            ..Default::default()
        }
    }

    /// The judge's model and prompt set (`--model`, `--prompts`).
    pub fn judge(model: &Option<String>, prompts: &Option<PathBuf>) -> Overrides {
        Overrides {
            model: model.clone(),
            prompts: prompts.clone(),
            ..Default::default()
        }
    }
}

#[derive(Debug, Clone)]
pub struct Settings {
    pub db_path: PathBuf,
    /// The first server's base URL (as given, without a `#N`).
    pub base_url: Option<String>,
    /// Every server as given (`URL` or `URL#N`): `--base-url`, else
    /// `OPENAI_BASE_URL`, else the config's `base_url`.
    pub base_urls: Vec<String>,
    pub api_key: Option<Secret>,
    pub model: String,
    pub prompts_dir: Option<PathBuf>,
    pub theme: String,
    /// Who labels (`--who`, `JURY_USER`, config, else the login name).
    pub who: String,
    /// Where `who` was named explicitly (`--who`, `JURY_USER`, the config
    /// file's who); None when it was only taken from the login. On a team's
    /// PostgreSQL store an explicit name must be the role connected as.
    pub who_named_by: Option<&'static str>,
    pub temperature: Option<f64>,
    pub idle_timeout: Option<f64>,
    pub request_timeout: Option<f64>,
    /// `structured` in config.toml, read at load.
    pub structured: Option<StructuredChoice>,
    pub max_tokens_per_entry: Option<u32>,
    pub max_answer_bytes: Option<usize>,
    /// None: off.
    pub confidence: Option<ConfidenceChoice>,
    /// Where the workbench's focus goes after a label (default `row`).
    pub auto_advance: AutoAdvance,
    /// Seconds between looks at a batch the workbench sent (default 30).
    pub batch_poll: u64,
    /// The tags a label may carry (config.toml `tags`, else [`DEFAULT_TAGS`]).
    pub tags: Vec<String>,
    /// Minutes an item opened from one's queue stays leased (config
    /// `lease_minutes`, default 5, at least 1).
    pub lease_minutes: u64,
    /// People's α below which jury warns (config.toml `min_human_agreement`).
    pub min_human_agreement: f64,
    pub config_path: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {message}")]
    File { path: PathBuf, message: String },
    #[error("no database location: set --db or JURY_DB (the platform data directory is unknown)")]
    NoDataDir,
    /// The person's name cannot be used (blank, or holding `:`).
    #[error("{0}")]
    Who(String),
}

pub fn config_dir() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "jury").map(|d| d.config_dir().to_path_buf())
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl Settings {
    pub fn resolve(o: &Overrides) -> Result<Settings, ConfigError> {
        let config_path = config_path();
        let file = match &config_path {
            Some(p) if p.exists() => load_file(p)?,
            _ => ConfigFile::default(),
        };
        Settings::resolve_with(o, file, config_path)
    }

    /// As [`Settings::resolve`] with the config file already read (or left out:
    /// `jury doctor` reports a bad config file and carries on without it).
    pub fn resolve_with(
        o: &Overrides,
        file: ConfigFile,
        config_path: Option<PathBuf>,
    ) -> Result<Settings, ConfigError> {
        let db_path =
            o.db.clone()
                .or_else(|| env("JURY_DB").map(PathBuf::from))
                .or(file.db.clone())
                .or_else(crate::store::default_path)
                .ok_or(ConfigError::NoDataDir)?;
        let who = o
            .who
            .clone()
            .map(|w| (w, "--who"))
            .or_else(|| env("JURY_USER").map(|w| (w, "JURY_USER")))
            .or(file.who.clone().map(|w| (w, "the config file's who")))
            .or_else(|| env("USER").map(|w| (w, "USER")))
            .or_else(|| env("USERNAME").map(|w| (w, "USERNAME")))
            .or_else(|| login_name().map(|w| (w, "the login name")))
            .unwrap_or_else(|| ("me".into(), ""));
        // Every label and mark is stored under this name: refused here,
        // where it enters, rather than found colliding in an export.
        let who_named_by = ["--who", "JURY_USER", "the config file's who"]
            .into_iter()
            .find(|named| *named == who.1);
        let who = match crate::domain::refused_who(&who.0) {
            None => who.0,
            Some(why) => {
                return Err(ConfigError::Who(format!(
                    "{why} ({}; set --who or JURY_USER)",
                    who.1
                )));
            }
        };
        let base_urls: Vec<String> = if !o.base_urls.is_empty() {
            o.base_urls.clone()
        } else if let Some(u) = env("OPENAI_BASE_URL") {
            vec![u]
        } else {
            file.base_url
                .clone()
                .map(BaseUrls::into_vec)
                .unwrap_or_default()
        };
        let base_urls: Vec<String> = base_urls
            .into_iter()
            .filter(|u| !u.trim().is_empty())
            .collect();
        Ok(Settings {
            db_path,
            base_url: base_urls.first().map(|u| {
                crate::provider::ServerSpec::parse(u)
                    .map(|s| s.base_url)
                    .unwrap_or_else(|_| u.clone())
            }),
            base_urls,
            api_key: env("OPENAI_API_KEY")
                .map(Secret::new)
                .or(file.api_key.clone()),
            model: o
                .model
                .clone()
                .or_else(|| env("JURY_MODEL"))
                .or(file.model.clone())
                .unwrap_or_else(|| DEFAULT_MODEL.into()),
            prompts_dir: o.prompts.clone().or(file.prompts.clone()),
            theme: o
                .theme
                .clone()
                .or_else(|| env("JURY_THEME"))
                .or(file.theme.clone())
                .unwrap_or_else(|| "dark".into()),
            who,
            who_named_by,
            temperature: file.temperature,
            idle_timeout: file.idle_timeout,
            request_timeout: file.request_timeout,
            structured: file.structured.as_deref().map(StructuredChoice::parse),
            max_tokens_per_entry: file.max_tokens_per_entry,
            max_answer_bytes: file.max_answer_bytes,
            confidence: file.confidence,
            auto_advance: file.auto_advance.unwrap_or_default(),
            batch_poll: file.batch_poll.unwrap_or(30).max(1),
            lease_minutes: file.lease_minutes.unwrap_or(5).max(1),
            tags: file
                .tags
                .clone()
                .unwrap_or_else(|| DEFAULT_TAGS.iter().map(|t| t.to_string()).collect()),
            min_human_agreement: file
                .min_human_agreement
                .unwrap_or(crate::report::people::DEFAULT_MIN_HUMAN_AGREEMENT),
            config_path,
        })
    }

    /// The endpoint to judge with, or a message saying how to configure one.
    pub fn provider(&self) -> Result<ProviderConfig, String> {
        let base = self.base_url.clone().or_else(|| {
            // A key alone means the official endpoint.
            self.api_key
                .as_ref()
                .map(|_| "https://api.openai.com/v1".to_string())
        });
        let Some(base) = base else {
            return Err(NO_ENDPOINT.to_string());
        };
        let mut cfg = ProviderConfig::new(base, self.model.clone());
        let servers = self
            .base_urls
            .iter()
            .map(|u| crate::provider::ServerSpec::parse(u))
            .collect::<Result<Vec<_>, _>>()?;
        // One server at the run's concurrency needs no list.
        if servers.len() > 1 || servers.iter().any(|s| s.concurrency.is_some()) {
            cfg.servers = servers;
        }
        cfg.api_key = self.api_key.clone();
        cfg.temperature = self.temperature;
        if let Some(t) = self.idle_timeout.and_then(seconds) {
            cfg.idle_timeout = t;
        }
        if let Some(t) = self.request_timeout.and_then(seconds) {
            cfg.request_timeout = t;
        }
        if let Some(b) = self.max_answer_bytes.filter(|b| *b > 0) {
            cfg.max_answer_bytes = b;
        }
        cfg.logprobs = self.confidence == Some(ConfidenceChoice::Logprobs);
        Ok(cfg)
    }
}

/// A positive, finite number of seconds as a duration.
pub fn seconds(s: f64) -> Option<std::time::Duration> {
    (s.is_finite() && s > 0.0 && s < 1e9).then(|| std::time::Duration::from_secs_f64(s))
}

/// Shown wherever a judge is needed and none is configured.
pub const NO_ENDPOINT: &str = "no judge endpoint configured: set OPENAI_BASE_URL (e.g. http://127.0.0.1:11434/v1 for Ollama) and, for hosted APIs, OPENAI_API_KEY; pick the model with --model or JURY_MODEL";

/// `JURY_CONFIG`, else `config.toml` in the platform config directory.
pub fn config_path() -> Option<PathBuf> {
    env("JURY_CONFIG")
        .map(PathBuf::from)
        .or_else(|| config_dir().map(|d| d.join("config.toml")))
}

/// Reads and checks a config file: a file that holds `api_key` must be private (0600).
pub fn load_file(path: &Path) -> Result<ConfigFile, ConfigError> {
    let err = |message: String| ConfigError::File {
        path: path.to_path_buf(),
        message,
    };
    let text = crate::readfile::read_to_string(path).map_err(|e| err(e.to_string()))?;
    // toml's own message quotes the offending line, which may hold the key.
    let file: ConfigFile =
        toml::from_str(&text).map_err(|e| err(locate(&text, &e, Some(CONFIG_KEYS))))?;
    if let Some(why) = file.tags.iter().flatten().find_map(|t| bad_tag_name(t)) {
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with("tags"))
            .map_or(String::new(), |n| format!("line {}: ", n + 1));
        return Err(err(format!("{line}tags: {why}")));
    }
    if let Some(m) = file.min_human_agreement
        && !(-1.0..=1.0).contains(&m)
    {
        let line = text
            .lines()
            .position(|l| l.trim_start().starts_with("min_human_agreement"))
            .map_or(String::new(), |n| format!("line {}: ", n + 1));
        return Err(err(format!(
            "{line}min_human_agreement: {m} is not an agreement (expected a Krippendorff's α from -1 to 1, e.g. 0.667)"
        )));
    }
    #[cfg(unix)]
    if file.api_key.is_some() {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path)
            .map_err(|e| err(e.to_string()))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            return Err(err(format!(
                "holds api_key but is readable by others (mode {:o}); run: chmod 600 {}",
                mode & 0o777,
                path.display()
            )));
        }
    }
    Ok(file)
}

/// A TOML error as `line L, column C: what`, without the file's text: toml's
/// own message quotes the offending line, and a serde message quotes the
/// value (either may be an API key). Quoted pieces before "expected" come
/// from the file and are hidden; what follows "expected" is ours.
pub fn toml_error(text: &str, e: &toml::de::Error) -> String {
    locate(text, e, None)
}

/// The keys `config.toml` knows. Only these are named in an error: an
/// unknown key may be a pasted secret.
const CONFIG_KEYS: &[&str] = &[
    "base_url",
    "api_key",
    "model",
    "db",
    "prompts",
    "theme",
    "who",
    "temperature",
    "idle_timeout",
    "request_timeout",
    "structured",
    "max_tokens_per_entry",
    "max_answer_bytes",
    "confidence",
    "auto_advance",
    "batch_poll",
    "tags",
    "lease_minutes",
    "min_human_agreement",
];

/// [`toml_error`], naming the key of the offending line when it is one of
/// `known`.
fn locate(text: &str, e: &toml::de::Error, known: Option<&[&str]>) -> String {
    let what = hide_quoted(&e.message().trim().replace('\n', "; "));
    let Some(r) = e.span() else {
        return what;
    };
    let (line, col) = line_col(text, r.start);
    let key = text
        .lines()
        .nth(line - 1)
        .and_then(|l| l.split_once('='))
        .map(|(k, _)| k.trim().trim_matches('"'))
        .filter(|k| known.is_some_and(|known| known.contains(k)));
    match key {
        Some(k) => format!("line {line}, column {col}: {k}: {what}"),
        None => format!("line {line}, column {col}: {what}"),
    }
}

/// `prices.toml` in the config directory.
pub fn prices_path() -> Option<PathBuf> {
    config_dir().map(|d| d.join("prices.toml"))
}

/// The user's price table (model → dollars per million input, output and,
/// optionally, cached input tokens) from [`prices_path`]; no file, no table.
pub fn load_prices() -> Result<HashMap<String, Vec<f64>>, ConfigError> {
    match prices_path() {
        Some(p) if p.exists() => load_prices_from(&p),
        _ => Ok(HashMap::new()),
    }
}

/// Reads and checks a price table: every entry `model = [input, output]` or
/// `model = [input, output, cached_input]` (with `batch_input, batch_output`
/// after them when batch runs cost other than half), numbers of at least 0.
pub fn load_prices_from(path: &Path) -> Result<HashMap<String, Vec<f64>>, ConfigError> {
    let err = |message: String| ConfigError::File {
        path: path.to_path_buf(),
        message,
    };
    let text = crate::readfile::read_to_string(path).map_err(|e| err(e.to_string()))?;
    let table: toml::Table = toml::from_str(&text).map_err(|e| err(toml_error(&text, &e)))?;
    let mut prices = HashMap::with_capacity(table.len());
    for (model, value) in table {
        let numbers = value.as_array().and_then(|a| {
            a.iter()
                .map(|x| x.as_float().or_else(|| x.as_integer().map(|i| i as f64)))
                .collect::<Option<Vec<f64>>>()
        });
        let Some(p) = numbers.filter(|p| {
            matches!(p.len(), 2 | 3 | 5) && p.iter().all(|x| x.is_finite() && *x >= 0.0)
        }) else {
            let hint = if value.is_table() {
                " (a model name with a dot must be quoted: \"gpt-4.1\" = [2.0, 8.0])"
            } else {
                ""
            };
            return Err(err(format!(
                "{}: expected [input, output], [input, output, cached_input] or [input, output, cached_input, batch_input, batch_output], dollars per million tokens, each at least 0{hint}",
                crate::sanitize::one_line(&model, 80)
            )));
        };
        prices.insert(model, p);
    }
    Ok(prices)
}

/// 1-based line and column (in characters) of byte `at` of `text`.
pub fn line_col(text: &str, at: usize) -> (usize, usize) {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

fn hide_quoted(msg: &str) -> String {
    let (head, tail) = match msg.find("expected") {
        Some(i) => msg.split_at(i),
        None => (msg, ""),
    };
    let mut out = String::with_capacity(msg.len());
    let mut open: Option<char> = None;
    for c in head.chars() {
        match open {
            Some(q) if c == q => {
                out.push('…');
                out.push(c);
                open = None;
            }
            Some(_) => {}
            None if matches!(c, '`' | '"' | '\'') => {
                out.push(c);
                open = Some(c);
            }
            None => out.push(c),
        }
    }
    if open.is_some() {
        out.push('…');
    }
    out.push_str(tail);
    out
}

/// The login name of the current user from the password database, for when
/// `USER` is not set (cron, containers, `env -i`).
#[cfg(unix)]
fn login_name() -> Option<String> {
    let mut buf = vec![0u8; 4096];
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut out: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: getpwuid_r writes into `pwd` and `buf`, which outlive the call;
    // `out` is null or points at `pwd`, whose `pw_name` points into `buf`.
    let rc = unsafe {
        libc::getpwuid_r(
            libc::getuid(),
            &mut pwd,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut out,
        )
    };
    if rc != 0 || out.is_null() || pwd.pw_name.is_null() {
        return None;
    }
    // SAFETY: pw_name is a NUL-terminated string inside `buf`.
    let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) };
    name.to_str()
        .ok()
        .filter(|n| !n.is_empty())
        .map(str::to_string)
}

#[cfg(not(unix))]
fn login_name() -> Option<String> {
    None
}

#[cfg(test)]
mod prices_tests;

#[cfg(test)]
mod toml_error_tests;

#[cfg(all(test, unix))]
mod login_tests {
    #[test]
    fn login_name_matches_id() {
        let id = std::process::Command::new("id")
            .arg("-un")
            .output()
            .unwrap();
        let expected = String::from_utf8(id.stdout).unwrap().trim().to_string();
        assert_eq!(super::login_name(), Some(expected));
    }
}
