//! `jury prompt`: the exact request for one item, mode, persona and perspective.

use super::strings::{missing, prompt as say};
use super::{PromptArgs, open_store};
use crate::config::Settings;
use crate::domain::Mode;
use crate::prompt::PromptSet;
use crate::provider::{ProviderConfig, ToolMode, request_body};
use std::process::ExitCode;
use std::sync::Arc;

pub fn prompt(s: &Settings, a: PromptArgs) -> anyhow::Result<ExitCode> {
    let mode = Mode::from_number(a.mode).ok_or_else(|| anyhow::anyhow!(say::BAD_MODE))?;
    let store = open_store(s)?;
    let prompts = Arc::new(PromptSet::load(s.prompts_dir.as_deref())?);
    let persona = store
        .persona(&a.persona)?
        .ok_or_else(|| anyhow::anyhow!(missing::persona(&a.persona)))?;
    let all = store.perspectives()?;
    let mut perspectives = Vec::new();
    for id in &a.perspective {
        perspectives.push(
            all.iter()
                .find(|p| &p.id == id)
                .cloned()
                .ok_or_else(|| anyhow::anyhow!(missing::perspective(id)))?,
        );
    }
    let item = store
        .item(&a.item)?
        .ok_or_else(|| anyhow::anyhow!(missing::item(&a.item)))?;
    let boundary = crate::protocol::new_boundary();
    let call = crate::protocol::awag::preview(
        prompts.clone(),
        mode,
        &persona,
        &perspectives,
        &item,
        &boundary,
    )
    .map_err(|e| anyhow::anyhow!(e))?;
    // The body as the client would send it; the key travels in a header and is never shown.
    let cfg = s
        .provider()
        .unwrap_or_else(|_| ProviderConfig::new("http://127.0.0.1/v1", s.model.clone()));
    let set = format!("{} (hash {})", prompts.origin, prompts.hash());
    print_call(s, &cfg, &set, &call, &boundary, a.json)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints one request: as the JSON body (`json`), or as readable messages,
/// tools and tool_choice. Shared by `jury prompt` and `jury run --dry-run --show-request`.
pub fn print_call(
    s: &Settings,
    cfg: &ProviderConfig,
    prompt_set: &str,
    call: &crate::provider::ChatCall,
    boundary: &str,
    json: bool,
) -> anyhow::Result<()> {
    // A run that asks for token probabilities answers on the JSON-schema
    // content path (tool calls carry none): the body shows that path.
    let mode = if cfg.logprobs {
        ToolMode::JsonSchema
    } else {
        ToolMode::Tools
    };
    let body = request_body(cfg, call, mode);
    if json {
        println!("{}", serde_json::to_string_pretty(&body)?);
        return Ok(());
    }
    println!("{}", say::prompt_set(prompt_set));
    println!(
        "{}",
        say::model(
            &cfg.model,
            &s.base_url
                .as_deref()
                .map_or_else(|| say::NO_ENDPOINT.to_string(), crate::provider::url::shown)
        )
    );
    println!("{}", say::boundary(boundary));
    for (i, m) in call.messages.iter().enumerate() {
        println!("{}", say::message(i + 1, &m.role));
        println!("{}\n", crate::sanitize::for_display(&m.content, usize::MAX));
    }
    println!("{}", say::TOOLS);
    println!("{}\n", serde_json::to_string_pretty(&body["tools"])?);
    println!("{}", say::TOOL_CHOICE);
    println!("{}", serde_json::to_string_pretty(&body["tool_choice"])?);
    Ok(())
}
