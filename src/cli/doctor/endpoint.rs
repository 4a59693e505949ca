//! `jury doctor`'s endpoint checks: the key, the model list, and one real
//! test judgement that shows which structured-answer path the server takes.

use super::{Level, Report};
use crate::cli::strings::doctor_endpoint as say;
use crate::provider::{
    AnswerPath, ChatCall, Client, ProviderConfig, ProviderError, Secret, Secrets, StreamFrame,
    errtext,
};
use std::time::{Duration, Instant};

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

/// The endpoint checks in order: the key, the model list, a test judgement.
/// A check that makes the next pointless (no client, a refused key) ends them.
pub(super) async fn check_endpoint(r: &mut Report, cfg: ProviderConfig, timeout_secs: u64) {
    // The key sent (none to a URL with a credential of its own), and
    // every credential of the run, redacted from what the server says.
    let key = cfg.sent_key().cloned();
    let client = match Client::new(cfg.clone()) {
        Ok(c) => c,
        Err(e) => {
            r.line(Level::Problem, "endpoint", &say::bad_client(&e.to_string()));
            return;
        }
    };
    let secrets = client.secrets().clone();
    let where_ = errtext::clean(&crate::provider::url::shown(client.endpoint()), &secrets);
    check_key(r, &client, key.as_ref());
    if check_models(r, &client, &cfg, key.as_ref(), &where_).await {
        check_judge(r, &client, &secrets, timeout_secs).await;
    }
}

fn check_key(r: &mut Report, client: &Client, key: Option<&Secret>) {
    let is_openai = client.endpoint().starts_with("https://api.openai.com/");
    r.line(
        if key.is_none() && is_openai {
            Level::Problem
        } else {
            Level::Ok
        },
        "key",
        match (key, is_openai) {
            (Some(_), _) => say::KEY_SET,
            (None, true) => say::KEY_NEEDED,
            (None, false) => say::KEY_NONE_LOCAL,
        },
    );
}

/// Reachable, and does it list the model? False when the judge check that
/// follows would be pointless.
async fn check_models(
    r: &mut Report,
    client: &Client,
    cfg: &ProviderConfig,
    key: Option<&Secret>,
    where_: &str,
) -> bool {
    let Some(models) = models_url(client) else {
        r.line(Level::Problem, "endpoint", &say::no_models_url(where_));
        return false;
    };
    let mut http =
        reqwest::Client::builder().timeout(cfg.request_timeout.min(Duration::from_secs(30)));
    if matches!(models.host_str(), Some("127.0.0.1" | "localhost" | "[::1]")) {
        http = http.no_proxy();
    }
    let Ok(http) = http.build() else {
        r.line(Level::Problem, "endpoint", say::NO_HTTP);
        return false;
    };
    let mut req = http.get(models.clone());
    if let Some(k) = key {
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
                &say::unreachable(where_, &errtext::clean(&text, client.secrets())),
            );
            return false;
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
                        r.line(Level::Ok, "endpoint", &say::lists_model(where_, &cfg.model));
                    } else {
                        // The server's words: the key redacted, controls dropped.
                        let some: Vec<String> = ids
                            .iter()
                            .take(8)
                            .map(|i| errtext::clean(i, client.secrets()))
                            .collect();
                        let some: Vec<&str> = some.iter().map(String::as_str).collect();
                        r.line(
                            Level::Warning,
                            "endpoint",
                            &say::model_not_listed(where_, &cfg.model, ids.len(), &some),
                        );
                    }
                }
                401 | 403 => {
                    r.line(
                        Level::Problem,
                        "endpoint",
                        &say::key_refused(
                            status,
                            &errtext::body_message(&body, ct.as_deref(), client.secrets()),
                        ),
                    );
                    return false;
                }
                _ => r.line(
                    Level::Warning,
                    "endpoint",
                    &say::no_model_list(
                        where_,
                        status,
                        &errtext::body_message(&body, ct.as_deref(), client.secrets()),
                    ),
                ),
            }
        }
    }
    true
}

/// A tiny forced tool call of the real kind (an AwAg Mode 2 request for one
/// made-up item), streamed; which structured mode does it end up in?
async fn check_judge(r: &mut Report, client: &Client, key: &Secrets, timeout_secs: u64) {
    let call = match probe_call() {
        Ok(c) => c,
        Err(e) => {
            r.line(Level::Problem, "judge", &say::no_test_request(&e));
            return;
        }
    };
    let started = Instant::now();
    let mut fragments = 0usize;
    let mut retries = Vec::new();
    let cancel = tokio_util::sync::CancellationToken::new();
    // Doctor's timeout bounds the whole check, retries included, under the
    // same progress rules as a run.
    let limit = crate::provider::TimeLimit::after(
        Duration::from_secs(timeout_secs),
        format!("doctor's test ({timeout_secs}s)"),
    );
    let result = client
        .complete_within(&call, Some(&limit), &cancel, &mut |f| match f {
            StreamFrame::Content(_) | StreamFrame::ToolArgs { .. } => fragments += 1,
            StreamFrame::Retrying { reason, .. } => retries.push(reason),
        })
        .await;
    match result {
        Err(e) => {
            let text = e.to_string();
            // Jury's own timeouts say whose they are.
            let own_timeout = text.contains("jury's") || text.contains("went silent");
            let msg = match &e {
                _ if own_timeout => say::own_timeout(timeout_secs, &text),
                ProviderError::Truncated { .. } => say::cut_off(&text),
                _ => say::judgement_failed(&text),
            };
            r.line(Level::Problem, "judge", &msg);
        }
        Ok(c) => {
            let answer_ok = serde_json::from_str::<serde_json::Value>(c.answer_text())
                .ok()
                .is_some_and(|v| v.get("resultItems").is_some());
            let secs = started.elapsed().as_secs_f64();
            match (c.path, answer_ok) {
                (AnswerPath::ToolCall, true) => {
                    r.line(Level::Ok, "judge", &say::tool_call_works(secs, c.attempts))
                }
                (AnswerPath::IgnoredToolChoice, true) => {
                    r.line(Level::Warning, "judge", say::IGNORED_TOOL_CHOICE)
                }
                (AnswerPath::ResponseFormat, true) => r.line(
                    Level::Warning,
                    "judge",
                    &say::response_format_works(
                        crate::provider::structured_answer::mode_name(c.tool_mode),
                        secs,
                        c.tool_mode.as_str(),
                    ),
                ),
                _ => r.line(
                    Level::Problem,
                    "judge",
                    &say::not_an_evaluation(
                        &errtext::clean(
                            c.finish_reason.as_ref().map_or("none", |f| f.as_str()),
                            key,
                        ),
                        &errtext::clean(c.answer_text(), key),
                    ),
                ),
            }
            if fragments > 1 {
                r.line(Level::Ok, "streaming", &say::streamed(fragments));
            } else {
                r.line(Level::Warning, "streaming", say::NOT_STREAMED);
            }
            r.line(
                Level::Ok,
                "mode",
                &say::structured_via(
                    crate::provider::structured_answer::mode_name(client.tool_mode()),
                    client.tool_mode().as_str(),
                ),
            );
        }
    }
    for reason in retries.iter().take(3) {
        r.line(
            Level::Warning,
            "judge",
            &say::retried(&errtext::clean(reason, key)),
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
    .map_err(|e| e.to_string())
}
