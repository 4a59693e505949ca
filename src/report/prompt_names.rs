//! Prompt versions named as people know them: `prompts-v2 (34eb1475)`, the
//! folder the prompts came from and the start of their hash
//! ([`Run::prompt_version`]), where the figures name them by hash alone.
//!
//! The figures keep the hash as their identity (judge names carry
//! ` · prompts 4ad49c21`, and pairs are grouped by it); the names are added
//! beside it once the report is built, each hash matched by prefix to the
//! first run that used it — the same match that orders the versions.

use super::Report;
use crate::domain::Run;

/// The mark judge names carry when a judge ran with several prompt sets.
const MARK: &str = " · prompts ";

/// A folder name is untrusted and may be long: this much of it is shown.
const FOLDER_CHARS: usize = 30;

/// Hash → name, from the store's runs (in id order).
pub struct PromptNames<'a> {
    runs: &'a [Run],
}

impl<'a> PromptNames<'a> {
    pub fn new(runs: &'a [Run]) -> Self {
        PromptNames { runs }
    }

    /// `prompts-v2 (34eb1475)` for a hash or its prefix (at least 4
    /// characters); `None` when no run used it or the run did not record
    /// where its prompts came from (the hash alone is then all there is).
    pub fn name(&self, hash_prefix: &str) -> Option<String> {
        let hash = hash_prefix.trim();
        if hash.chars().count() < 4 {
            return None;
        }
        let run = self
            .runs
            .iter()
            .find(|r| r.spec.prompt_hash.starts_with(hash))?;
        let version = run.prompt_version();
        // The hash alone: nothing to add to what the figures show.
        let (folder, rest) = version.rsplit_once(" (")?;
        Some(format!(
            "{} ({rest}",
            crate::sanitize::one_line(folder, FOLDER_CHARS).replace('⏎', " ")
        ))
    }

    /// A judge name's prompt version, when it carries one
    /// (`awag mode 2 · demo · prompts 4ad49c21`).
    pub fn of_judge(&self, judge: &str) -> Option<String> {
        let (_, hash) = judge.rsplit_once(MARK)?;
        self.name(hash)
    }

    /// Adds the names to every part of `report` that shows a prompt version.
    pub fn name_report(&self, report: &mut Report) {
        for r in &mut report.rankings {
            for c in &mut r.configurations {
                c.prompt_version = self.of_judge(&c.judge);
            }
            // The summary names configurations: by their names too.
            if r.configurations.iter().any(|c| c.prompt_version.is_some()) {
                r.summary = super::rank::summary(&r.configurations, r.n_shared);
            }
        }
        for v in report.deltas.iter_mut().flat_map(|d| d.versions.iter_mut()) {
            v.prompt_version = self.name(&v.prompts);
        }
        for c in &mut report.changes {
            c.from_version = self.name(&c.from);
            c.to_version = self.name(&c.to);
        }
    }
}

/// A judge name with its ` · prompts HASH` replaced by the version's name,
/// when it has one: `awag mode 2 · demo · prompts-v2 (34eb1475)`.
pub fn shown_judge(judge: &str, version: Option<&str>) -> String {
    match (judge.rsplit_once(MARK), version) {
        (Some((base, _)), Some(v)) => format!("{base} · {v}"),
        _ => judge.to_string(),
    }
}

/// A version as the report's lines show it: its name, or `prompts HASH`.
pub fn shown_version(hash: &str, version: Option<&str>) -> String {
    match version {
        Some(v) => v.to_string(),
        None => format!("prompts {hash}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run as the store reads it, with its prompts from `dir` (`None`:
    /// the embedded set).
    fn run_with_prompts(id: i64, hash: &str, dir: Option<&str>) -> Run {
        serde_json::from_value(serde_json::json!({
            "id": id,
            "spec": {"protocol": "awag", "mode": "Two", "persona_id": "kenton",
                "perspective_ids": ["classification"], "model": "demo", "prompt_hash": hash,
                "record": {"version": 1,
                    "judge": {"protocol": "awag", "mode": "Two", "persona": "kenton",
                        "perspectives": ["classification"]},
                    "model": "demo", "prompts": {"dir": dir, "hash": hash}, "structured": null,
                    "confidence": "off", "temperature": null, "batch_size": 10, "concurrency": 4,
                    "max_attempts": 3, "items": 2, "shuffle_seed": null, "batch": null,
                    "servers": []}},
            "status": "done", "created_at": "2026-12-05T12:53:08.033Z", "finished_at": null,
            "total": 10, "verdicts": 10, "failures": 0, "prompt_tokens": 0,
            "completion_tokens": 0, "cached_tokens": 0, "requests": 1, "usage_unknown": 0,
            "cost_usd": null, "note": null, "structured": null
        }))
        .unwrap()
    }

    #[test]
    fn a_hash_prefix_is_named_by_the_first_run_that_used_it() {
        let runs = vec![
            run_with_prompts(1, "4ad49c217da0e4a0", None),
            run_with_prompts(2, "34eb1475aaaa0000", Some("/data/prompts-v2/awag")),
            run_with_prompts(3, "34eb1475aaaa0000", Some("/data/other")),
            run_with_prompts(4, "99990000bbbb1111", Some("/x/a\nb")),
        ];
        let names = PromptNames::new(&runs);
        assert_eq!(
            names.name("4ad49c21").as_deref(),
            Some("embedded (4ad49c21)")
        );
        assert_eq!(
            names.name("34eb1475aaaa0000").as_deref(),
            Some("prompts-v2 (34eb1475)")
        );
        assert_eq!(
            names
                .of_judge("awag mode 2 · demo · prompts 34eb1475")
                .as_deref(),
            Some("prompts-v2 (34eb1475)")
        );
        assert_eq!(names.of_judge("awag mode 2 · demo"), None);
        // A folder name on one line, never a control character.
        assert_eq!(names.name("99990000").as_deref(), Some("a b (99990000)"));
        assert_eq!(names.name("ffff0000"), None, "no run used it");
        // A run recorded without where its prompts came from: the hash alone.
        let mut bare = run_with_prompts(5, "ffff0000cccc2222", None);
        bare.spec.record = None;
        let runs = [bare];
        assert_eq!(PromptNames::new(&runs).name("ffff0000"), None);
        assert_eq!(names.name(""), None);
        assert_eq!(
            shown_judge(
                "awag mode 2 · demo · prompts 34eb1475",
                Some("prompts-v2 (34eb1475)")
            ),
            "awag mode 2 · demo · prompts-v2 (34eb1475)"
        );
        assert_eq!(
            shown_judge("awag mode 2 · demo", None),
            "awag mode 2 · demo"
        );
        assert_eq!(shown_version("34eb1475", None), "prompts 34eb1475");
    }
}
