//! `jury fewshot --from-labels --k K --out DIR`: a prompt set with worked
//! examples from `train` labels (see crate::fewshot).

use super::strings::fewshot as say;
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
            .chain([("guideline".to_string(), written.guideline.len().into())])
            .collect();
        println!(
            "{}",
            serde_json::json!({
                "out": a.out.display().to_string(),
                "prompt_hash": set.hash(),
                "examples": per_mode,
                "no_examples": crate::fewshot::guideline::NO_EXAMPLES,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    let out = crate::sanitize::one_line(&a.out.display().to_string(), 200);
    println!(
        "{}",
        say::wrote_set(
            &out,
            set.hash(),
            &crate::sanitize::one_line(&base.origin, 200)
        )
    );
    for (mode, es) in &written.examples {
        let disagreements = es.iter().filter(|e| e.judge_said.is_some()).count();
        println!(
            "{}",
            say::mode_examples(mode.number(), es.len(), disagreements)
        );
    }
    let g = &written.guideline;
    println!(
        "{}",
        say::guideline_examples(g.len(), g.iter().filter(|e| e.judge_said.is_some()).count())
    );
    println!(
        "{}",
        say::no_examples(&crate::fewshot::guideline::NO_EXAMPLES.join(" and "))
    );
    println!("{}", say::where_from(&out, crate::prompt::FEWSHOT_MANIFEST));
    Ok(ExitCode::SUCCESS)
}
