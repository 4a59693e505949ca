//! The sentences the command line shows a person, in one place (as the
//! workbench's `tui/strings.rs`): summaries and notes the commands print and
//! the errors they raise. One module per command; `const` for fixed text,
//! small `fn`s for text with values. Callers pass untrusted values already
//! sanitised (crate::sanitize) where they did before; the wording is what
//! tests and scripts match on, so change it only on purpose.
//! Machine-readable output (JSON lines, CSV, the report renderer's tables)
//! is not a sentence and stays with its command.

/// Errors shared by several commands: what is missing from the store.
pub mod missing {
    pub fn persona(id: &str) -> String {
        format!("no persona '{id}' in the store")
    }
    pub fn perspective(id: &str) -> String {
        format!("no perspective '{id}' in the store")
    }
    pub fn item(id: &str) -> String {
        format!("no item '{id}' in the store")
    }
}

/// `jury fewshot`.
pub mod fewshot {
    pub fn wrote_set(out: &str, hash: &str, base: &str) -> String {
        format!(
            "wrote the prompt set {out} (version {hash}) from {base} with worked examples from train labels:"
        )
    }
    pub fn mode_examples(mode: u8, examples: usize, disagreements: usize) -> String {
        format!(
            "  mode {mode}: {examples} example(s), {disagreements} where the judge said otherwise"
        )
    }
    pub fn guideline_examples(examples: usize, disagreements: usize) -> String {
        format!(
            "  guideline: {examples} example(s) (train labels `no` or `fully`), {disagreements} where the judge said otherwise"
        )
    }
    pub fn no_examples(protocols: &str) -> String {
        format!(
            "  {protocols}: their prompts have no place for worked examples; the set carries them unchanged"
        )
    }
    pub fn where_from(out: &str, manifest: &str) -> String {
        format!("where each came from: {out}/{manifest}; use it with --prompts {out}")
    }
}

/// `jury prompt` and `jury run --dry-run --show-request`.
pub mod prompt {
    pub const BAD_MODE: &str = "--mode must be 1, 2 or 3";
    pub const NO_ENDPOINT: &str = "(not configured)";
    pub const TOOLS: &str = "── tools ──";
    pub const TOOL_CHOICE: &str = "── tool_choice ──";

    pub fn prompt_set(set: &str) -> String {
        format!("# prompt set: {set}")
    }
    pub fn model(model: &str, endpoint: &str) -> String {
        format!("# model: {model}   endpoint: {endpoint}")
    }
    pub fn boundary(token: &str) -> String {
        format!("# boundary token: {token} (a fresh one is drawn for every run)\n")
    }
    pub fn message(n: usize, role: &str) -> String {
        format!("── message {n} · {role} ──")
    }
}

/// `jury split`.
pub mod split {
    pub const NEVER_MOVES: &str = "every pair of an item is on its side; items labelled later join a side by their hash, pairs labelled later their item's side; the split never moves";
    pub const NONE_YET: &str =
        "no split yet: `jury split --holdout 0.3 --seed 1` holds out 30 % of the labelled items";

    pub fn made_empty(holdout: f64, seed: u64) -> String {
        format!(
            "split made (holdout {holdout}, seed {seed}), but nothing is labelled yet: items labelled later join a side by the split's hash"
        )
    }
    pub fn made(
        items: [usize; 2],
        pairs: usize,
        train: usize,
        test: usize,
        holdout: f64,
        seed: u64,
    ) -> String {
        format!(
            "split {} labelled items by item: {} train, {} test ({pairs} labelled (item, classification) pairs: {train} train, {test} test; holdout {holdout}, seed {seed})",
            items[0] + items[1],
            items[0],
            items[1]
        )
    }
    pub fn label_row(value: &str, train: usize, test: usize) -> String {
        format!("  label {value:<10} {train:>5} train {test:>5} test")
    }
    #[allow(clippy::too_many_arguments)]
    pub fn shown(
        created_at: &str,
        created_by: &str,
        holdout: f64,
        seed: u64,
        items: [usize; 2],
        train: usize,
        test: usize,
        fixed: usize,
    ) -> String {
        format!(
            "split made {created_at} by {created_by} (holdout {holdout}, seed {seed}): {} labelled items now, {} train, {} test; {} labelled pairs, {train} train, {test} test ({fixed} fixed when it was made)",
            items[0] + items[1],
            items[0],
            items[1],
            train + test
        )
    }
    pub fn pair_level(count: usize, example: &str, holdout: f64, seed: u64) -> String {
        format!(
            "this split was made by (item, classification) pair, not by item: {count} item(s) have pairs on both sides (e.g. {example}), \
             so an item's text can be a few-shot example while another of its pairs is scored as held-out. \
             `jury report --split` and `jury fewshot` refuse it; `jury split --replace --holdout {holdout} --seed {seed}` remakes it by item"
        )
    }
}

