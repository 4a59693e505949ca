//! The few-shot loop (`L`): its messages, confirm step and delta lines.

pub const NO_SPLIT: &str = "no held-out split: make one with `jury split --holdout 0.3 --seed 1`, then L again (examples come from train labels, the change is measured on test)";
pub const PREPARING: &str =
    "building the few-shot set from train labels and planning its run on the held-out items…";
pub const BASELINE_PREPARING: &str = "planning a run of the current prompts on the held-out items…";
pub const ALREADY_RUNNING: &str =
    "the few-shot loop's run is still going (x cancels it; L then continues it)";
pub const NOT_STARTED: &str = "not started: nothing was sent";
pub const ALL_JUDGED: &str =
    "these prompts already judged every held-out item: nothing to send (resume)";
pub const TITLE: &str = " few-shot loop: run on the held-out test items? ";
pub const BASELINE_TITLE: &str = " baseline: run the current prompts on the held-out items? ";
pub const EACH_ITEMS_OWNER: &str = "each item's owner";
pub const COMPUTING: &str = "few-shot loop: computing the change on the held-out items…";

pub fn no_test_items(persona: &str) -> String {
    format!(
        "no held-out (test) labels for persona {persona} and the chosen perspective(s): label more items, or pick the persona people labelled for"
    )
}
pub fn pair_level_split(count: usize, example: &str, holdout: f64, seed: u64) -> String {
    format!(
        "the split was made by (item, classification) pair: {count} item(s) have pairs on both sides (e.g. {example}), so an example could show a held-out item; remake it by item with `jury split --replace --holdout {holdout} --seed {seed}`, then L again"
    )
}
pub fn failed(e: &str) -> String {
    format!("few-shot loop: {e}")
}
pub fn stopped(l_key: &str) -> String {
    format!("the few-shot loop's run stopped before the end; {l_key} continues it where it stopped")
}
/// The confirm step's lines.
#[allow(clippy::too_many_arguments)]
pub fn confirm_lines(
    baseline: bool,
    set: &str,
    hash8: &str,
    examples: usize,
    reused: bool,
    items: usize,
    left_out: usize,
    mode: &str,
    (by_owner, persona): (bool, &str),
    requests: usize,
    skipped: u64,
) -> Vec<String> {
    let mut out = Vec::new();
    let persona = if by_owner {
        format!("each item's owner ({persona}; one run per persona)")
    } else {
        persona.to_string()
    };
    if baseline {
        out.push(format!(
            "The delta needs a baseline: the current prompts judged on the same held-out items. \
             Run them on {items} item(s) in mode {mode} as {persona}."
        ));
    } else {
        out.push(format!(
            "Few-shot set {set} (prompts {hash8}, {examples} example(s) from train labels over modes 1-3{}).",
            if reused { ", the same examples as before" } else { "" }
        ));
        out.push(format!(
            "Run it on {items} held-out test item(s) in mode {mode} as {persona}."
        ));
    }
    if left_out > 0 {
        out.push(format!(
            "{left_out} held-out item(s) left out: an example shows them."
        ));
    }
    if skipped > 0 {
        out.push(format!(
            "{skipped} combination(s) already judged with these prompts are skipped (resume)."
        ));
    }
    out.push(String::new());
    out.push(format!("It will send {requests} request(s)."));
    out
}
pub fn headline(
    judge: &str,
    person: &str,
    before: &str,
    after: &str,
    ci: &str,
    n: usize,
) -> String {
    format!(
        "few-shot loop · {judge} vs {person}: κ {before} → {after}{ci} on {n} held-out combination(s)"
    )
}
pub fn delta_line(versions: &str, delta: &str, ci: &str) -> String {
    format!("   {versions}, Δκ {delta}{ci} (paired bootstrap 95 %)")
}
pub fn needs_baseline(l_key: &str) -> String {
    format!(
        "few-shot loop: no earlier prompt version judged these held-out items, so the delta needs a baseline run; {l_key} runs the current prompts on them too"
    )
}
