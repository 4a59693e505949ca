//! Which structured path a run asks for: the one the user chose
//! (`--structured tools|json_schema|json`, kept for the whole run), or with
//! `auto` the one this endpoint and model answered with before (remembered in
//! the store), starting from a forced tool call when nothing is known yet.
//! The first answers of an `auto` run are the probe: a server that ignores
//! `tool_choice` or cannot take tools moves the run (and what is remembered)
//! on to the `json_schema` response format, which llama.cpp, vLLM, Ollama and
//! OpenAI constrain with a grammar.

use crate::provider::url::shown;
use crate::provider::{AnswerPath, ProviderConfig, ToolMode, client::endpoint_url};
use crate::store::Store;

/// Sets `provider`'s starting path and whether it may fall back. Returns a
/// note on where the choice came from.
pub fn choose(provider: &mut ProviderConfig, choice: Option<ToolMode>, store: &Store) -> String {
    let note = choose_path(provider, choice, store);
    // Tool-call arguments carry no token probabilities: a run that wants
    // them answers as JSON in the content (the JSON-schema path) instead.
    if provider.logprobs && provider.tool_mode == ToolMode::Tools {
        provider.tool_mode = ToolMode::JsonSchema;
        return format!(
            "{note}; json_schema instead of tools for token probabilities (--confidence logprobs)"
        );
    }
    note
}

/// With several servers, the path each starts on (in `provider.servers`'
/// order): with `auto`, what was remembered for that server's endpoint and
/// the model, else the run's. Returns them and a note naming, per server,
/// where its path came from (empty when every server's came from where the
/// run's did, `run_note`).
pub fn choose_each(
    provider: &ProviderConfig,
    choice: Option<ToolMode>,
    store: &Store,
    run_note: &str,
) -> (Vec<ToolMode>, String) {
    let mut modes = Vec::with_capacity(provider.servers.len());
    let mut notes = Vec::new();
    for server in &provider.servers {
        let mut p = provider.clone();
        p.base_url = server.base_url.clone();
        let note = choose(&mut p, choice, store);
        if note != run_note {
            notes.push(format!("{}: {note}", shown(&server.base_url)));
        }
        modes.push(p.tool_mode);
    }
    (modes, notes.join("; "))
}

fn choose_path(provider: &mut ProviderConfig, choice: Option<ToolMode>, store: &Store) -> String {
    if let Some(m) = choice {
        provider.tool_mode = m;
        provider.fallback = false;
        return "chosen with --structured".into();
    }
    provider.fallback = true;
    let remembered = endpoint_url(&provider.base_url).ok().and_then(|e| {
        store
            .endpoint_path(&shown(e.as_str()), &provider.model)
            .ok()
            .flatten()
    });
    match remembered.and_then(|(s, detail)| ToolMode::parse(&s).map(|m| (m, detail))) {
        Some((m, detail)) => {
            provider.tool_mode = m;
            format!("auto, remembered for this endpoint and model: {detail}")
        }
        None => {
            provider.tool_mode = ToolMode::Tools;
            "auto, first run against this endpoint and model".into()
        }
    }
}

/// What an `auto` run learnt, to remember for the next: the path it ended on
/// and why, when any structured answer came back.
pub fn learnt(
    mode: ToolMode,
    paths: &std::collections::HashMap<AnswerPath, u64>,
) -> Option<(ToolMode, String)> {
    let n = |p| paths.get(&p).copied().unwrap_or(0);
    let detail = if n(AnswerPath::IgnoredToolChoice) > 0 {
        format!(
            "the server ignored the forced tool call (tool_choice) and wrote JSON in the content; {} is used instead",
            mode.as_str()
        )
    } else if n(AnswerPath::ToolCall) > 0 && mode == ToolMode::Tools {
        "the server answers a forced tool call with a real tool call".to_string()
    } else if n(AnswerPath::ResponseFormat) > 0 {
        format!(
            "{} works{}",
            mode.as_str(),
            if mode == ToolMode::Tools {
                ""
            } else {
                " (tool calls did not)"
            }
        )
    } else {
        return None;
    };
    Some((mode, detail))
}

/// Remembers what `provider`'s endpoint and model answered with.
pub fn remember(store: &mut Store, provider: &ProviderConfig, mode: ToolMode, detail: &str) {
    if let Ok(e) = endpoint_url(&provider.base_url) {
        // A store that cannot take it only means the next run finds out again.
        let _ = store.set_endpoint_path(&shown(e.as_str()), &provider.model, mode.as_str(), detail);
    }
}