/// `jury report`.
pub mod report {
    pub fn out_is_store(path: &str) -> String {
        format!(
            "refusing to write the report to {path}: that is the store or a file jury keeps beside it (-wal, -shm, the labels kept for replay); choose another --out path"
        )
    }
    pub fn cannot_write(path: &str, why: &str) -> String {
        format!("cannot write {path}: {why}")
    }
    pub fn wrote(path: &str) -> String {
        format!("wrote the report to {path}")
    }
    pub fn stage(what: &str, seconds: f64) -> String {
        format!("jury report: {what}: {seconds:.3} s")
    }
}

/// `jury label`.
pub mod label {
    pub const WHICH_PERSONA: &str = "say which persona this label is for with --persona";

    pub fn no_guideline(item: &str, guideline: &str) -> String {
        format!("item '{item}' has no guideline '{guideline}'")
    }
    pub fn bad_protocol_value(why: &str, perspective: &str, expected: &str) -> String {
        format!("{why}; a {perspective} label is {expected}")
    }
    pub fn no_classification(item: &str, classification: &str, known: &str) -> String {
        format!("item '{item}' has no classification '{classification}' (it has: {known})")
    }
    pub fn bad_value(why: &str) -> String {
        format!("{why}; a label is 1–5, AGREE/DISAGREE, 0–9, true/false or no/partially/fully")
    }
    pub fn labelled(
        item: &str,
        classification: &str,
        value: &str,
        scale: &str,
        persona: &str,
        who: &str,
    ) -> String {
        format!(
            "labelled {item}/{classification} as {value} ({scale} scale) for {persona} by {who}"
        )
    }
}

/// `jury import`.
pub mod import {
    pub fn not_read(file: &str, why: &str) -> String {
        format!("not read: {file}: {why}")
    }
    pub fn skipped(what: &str) -> String {
        format!("skipped: {what}")
    }
    pub fn imported(
        items: usize,
        personas: usize,
        perspectives: usize,
        labels: usize,
        db: &str,
        skipped: usize,
    ) -> String {
        let skipped = if skipped == 0 {
            String::new()
        } else {
            format!(" ({skipped} skipped)")
        };
        format!(
            "imported {items} items, {personas} personas, {perspectives} perspectives, {labels} labels into {db}{skipped}"
        )
    }
    pub fn label_merge(new: usize, newer: usize, unchanged: usize, older: usize) -> String {
        format!(
            "labels: {new} new, {newer} newer than the store (replaced it), {unchanged} unchanged, {older} older than the store (kept the store's)"
        )
    }
    pub fn csv_mapping(file: &str, map: &str) -> String {
        format!("{file}: read with {map}")
    }
    pub fn csv_rows_left_out(n: usize) -> String {
        format!(
            "{n} failure and mark row(s) not imported: runs and people make them, an import does not"
        )
    }
    pub fn verdicts_from(n: usize, judge: &str, run: i64, file: &str) -> String {
        format!("{n} verdict(s) from judge '{judge}' imported as run {run} (from {file})")
    }
    pub fn verdicts_already(file: &str, runs: &str) -> String {
        format!("{file}: already imported (run(s) {runs}); its verdicts were not added again")
    }
    pub fn unknown_owner(name: &str, items: usize) -> String {
        format!(
            "note: '{name}' (owner of {items} item(s)) is no persona: kept as the tag inbox:{name}; \
             import a persona '{name}' and re-import to make it the owner"
        )
    }
}

