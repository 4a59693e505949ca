//! Reading fields that come in several spellings (camelCase, snake_case, the
//! reference's short names), with errors that name the field.

use serde_json::{Map, Value};

/// A problem with one record: the field and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError {
            field: field.into(),
            message: message.into(),
        }
    }

    /// Prefixes the field path, e.g. `classifications[2]` + `.selected`.
    pub fn within(mut self, prefix: &str) -> Self {
        self.field = if self.field.is_empty() {
            prefix.to_string()
        } else {
            format!("{prefix}.{}", self.field)
        };
        self
    }
}

/// The first of `names` present (and not null) in `obj`.
pub fn pick<'a>(obj: &'a Map<String, Value>, names: &[&str]) -> Option<(&'a str, &'a Value)> {
    names.iter().find_map(|n| {
        obj.get_key_value(*n)
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.as_str(), v))
    })
}

/// A required identifier: a non-empty string (numbers are accepted and kept as text).
pub fn id(obj: &Map<String, Value>, names: &[&str]) -> Result<String, FieldError> {
    match pick(obj, names) {
        None => Err(FieldError::new(names[0], "is missing")),
        Some((k, Value::String(s))) if s.trim().is_empty() => Err(FieldError::new(k, "is empty")),
        Some((_, Value::String(s))) => Ok(s.clone()),
        Some((_, Value::Number(n))) => Ok(n.to_string()),
        Some((k, other)) => Err(FieldError::new(
            k,
            format!("must be a string, found {}", kind(other)),
        )),
    }
}

/// An optional text field; missing or null gives "".
pub fn text(obj: &Map<String, Value>, names: &[&str]) -> Result<String, FieldError> {
    match pick(obj, names) {
        None => Ok(String::new()),
        Some((_, Value::String(s))) => Ok(s.clone()),
        Some((_, Value::Number(n))) => Ok(n.to_string()),
        Some((k, other)) => Err(FieldError::new(
            k,
            format!("must be a string, found {}", kind(other)),
        )),
    }
}

/// An array of strings; missing gives an empty list.
pub fn strings(obj: &Map<String, Value>, names: &[&str]) -> Result<Vec<String>, FieldError> {
    match pick(obj, names) {
        None => Ok(Vec::new()),
        Some((k, Value::Array(a))) => a
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(FieldError::new(
                    format!("{k}[{i}]"),
                    format!("must be a string, found {}", kind(other)),
                )),
            })
            .collect(),
        Some((k, other)) => Err(FieldError::new(
            k,
            format!("must be an array of strings, found {}", kind(other)),
        )),
    }
}

pub fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// An optional RFC 3339 timestamp (a time without an offset is read as UTC),
/// returned as the store writes them: UTC with milliseconds, so they sort as
/// text. Missing or null gives "".
pub fn timestamp(obj: &Map<String, Value>, names: &[&str]) -> Result<String, FieldError> {
    use chrono::{DateTime, NaiveDateTime, SecondsFormat, Utc};
    let (k, t) = match pick(obj, names) {
        None => return Ok(String::new()),
        Some((k, Value::String(s))) => (k, s.trim()),
        Some((k, other)) => {
            return Err(FieldError::new(
                k,
                format!("must be an RFC 3339 time, found {}", kind(other)),
            ));
        }
    };
    if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
        return Ok(dt
            .with_timezone(&Utc)
            .to_rfc3339_opts(SecondsFormat::Millis, true));
    }
    for fmt in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(t, fmt) {
            return Ok(naive.and_utc().to_rfc3339_opts(SecondsFormat::Millis, true));
        }
    }
    Err(FieldError::new(
        k,
        format!(
            "'{}' is not an RFC 3339 time (e.g. 2026-03-16T07:12:00Z)",
            crate::sanitize::one_line(t, 60)
        ),
    ))
}

/// `sent` as ISO 8601 text or epoch seconds (float): returns (ISO text, epoch ms).
pub fn sent(obj: &Map<String, Value>) -> Result<(Option<String>, Option<i64>), FieldError> {
    use chrono::{DateTime, NaiveDateTime, SecondsFormat, TimeZone, Utc};
    match pick(obj, &["sent", "sentTime", "sent_time", "timestamp"]) {
        None => Ok((None, None)),
        Some((k, Value::Number(n))) => {
            let secs = n
                .as_f64()
                .filter(|f| f.is_finite() && *f >= 0.0 && *f < 1.0e11)
                .ok_or_else(|| {
                    FieldError::new(k, format!("{n} is not a plausible epoch time in seconds"))
                })?;
            let ms = (secs * 1000.0).round() as i64;
            let iso = Utc
                .timestamp_millis_opt(ms)
                .single()
                .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true));
            Ok((iso, Some(ms)))
        }
        Some((k, Value::String(s))) => {
            let t = s.trim();
            // Rust reads "NaN" and "inf" as numbers; JSON would turn them into null.
            if let Ok(secs) = t.parse::<f64>().map(|f| f.is_finite().then_some(f)) {
                let Some(secs) = secs else {
                    return Err(FieldError::new(
                        k,
                        format!("'{}' is not a time", crate::sanitize::one_line(t, 40)),
                    ));
                };
                let mut m = Map::new();
                m.insert("sent".into(), serde_json::json!(secs));
                return sent(&m).map_err(|e| FieldError::new(k, e.message));
            }
            if let Ok(dt) = DateTime::parse_from_rfc3339(t) {
                return Ok((Some(t.to_string()), Some(dt.timestamp_millis())));
            }
            for fmt in [
                "%Y-%m-%dT%H:%M:%S%.f",
                "%Y-%m-%d %H:%M:%S%.f",
                "%Y-%m-%dT%H:%M",
            ] {
                if let Ok(naive) = NaiveDateTime::parse_from_str(t, fmt) {
                    let ms = naive.and_utc().timestamp_millis();
                    return Ok((Some(t.to_string()), Some(ms)));
                }
            }
            Err(FieldError::new(
                k,
                format!(
                    "'{}' is not an ISO 8601 time or epoch seconds",
                    crate::sanitize::one_line(t, 60)
                ),
            ))
        }
        Some((k, other)) => Err(FieldError::new(
            k,
            format!(
                "must be ISO 8601 text or epoch seconds, found {}",
                kind(other)
            ),
        )),
    }
}
