//! `jury fewshot --from-labels --k K --out DIR`: a prompt set with worked
//! examples from `train` labels (see crate::fewshot).

use super::{FewshotArgs, open_store};
use crate::config::Settings;
use crate::prompt::PromptSet;
use std::process::ExitCode;

pub fn fewshot(s: &Settings, a: FewshotArgs) -> anyhow::Result<ExitCode> {
    let store = open_store(s)?;
    let base = PromptSet::load(s.prompts_dir.as_deref())?;
    let written = crate::fewshot::write_set(&store, &base, a.k, &a.out)?;
    let set = PromptSet::load(Some(&a.out))?;
    if a.json {
        let per_mode: serde_json::Map<String, serde_json::Value> = written
            .examples
            .iter()
            .map(|(m, es)| (format!("mode{}", m.number()), es.len().into()))
            .collect();
        println!(
            "{}",
            serde_json::json!({"out": a.out.display().to_string(), "prompt_hash": set.hash(), "examples": per_mode})
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "wrote the prompt set {} (version {}) from {} with worked examples from train labels:",
        crate::sanitize::one_line(&a.out.display().to_string(), 200),
        set.hash(),
        crate::sanitize::one_line(&base.origin, 200)
    );
    for (mode, es) in &written.examples {
        let disagreements = es.iter().filter(|e| e.judge_said.is_some()).count();
        println!(
            "  mode {}: {} example(s), {disagreements} where the judge said otherwise",
            mode.number(),
            es.len()
        );
    }
    println!(
        "where each came from: {}/{}; use it with --prompts {}",
        crate::sanitize::one_line(&a.out.display().to_string(), 200),
        crate::prompt::FEWSHOT_MANIFEST,
        crate::sanitize::one_line(&a.out.display().to_string(), 200)
    );
    Ok(ExitCode::SUCCESS)
}