/// `jury list` and `jury runs` (the column tables stay with the commands).
pub mod list {
    pub fn items(n: usize) -> String {
        format!("{n} items")
    }
    pub fn run_note(note: &str) -> String {
        format!("      note: {note}")
    }
    pub fn cached_share(percent: f64) -> String {
        format!("{percent:.0} % of prompt tokens cached")
    }
    pub fn usage_unknown(n: u64) -> String {
        format!("usage unknown for {n}")
    }
    pub fn requests(n: u64, unknown: Option<String>, cached: Option<String>) -> String {
        let unknown = unknown.map(|u| format!(", {u}")).unwrap_or_default();
        let cached = cached.map(|c| format!(", {c}")).unwrap_or_default();
        format!("      {n} request(s){unknown}{cached}")
    }
    pub fn structured(name: &str) -> String {
        format!("      structured: {name}")
    }
    pub fn unpriced(runs: u64, how_to_price: &str) -> String {
        format!("{runs} run(s) without a price: {how_to_price}")
    }
    pub fn usage_not_reported(unknown: u64, requests: u64) -> String {
        format!("{unknown} of {requests} request(s) with usage not reported (not in the tokens)")
    }
}

/// `jury failures`.
pub mod failures {
    pub fn no_run(run: i64) -> String {
        format!("no run {run} in the store (see `jury runs`)")
    }
    pub fn none(run: Option<i64>) -> String {
        format!(
            "no failures{}",
            run.map(|r| format!(" in run {r}")).unwrap_or_default()
        )
    }
    pub fn reason(reason: &str) -> String {
        format!("  reason: {reason}")
    }
    pub fn raw(raw: &str) -> String {
        format!("  raw: {raw}")
    }
}

/// `jury export`.
pub mod export {
    pub fn out_is_store(path: &str) -> String {
        format!(
            "refusing to export to {path}: that is the store or a file jury keeps beside it (-wal, -shm, the labels kept for replay); choose another --out path"
        )
    }
    pub fn cannot_write(path: &str, why: &str) -> String {
        format!("{path}: {why}")
    }
    pub const NEEDS_PERSON_FORMATS: &str =
        "--needs-person is for --format label-studio or argilla (the tasks people label)";
    pub fn label_config_at(path: &str) -> String {
        format!("the labeling config for these tasks: {path}")
    }
    pub const LABEL_CONFIG_NEEDS_OUT: &str =
        "note: with --out FILE the labeling config these tasks need is written beside FILE";
    pub fn tasks_written(n: usize) -> String {
        format!("{n} task(s) to label")
    }
}

/// `jury run` and `jury demo-judge`.
pub mod run {
    pub const ZERO_CONCURRENCY: &str = "--concurrency must be at least 1";
    pub const ZERO_BATCH: &str = "--batch-size must be at least 1";
    pub const ZERO_REPEATS: &str = "--repeats must be at least 1";
    pub const REPEATS_NEED_TEMPERATURE: &str = "--repeats needs a temperature above 0 (--temperature 0.7, or config temperature): at 0 a judge gives the same answer every time, and its repeats say nothing about how sure it is";
    pub const REPEATS_WITH_RESUME: &str = "--repeats and --resume do not go together: a repeat would skip every combination the first run judged";

