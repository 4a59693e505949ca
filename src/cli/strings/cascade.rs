//! `jury run --cascade`.

pub const TWO_OR_MORE: &str = "--cascade needs two judges or more, in order: A,B[,C...]";
pub const NO_DRY_RUN: &str = "--cascade cannot --dry-run: what a later judge is asked depends on the verdicts of the judges before it; run without --cascade and --dry-run to see the first judge's requests";

pub const NO_OWNER: &str = "--cascade judges as one persona: --persona owner (one run per owner) is not supported with it; run the cascade once per persona";

pub fn named_twice(given: &str) -> String {
    format!("--cascade: '{given}' is named twice; each judge once, in order")
}

pub fn bad_stage(given: &str) -> String {
    format!(
        "--cascade: '{given}' is no judge: give a model (MODEL or MODEL@URL) or an imported source's judge name"
    )
}

/// One classification and perspective with too few labels.
pub fn group_short(classification: &str, perspective: &str, labelled: usize) -> String {
    format!(
        "{} · {}: {labelled}",
        crate::sanitize::one_line(classification, 40),
        crate::sanitize::one_line(perspective, 40)
    )
}

pub fn too_few_labels(
    short: &[String],
    needed: usize,
    stages: usize,
    alpha: f64,
    delta: f64,
) -> String {
    format!(
        "--cascade: too few of this run's combinations have a person's decided label to calibrate the first judge at α {alpha} and δ {delta}/{stages}: each classification and perspective needs at least {needed} (labelled now: {}). Label more (a random sample: the workbench's sample order, or `jury sample`) before spending on the cascade; nothing was sent",
        short.join(", ")
    )
}

pub fn some_too_few(short: &[String], needed: usize) -> String {
    format!(
        "--cascade: fewer than {needed} labelled combinations in {}: there no judge can keep anything, and every combination goes on to the next judge and then to people",
        short.join(", ")
    )
}

pub fn stage_start(
    i: usize,
    n: usize,
    given: &str,
    asked: u64,
    reused: u64,
    kept_before: u64,
) -> String {
    format!(
        "cascade stage {i}/{n}, {given}: asking {asked} combination(s) ({reused} judged before, {kept_before} kept by the judges before it)"
    )
}

pub fn imported_stage(i: usize, n: usize, given: &str) -> String {
    format!("cascade stage {i}/{n}, {given}: imported verdicts, nothing asked")
}

pub fn budget_spent(spent: f64, budget: f64) -> String {
    format!(
        "--budget {budget}: the stages so far spent ${spent:.4}; the next stage was not started (--resume continues)"
    )
}

pub fn stopped(i: usize, given: &str) -> String {
    format!(
        "cascade stage {i}, {given}, did not end well: the cascade stops here (its record keeps what was done; --resume continues)"
    )
}

pub fn taken_up(run_id: i64) -> String {
    format!("taking up cascade run {run_id}")
}

pub fn queue_of(run_id: i64, stages: &str) -> String {
    format!(
        "The queue of cascade run {run_id} ({}), the latest jury run --cascade: what none of its judges keeps, at its levels (--judge NAME gives one judge's queue, --cascade A,B another cascade's).",
        crate::sanitize::one_line(stages, 120)
    )
}