    pub fn repeat_of(i: u32, k: u32) -> String {
        format!("repeat {i} of {k}")
    }
    pub const NO_ITEMS: &str = "nothing to judge: the selection holds no items";
    pub const OWNER_AWAG_ONLY: &str =
        "--persona owner is for --protocol awag (the other protocols judge without a persona)";
    pub const OWNER_NOT_WITH: &str = "--persona owner starts one run per owner persona; --limit, --subset-percent and \
         --budget would apply to each run, not to the whole: use --items, or run each owner with --persona ID";
    pub const OWNER_IS_A_PERSONA: &str = "note: --persona owner means the persona whose id is 'owner' in this store, \
         not each item's owner (import refuses that id now; give the persona another id to judge items as their owners)";
    pub const NO_OWNED_ITEMS: &str = "--persona owner: no item of the selection has an owner (an inbox:NAME tag or persona field naming a persona)";
    pub fn unowned(n: usize) -> String {
        format!("{n} item(s) have no owner and are not judged (judge them with --persona ID)")
    }
    pub fn as_owner(persona: &str, n: usize) -> String {
        format!("judging {n} item(s) as their owner {persona}")
    }
    /// An id a list flag names more than once: the plan keeps its first place.
    pub fn named_twice(flag: &str, ids: &[String]) -> String {
        let shown: Vec<String> = ids
            .iter()
            .map(|i| crate::sanitize::one_line(i, 80))
            .collect();
        format!(
            "note: {flag} names {} twice; each is judged once",
            shown.join(", ")
        )
    }
    pub const DEMO_JUDGE_NOTE: &str =
        "(a deterministic offline judge for trying jury out; Ctrl-C stops it)";

    pub fn bad_structured(other: &str) -> String {
        format!("structured must be auto, tools, json_schema or json, not {other:?}")
    }
    pub fn bad_seconds(flag: &str, x: f64) -> String {
        format!("{flag} must be a positive number of seconds, not {x}")
    }
    pub fn bad_answer_mb(mb: f64) -> String {
        format!("--max-answer-mb must be a positive number, not {mb}")
    }
    pub fn nothing_sent(settled: usize, skipped: u64) -> String {
        format!(
            "dry run: nothing would be sent ({settled} combination(s) settled without a request, {skipped} already judged)"
        )
    }
    pub fn request_heading(requests: usize, combinations: usize) -> String {
        format!("# request 1 of {requests} ({combinations} combination(s) in it)")
    }
    pub fn dry_run(
        requests: usize,
        combinations: u64,
        settled: usize,
        skipped: u64,
        model: &str,
        prompt_hash: &str,
    ) -> String {
        format!(
            "dry run: {requests} request(s) for {combinations} combination(s) ({settled} settled without a request, {skipped} already judged, skipped); model {model}, prompt set {prompt_hash}"
        )
    }
    pub fn all_judged(skipped: u64) -> String {
        format!(
            "nothing to judge: all {skipped} combination(s) already have verdicts for this persona, mode, perspective, model and prompt set"
        )
    }
    pub fn demo_judge_listening(base_url: &str, model: &str) -> String {
        format!("demo judge listening: export OPENAI_BASE_URL={base_url} JURY_MODEL={model}")
    }
}

/// `jury run` while it runs and when it ends.
pub mod drive {
    use crate::engine::Progress;

    pub const STOPPED_AT_ONCE: &str = "stopped before the run could finish cleanly";
    pub const CANCELLING: &str = "cancelling: what has arrived is kept… (again to stop at once)";
    /// Ctrl-C while a batch run waits, on a terminal.
    pub const ASK_BATCH: &str = "Ctrl-C: cancel the batch on the server (c), or leave it running and wait for it later with --resume (l, the default)? ";

    pub fn stopped_at(run_id: i64, endpoint: &str) -> String {
        format!(
            "error: run {run_id} stopped at {endpoint}; what arrived is stored, fix the cause and continue with the same command plus --resume"
        )
    }
    /// The summary line; `note` is already sanitised by the caller.
    pub fn summary(
        run_id: i64,
        status: &str,
        p: &Progress,
        missing: u64,
        records: u64,
        note: Option<&str>,
    ) -> String {
        use crate::analytics::usage_text::{cost_phrase, tokens_phrase};
        format!(
            "run {} {}: {}/{} verdicts, {} without a verdict, {} failure record(s), {} requests, {}{}, {:.1}s{}",
            run_id,
            status,
            p.verdicts,
            p.total,
            missing,
            records,
            p.requests,
            tokens_phrase(
                p.usage.prompt_tokens + p.usage.completion_tokens,
                p.requests,
                p.usage_unknown
            ),
            cost_phrase(p.cost_usd, p.requests, p.usage_unknown)
                .map(|c| format!(", {c}"))
                .unwrap_or_default(),
            p.elapsed.as_secs_f64(),
            note.map(|n| format!(" — {n}")).unwrap_or_default()
        )
    }
    pub fn failures_on_the_way(records: u64, run_id: i64) -> String {
        format!(
            "every combination has its verdict; {records} failure record(s) on the way (retried or salvaged): jury failures {run_id}"
        )
    }
    pub fn resuming(skipped: u64) -> String {
        format!("resuming: {skipped} combination(s) already judged are skipped")
    }
    pub fn bar_message(p: &Progress) -> String {
        use crate::analytics::usage_text::{cost_phrase, tokens_phrase};
        format!(
            "{}{}{}",
            tokens_phrase(
                p.usage.prompt_tokens + p.usage.completion_tokens,
                p.requests,
                p.usage_unknown
            ),
            cost_phrase(p.cost_usd, p.requests, p.usage_unknown)
                .map(|c| format!(" · {c}"))
                .unwrap_or_default(),
            if p.failed > 0 {
                format!(" · {} failed", p.failed)
            } else {
                String::new()
            }
        )
    }
    pub fn retrying(reason: &str) -> String {
        format!("retrying: {reason}")
    }
    pub fn store_waiting(waited: std::time::Duration) -> String {
        format!(
            "waiting for the store: another process holds its write lock ({} s so far); the answers that arrived are kept and written once it is free",
            waited.as_secs()
        )
    }
    pub fn open_batch_instead(run_id: i64) -> String {
        format!(
            "run {run_id} has these combinations in a batch still open on the server: waiting for it and reading its answers instead of judging them directly at full price"
        )
    }
    pub fn claimed_elsewhere(skipped: u64, runs: &[i64]) -> String {
        let runs: Vec<String> = runs.iter().map(|r| r.to_string()).collect();
        format!(
            "{skipped} combination(s) skipped: run {} (still running) is judging them; `--resume` once it ends picks up what it leaves",
            runs.join(", ")
        )
    }
    pub fn see_failures(run_id: i64) -> String {
        format!("see the failures with: jury failures {run_id}")
    }
    pub fn never_sent(missing: u64, run_id: i64) -> String {
        format!(
            "{missing} combination(s) of run {run_id} have no verdict and no recorded failure (never sent, or cut off by the stop); the same command plus --resume asks for them"
        )
    }
}

/// `jury adjudicate`.
pub mod adjudicate;

/// `jury run --cascade`.
pub mod cascade;

/// `jury doctor`: the message of each check line (the line's level and
/// check name are its layout, in doctor/mod.rs).
pub mod doctor;

/// `jury doctor`'s endpoint checks (doctor/endpoint.rs).
pub mod doctor_endpoint;

/// Any command's fatal error, as `main` prints it (`why` already sanitised).
pub fn fatal(why: &str) -> String {
    format!("error: {why}")
}

pub fn stdout_failed(why: &str) -> String {
    format!("cannot write to standard output: {why}; the output is incomplete")
}

#[cfg(test)]
mod tests {
    // The sentences assembled from optional parts read as they did when
    // each command built them itself.
    #[test]
    fn optional_parts_join_as_before() {
        assert_eq!(super::list::requests(3, None, None), "      3 request(s)");
        assert_eq!(
            super::list::requests(
                3,
                Some(super::list::usage_unknown(1)),
                Some(super::list::cached_share(50.0))
            ),
            "      3 request(s), usage unknown for 1, 50 % of prompt tokens cached"
        );
        assert_eq!(
            super::import::imported(1, 2, 3, 4, "s.db", 0),
            "imported 1 items, 2 personas, 3 perspectives, 4 labels into s.db"
        );
        assert!(super::import::imported(1, 2, 3, 4, "s.db", 5).ends_with("s.db (5 skipped)"));
        assert_eq!(super::failures::none(None), "no failures");
        assert_eq!(super::failures::none(Some(7)), "no failures in run 7");
        assert_eq!(
            super::doctor_endpoint::model_not_listed("u", "m", 9, &["a", "b"]),
            "u is reachable but does not list the model 'm' (9 model(s): a, b, …); pick one with --model or JURY_MODEL"
        );
    }
}
