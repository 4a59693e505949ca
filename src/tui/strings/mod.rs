//! The sentences the workbench shows a person, in one place (as gitui's
//! `strings.rs`): status messages, the popups' prompts and the help screen's
//! notes. Callers pass values already sanitised for display; key names come
//! from the live keymap. What each key does is said beside the action itself
//! (`action.rs`), where the keymap reads it.

/// Untrusted text as the workbench shows it on one row: neutralised and
/// cut as [`crate::sanitize::one_line`] does, with a newline (and the `⏎`
/// the report's own lines mark one with) shown as a space. The `⏎` suits a
/// terminal log; on a screen it reads as a stray glyph, and a space keeps
/// the words apart.
pub fn flat(s: &str, max_chars: usize) -> String {
    crate::sanitize::one_line(s, max_chars).replace('⏎', " ")
}

/// Status-bar messages.
pub mod msg {
    pub const CELLS_COMING: &str =
        "the pairs behind the figures are still being read: enter again in a moment";
    pub const OTHER_COLUMNS_WHERE: &str =
        "the columns key works in the agreement and runs views, under 120 columns";
    pub const EVERY_COLUMN_SHOWN: &str = "every column shows at this width";
    pub const SPLIT_IN_AGREEMENT: &str =
        "the split key works in the agreement view: all pairs, held-out test, train";
    // ----- runs -----
    pub const NO_ITEMS: &str = "no items to judge";
    pub const NO_PERSONA: &str = "no persona: import one (jury import) or create one (P, then N)";
    pub const NO_PERSPECTIVE: &str = "no perspective: import one with jury import";
    pub const NO_ENDPOINT_TITLE: &str = "cannot judge: no endpoint";
    /// The "no endpoint" popup: why, then how to judge at once with the
    /// offline demo judge (one command a line, to be copied as it is).
    pub fn no_endpoint(why: &str) -> String {
        format!(
            "{why}\n\nTo try it now, start the offline demo judge (keyword rules, not a model) and jury with it:\n  jury demo-judge --port 8089 &\n  OPENAI_BASE_URL=http://127.0.0.1:8089/v1 JURY_MODEL=jury-demo-judge jury"
        )
    }
    pub const EVERY_MODE_JUDGED: &str = "every mode already has verdicts for this item";
    pub const CANCELLING: &str = "cancelling: the verdicts that arrived are kept…";
    pub const NO_RUN_TO_CANCEL: &str = "no run is going";
    pub const COUNTING: &str = "counting what the list needs…";
    pub const NOTHING_MISSING: &str =
        "nothing is missing: every combination is judged with these settings";

    /// The runs view's first line (the status bar's words for the runs).
    pub fn session_runs(progress: Option<&str>, cost: &str) -> String {
        match progress {
            Some(p) => format!("this session: {p} · cost {cost}"),
            None => "this session: no runs started yet".into(),
        }
    }
    pub fn judging(items: usize, what: &str) -> String {
        format!("judging {items} item(s) {what}…")
    }
    pub fn with_protocol(protocol: &str) -> String {
        format!("with the {protocol} protocol")
    }
    pub fn in_mode(mode: &str) -> String {
        format!("in mode {mode}")
    }
    pub fn open_compare_first(compare_key: &str) -> String {
        format!("open compare ({compare_key}) to start missing runs")
    }
    pub fn structured(name: &str) -> String {
        format!("structured answers for the next runs: {name}")
    }
    pub fn skipped(n: u64) -> String {
        format!("{n} already judged, skipped")
    }
    pub fn store_waiting(waited: std::time::Duration) -> String {
        format!(
            "waiting for the store's write lock (another process holds it, {} s so far); answers are kept",
            waited.as_secs()
        )
    }
    pub fn claimed_elsewhere(skipped: u64, runs: &[i64]) -> String {
        let runs: Vec<String> = runs.iter().map(|r| r.to_string()).collect();
        format!("{skipped} skipped: run {} is judging them", runs.join(", "))
    }
    pub fn retrying(seconds: f64, reason: &str) -> String {
        format!("retrying in {seconds:.1}s: {reason}")
    }
    pub fn judge_failure(kind: &str, reason: &str) -> String {
        format!("judge failure ({kind}): {reason}")
    }
    /// How a run ended: `run 7 done: 8/10 verdicts, 2 failed`. The end
    /// message opens with it and the status bar's "last run" is it.
    pub fn run_outcome(run: &str, status: &str, verdicts: u64, total: u64, failed: u64) -> String {
        format!("{run} {status}: {verdicts}/{total} verdicts, {failed} failed")
    }
    /// The end message: the outcome, then why it stopped short, if it did.
    pub fn run_finished(outcome: &str, note: Option<&str>) -> String {
        match note {
            Some(n) => format!("{outcome} — {n}"),
            None => outcome.to_string(),
        }
    }
    /// The status bar once no run goes and several ended this session:
    /// `5 runs done: 483 verdicts` (`5 runs ended, 1 not done: …` when one
    /// was cancelled or failed; `, 2 failed` for failed combinations).
    pub fn runs_done(runs: usize, verdicts: u64, failed: u64, not_done: usize) -> String {
        let mut s = if not_done > 0 {
            format!("{runs} runs ended, {not_done} not done: {verdicts} verdicts")
        } else {
            format!("{runs} runs done: {verdicts} verdicts")
        };
        if failed > 0 {
            s.push_str(&format!(", {failed} failed"));
        }
        s
    }
    /// The status bar while another process runs on this store:
    /// `⠋ run 7 elsewhere: 4 210 requests, 100 002 planned (+1 runs)`.
    pub fn run_elsewhere(spin: &str, id: i64, requests: u64, total: u64, more: usize) -> String {
        let mut s = format!("{spin} run {id} elsewhere: {requests} requests, {total} planned");
        if more > 0 {
            s.push_str(&format!(" (+{more} runs)"));
        }
        s
    }
    /// The status bar once no run goes: the one that ended last.
    pub fn last_run(outcome: &str) -> String {
        format!("last {outcome}")
    }

    // ----- choices and the list -----
    /// The status bar's persona: whose item this is when each item is
    /// judged as its owner.
    pub fn persona_status(id: &str) -> String {
        format!(" persona {id}")
    }
    pub const PERSONA_BY_OWNER: &str = " persona: each item's owner";
    /// Each item's owner is the choice: `id` is the one this item is read
    /// as (its owner, or the picked persona for an item without one).
    pub fn persona_by_owner_status(id: &str, owner: bool) -> String {
        if owner {
            format!(" persona: each item's owner ({id})")
        } else {
            format!(" persona: each item's owner ({id}: no owner)")
        }
    }
    /// The list border's and status bar's progress: of the `listed`
    /// items, `done` have every shown row labelled by the current annotator
    /// (the "not labelled by me" filter keeps the others).
    pub fn progress(done: usize, listed: usize) -> String {
        format!("{done}/{listed} labelled by me")
    }
    /// The progress under "not labelled by me", whose done items leave
    /// the list: of the `of` items the search keeps, `done` are done.
    pub fn queue_progress(done: usize, of: usize) -> String {
        format!("{done} of {of} done · {} left", of.saturating_sub(done))
    }
    /// The progress under "not labelled by me" when `jury assign` gave
    /// this person items: of the `of` assigned, `done` are done.
    pub fn assigned_progress(done: usize, of: usize) -> String {
        format!(
            "{done} of {of} assigned done · {} left",
            of.saturating_sub(done)
        )
    }
    /// Someone else has the item open from their queue (a lease).
    pub fn leased_to(item: &str, who: &str, until_utc: &str) -> String {
        format!(
            "{who} has {item} open (leased until {until_utc} UTC): you may label it too; j moves on"
        )
    }
    pub fn lease_failed(why: &str) -> String {
        format!("could not lease the item open in your queue: {why}")
    }
    /// [`assigned_progress`] where the list's border has no room for it.
    pub fn assigned_progress_short(done: usize, of: usize) -> String {
        format!("{done}/{of} assigned")
    }
    /// [`queue_progress`] where the list's border has no room for it.
    pub fn queue_progress_short(done: usize, of: usize) -> String {
        format!("{done}/{of} done")
    }
    /// [`progress`] where the list's border has no room for it.
    pub fn progress_short(done: usize, listed: usize) -> String {
        format!("{done}/{listed} by me")
    }
    /// A run waiting for its batch: `⠋ run: batch in_progress 3/10`.
    pub fn batch_waiting(spinner: &str, status: &str, answered: u64, total: u64) -> String {
        format!("{spinner} run: batch {status} {answered}/{total}")
    }
    /// `auto_advance = "item"` moved on to the next item that needs you.
    pub fn next_item_for_me(id: &str) -> String {
        format!("next item without your label: {id}")
    }
    pub const NOTHING_LEFT_FOR_ME: &str =
        "nothing left for you here: every listed item has your label on every row shown";
    pub const ONLY_THIS_ITEM_LEFT: &str =
        "no other listed item needs you; this one still has a row without your label";
    /// `f` chose a filter (the list's border may be too narrow to name it).
    pub fn filter_chosen(name: &str, listed: usize, all: usize) -> String {
        format!("filter: {name} ({listed} of {all} items)")
    }
    pub fn persona_chosen(name: &str) -> String {
        format!("persona: {name}")
    }
    pub use super::active::*;
    pub const FINDING_ESCALATIONS: &str =
        "finding the verdicts that need a person (trust thresholds at α = δ = 0.1)…";
    /// `judges`: the configurations the queued verdicts come from, which
    /// the rows in view (their mode, persona) may not show; `trusted`:
    /// whether any judge is (when none is, the queue is every judged
    /// combination no one labelled).
    pub fn escalations(verdicts: usize, items: usize, judges: &[String], trusted: bool) -> String {
        if !trusted {
            if verdicts == 0 {
                return "no judge is trusted yet (no verdict with a confidence, or no threshold meets the guarantee: jury trust says which), and every judged combination has a label".into();
            }
            return format!(
                "no judge is trusted yet (no verdict with a confidence, or no threshold meets the guarantee: jury trust says which): all {verdicts} judged combination(s) no one labelled need a person, on {items} listed item(s)"
            );
        }
        if verdicts == 0 {
            return "no verdict needs a person: none of the trusted judges' unlabelled verdicts is below its threshold".into();
        }
        let from = match judges {
            [] => String::new(),
            [one] => format!(", from {one}"),
            [one, two] => format!(", from {one} and {two}"),
            [one, rest @ ..] => format!(", from {one} and {} more", rest.len()),
        };
        format!(
            "{verdicts} verdict(s) on {items} listed item(s) need a person{from}: below their judge's trust threshold, without a confidence or undecided (jury trust --needs-person lists them)"
        )
    }
    pub fn escalations_failed(why: &str) -> String {
        format!("could not find the verdicts that need a person: {why}")
    }
    pub fn list_order(order: &str) -> String {
        format!("list order: {order}")
    }
    pub const BLIND_RAW: &str = "(blind review: the reason and the raw answer are hidden)";
    pub fn blind_hides(blind_key: &str) -> String {
        format!("blind review hides the judge here; {blind_key} turns it off")
    }
    pub fn blind_review(on: bool) -> String {
        format!(
            "blind review {}",
            if on {
                "on: judge values hidden until you label"
            } else {
                "off"
            }
        )
    }
    pub fn persona_saved(id: &str) -> String {
        format!("persona {id} saved")
    }
    pub fn persona_not_saved(why: &str) -> String {
        format!("persona NOT saved: {why}")
    }

    // ----- labels -----
    pub const SCORE_KEYS: &str = "0 and 6–9 label 0–9 scores (proposition score rows)";
    pub const UNDECIDED_IN_MODE_3: &str =
        "3 is undecided on the AGREE/DISAGREE scale of mode 3: use a or d";
    pub const NO_ROW_TO_LABEL: &str = "no classification row to label";
    pub const LABEL_ROW_FIRST: &str = "label this row first, then add a note";
    pub const LABEL_AWAG_ROW_FIRST: &str = "label this row first (1–5, a/d), then add a note";
    pub fn agreement_on_likert_row(mode: &str, mode_key: &str) -> String {
        format!(
            "a/d label AGREE/DISAGREE rows (mode 3; {mode_key} switches modes): this row is Likert in mode {mode}, use 1–5"
        )
    }
    pub const ROW_LIKERT: &str = "this row is on a 1–5 scale: use 1–5";
    pub const ROW_SCORE: &str = "this row is on a 0–9 scale: use 0–9";
    pub const ROW_BOOL: &str = "this row is true/false: a = true, d = false";
    pub const ROW_DEGREE: &str =
        "this row is no/partially/fully: 1 no, 2 partially, 3 fully (or d / a)";
    pub const ROW_AGREEMENT: &str = "this row is AGREE/DISAGREE: use a or d";

    pub fn retrying_unsaved(n: usize) -> String {
        format!("retrying {n} unsaved label(s)")
    }
    pub fn label_not_saved(why: &str, retry_key: &str) -> String {
        format!("label NOT saved: {why} — kept as unsaved; press {retry_key} to retry")
    }
    pub fn paste_ignored(note_key: &str) -> String {
        format!(
            "paste ignored: no text field has focus (press {note_key} on a label to write a note)"
        )
    }

    // ----- opening a workspace -----
    pub const BAD_STRUCTURED: &str =
        "config structured must be auto, tools, json_schema or json: using auto";
    pub const NO_ITEMS_OTHER_WORK: &str = "this store has no items (sample data not loaded: it holds other work); add items with `jury import PATH`";
    pub const BUNDLED_SAMPLE: &str = "the bundled sample data";

    pub fn sample_loaded(items: usize, personas: usize, perspectives: usize, from: &str) -> String {
        format!(
            "new workspace: sample data loaded ({items} items, {personas} personas, {perspectives} perspectives from {from})"
        )
    }

    // ----- quitting and the recovery file -----
    pub const RECOVERED_SAVED: &str =
        "the recovered labels are saved; the recovery file is removed";

    pub fn not_quitting(unsaved: usize) -> String {
        format!("not quitting: {unsaved} label(s) not saved yet")
    }
    pub fn recovery_file_error(why: &str) -> String {
        format!("recovery file: {why}")
    }
    pub fn kept_for_later(n: usize, path: &str) -> String {
        format!("{n} unsaved label(s) stay in {path}; offered again at the next start")
    }
    pub fn discarded(n: usize) -> String {
        format!("discarded {n} recovered label(s)")
    }
    pub fn recovery_unreadable(path: &str, bad: usize) -> String {
        format!("{path}: {bad} line(s) unreadable; left in the file")
    }
    /// After a signal, on stderr.
    pub fn lost_labels(n: usize, why: &str) -> String {
        format!("{n} label(s) could not be saved nor kept for replay: {why}")
    }
    // ----- the store away and back (a PostgreSQL restart, a network cut) -----
    pub fn store_unreachable(why: &str) -> String {
        format!(
            "store unreachable ({why}): labels are kept in the unsaved-labels file and saved on their own when it answers again"
        )
    }
    pub fn kept_while_away(n: usize, path: &str) -> String {
        format!(
            "store unreachable: {n} label(s) kept in {path}; saved on their own when it answers again"
        )
    }
    pub const STORE_BACK: &str = "the store answers again";
    pub fn store_back_saving(n: usize) -> String {
        format!("the store answers again: saving {n} kept label(s)…")
    }
    pub fn saved_after_away(n: usize) -> String {
        format!(
            "the store answers again: {n} kept label(s) saved and removed from the unsaved-labels file"
        )
    }

    pub fn replaying(n: usize) -> String {
        format!("replaying {n} label(s) from the recovery file…")
    }
}

/// The agreement and runs tables: what is above, below and a key away.
pub mod table {
    /// The agreement table's legend for the columns shown (`heads`): "agree
    /// is raw agreement; kappa and alpha correct it for chance; AC1 and
    /// PABAK too, …; base rate = each side's share of its most common value;
    /// acc = the classifier's accuracy as each side reads it" when all show.
    /// `undecided`: some group has undecided pairs (`n` reads "24+43").
    pub fn agreement_legend(heads: &[&str], undecided: bool) -> String {
        let has = |h: &str| heads.contains(&h);
        let mut parts = Vec::new();
        if has("agree") {
            parts.push("agree is raw agreement".to_string());
        }
        if undecided {
            parts.push(
                "n d+u: u undecided pairs (a 3 against AGREE/DISAGREE) out of the figures; 3 as .5 counts them half"
                    .into(),
            );
        }
        let corrected: Vec<&str> = ["kappa", "alpha"].into_iter().filter(|h| has(h)).collect();
        if !corrected.is_empty() {
            let verb = if corrected.len() > 1 {
                "correct"
            } else {
                "corrects"
            };
            let what = if has("agree") { "it" } else { "agreement" };
            parts.push(format!(
                "{} {verb} {what} for chance",
                corrected.join(" and ")
            ));
        }
        let robust: Vec<&str> = ["AC1", "PABAK"].into_iter().filter(|h| has(h)).collect();
        if !robust.is_empty() {
            parts.push(format!(
                "{} too, robust to one dominant value",
                robust.join(" and ")
            ));
        }
        if ["kappa", "AC1", "PABAK"].iter().any(|h| has(h)) {
            parts.push("[a,b] 95 %".into());
        }
        if has("base L/R") {
            parts.push("base rate = each side's share of its most common value".into());
        }
        if has("acc L/R") {
            parts.push("acc = the classifier's accuracy as each side reads it".into());
        }
        parts.join("; ")
    }
    /// Below the agreement table when a kappa in it is marked.
    pub const PREVALENCE_MARK: &str = "kappa ! : misleading, one value is most of the answers (chance agreement near 1); read AC1, PABAK";
    /// What the agreement table shows first, named when the key brings it back.
    pub const AGREEMENT_FIRST: &str = "agree, kappa, AC1";
    /// What the runs table shows first.
    pub const RUNS_FIRST: &str = "start, judge, prompts";

    /// "↑ 2 above · ↓ 12 more · w more columns: alpha, base L/R", or `None`
    /// when every row and column is in sight. `page` of `pages` is the set
    /// of columns in view, `next` what the key shows next (page 0 again
    /// after the last: "w back to `first`").
    pub fn status(
        above: usize,
        below: usize,
        key: &str,
        (page, pages): (usize, usize),
        next: &[&str],
        first: &str,
    ) -> Option<String> {
        let mut parts = Vec::new();
        if above > 0 {
            parts.push(format!("↑ {above} above"));
        }
        if below > 0 {
            parts.push(format!("↓ {below} more"));
        }
        if pages > 1 {
            parts.push(if page % pages + 1 == pages {
                format!("{key} back to {first}")
            } else {
                format!("{key} more columns: {}", next.join(", "))
            });
        }
        (!parts.is_empty()).then(|| parts.join(" · "))
    }
}

/// A proposition row's claim line.
pub mod claim {
    /// Where a claim goes when the workbench knows no config directory.
    pub const IN_CONFIG_DIR: &str = "claims.toml in the config directory";

    /// The one line that stands for the current item's claim rows whose
    /// claim is not configured; `file` is where `claims.toml` is read.
    pub fn hidden(ids: &[String], file: &str) -> String {
        format!(
            "{} claim(s) hidden, claim text unknown: {} · add to {file}",
            ids.len(),
            ids.join(", ")
        )
    }
    /// [`hidden`] on a narrow screen.
    pub fn hidden_short(ids: &[String]) -> String {
        format!(
            "{} claim(s) hidden, text unknown: {} (claims.toml)",
            ids.len(),
            ids.join(", ")
        )
    }
    pub fn about(claim: &str, scoring: &str) -> String {
        format!("claim ({scoring}): {claim}")
    }
    pub fn cannot_judge(ids: &str) -> String {
        format!("not judged, claim text unknown (add to claims.toml): {ids}")
    }
}

/// How a label on another scale than its row's reads.
pub mod label {
    /// `H AGREE (mapped: likert 4)`, or `H 3 (likert)` (no reading) on
    /// an AGREE/DISAGREE row; `H DISAGREE (agreement)` on a Likert row.
    pub fn other_scale(value: &str, scale: &str, mapped: Option<&str>) -> String {
        match mapped {
            Some(m) => format!("H {m} (mapped: {scale} {value})"),
            None => format!("H {value} ({scale})"),
        }
    }
}

/// The popups' titles, lines and key hints (keys come from the keymap).
pub mod popup {
    pub const PRESS_ANY_KEY: &str = "press any key";
    pub const ALL_PERSPECTIVES: &str = "all perspectives";
    pub const EACH_ITEMS_OWNER: &str = "each item's owner (one run per owner)";
    pub const PERSONA_NEEDS_ID: &str = "the persona needs an id";
    pub const DEFINITION_NOT_OBJECT: &str = "definition must be a JSON object";

    pub fn not_a_persona(why: &str) -> String {
        format!("not a persona: {why}")
    }

    pub fn picker_title(what: &str, pick: &str, close: &str) -> String {
        format!(" {what} ({pick} picks, {close} closes) ")
    }
    pub fn search_title(submit: &str, close: &str) -> String {
        format!(" search ({submit} keeps, {close} closes) ")
    }
    /// Under the search field: every term it reads.
    pub const SEARCH_TERMS_LINE: &str = "words (id, title, sender) · cls=value · judge:cls=value · by:name · tag:name · split:test · conf<0.6 · text:word · why:word · note:word · -term drops";
    pub fn note_title(submit: &str, close: &str) -> String {
        format!(" note for this label ({submit} saves, {close} cancels) ")
    }
    pub fn persona_title(submit: &str, close: &str) -> String {
        format!(" persona JSON ({submit} saves, {close} cancels) ")
    }

    // ----- the quit prompt -----
    pub const QUITTING_TITLE: &str = " quitting ";
    pub const KEEPING: &str = "keeping them in a recovery file…";
    pub const KEPT_IN: &str =
        "They are kept in this file and offered for replay at the next start:";
    pub const NOT_KEPT: &str = "They could NOT be kept for later either: quitting loses them.";

    pub fn saving_before_quit(n: usize) -> String {
        format!("saving {n} label(s) before quitting…")
    }
    pub fn stay(stay_key: &str) -> String {
        format!("{stay_key} stay")
    }
    pub fn not_saved_title(n: usize) -> String {
        format!(" {n} label(s) NOT saved ")
    }
    pub fn could_not_write(n: usize) -> String {
        format!("{n} label(s) could not be written to the store:")
    }
    pub fn quit_keys(quit: &str, retry: &str, stay: &str) -> String {
        format!("{quit} quit anyway · {retry} retry saving · {stay} stay")
    }

    // ----- the cancel prompt -----
    pub const CANCEL_TITLE: &str = " cancel a run? ";
    pub const CANCEL_KEPT: &str = "Verdicts that arrived are kept; the run shows as cancelled.";

    /// "run 4 · awag mode 2 · 80 of 110 done" (the run id once the engine has one).
    pub fn cancel_line(run: &str, what: &str, done: u64, total: u64) -> String {
        if total == 0 {
            format!("{run} · {what} · starting")
        } else {
            format!("{run} · {what} · {done} of {total} done")
        }
    }
    pub fn run_name(run_id: Option<i64>, tag: u64) -> String {
        match run_id {
            Some(id) => format!("run {id}"),
            None => format!("run #{tag} (not started)"),
        }
    }
    pub fn quit_with_runs_title(runs: usize) -> &'static str {
        if runs > 1 {
            " quit? runs are going "
        } else {
            " quit? a run is going "
        }
    }
    pub fn quit_with_runs_keys(yes: &str, quit: &str, keep: &str, runs: usize) -> String {
        let them = if runs > 1 { "them all" } else { "it" };
        format!("{yes} (or {quit} again) cancel {them} and quit · {keep} stay, keep {them} going")
    }
    pub fn not_quitting_runs(runs: usize) -> String {
        format!("not quitting: {runs} run(s) keep going")
    }
    pub fn cancel_keys(yes: &str, all: &str, keep: &str, several: bool) -> String {
        if several {
            format!("{yes} cancel the highlighted run · {all} cancel all · {keep} keep them going")
        } else {
            format!("{yes} cancel it · {keep} keep it going")
        }
    }

    // ----- the run confirmation (R) -----
    pub const CONFIRM_TITLE: &str = " judge the list? ";
    pub const JUDGED_TITLE: &str = " already judged ";
    pub fn run_going(cancel_key: &str) -> String {
        format!(
            "A run is going: what it has not stored yet counts as missing here ({cancel_key} cancels it)."
        )
    }
    pub const JUDGED_INTRO: &str = "Every combination here is already judged with these settings (model, prompts, persona, mode).";

    /// A run's heading: "awag mode 2 · persona kenton · 94 item(s)".
    pub fn confirm_run(what: &str, persona: Option<&str>, items: usize) -> String {
        match persona {
            Some(persona) => format!("{what} · persona {persona} · {items} item(s)"),
            None => format!("{what} · {items} item(s)"),
        }
    }
    /// One count line: "missing: 12 items · 24 combinations · 5 requests · at most $0.0123".
    pub fn confirm_count(
        label: &str,
        items: usize,
        combos: u64,
        requests: usize,
        cost: &str,
    ) -> String {
        format!(
            "  {label:<9} {items} item(s) · {combos} combination(s) · {requests} request(s) · {cost}"
        )
    }
    pub fn cost(c: Option<f64>) -> String {
        match c {
            Some(c) => format!("at most ${c:.4}"),
            None => "cost —".into(),
        }
    }
    pub fn confirm_total(label: &str, requests: usize, cost: &str) -> String {
        format!("in all, {label} {requests} request(s) · {cost}")
    }
    pub fn cost_note(model: &str, priced: bool) -> String {
        if priced {
            format!(
                "cost: the most it can cost at {model}'s price (prices.toml), every byte a token"
            )
        } else {
            format!("cost —: no price for {model} (add it to prices.toml)")
        }
    }
    pub fn confirm_keys(missing: &str, batch: &str, all: &str, none: &str, judged: bool) -> String {
        if judged {
            format!("{all} re-judge it · {none} leave it")
        } else {
            format!(
                "{missing} judge the missing ones · {batch} as a batch · {all} re-judge everything · {none} start nothing"
            )
        }
    }
    /// What sending the missing combinations as a batch would be.
    pub fn confirm_batch(requests: usize, cost: &str) -> String {
        format!(
            "as a batch: {requests} request(s) · {cost} at the batch price · answers within 24 h"
        )
    }

    // ----- the replay offer -----
    pub const REPLAY_TITLE: &str = " unsaved labels from the last session ";

    pub fn replay_intro(n: usize) -> String {
        format!("{n} label(s) could not be saved when jury last closed; they were kept in")
    }
    pub fn and_more(n: usize) -> String {
        format!("  … and {n} more")
    }
    pub fn replay_keys(replay: &str, keep: &str, discard: &str) -> String {
        format!(
            "{replay} replay them into the store · {keep} keep them for later · {discard} discard them"
        )
    }
}

/// The help screen's notes around the generated key list, and the hint line.
pub mod help {
    use crate::tui::input::action::Action;

    pub const HEADER: &str =
        "keys as bound now (defaults + your keymap.toml); j/k scroll, esc back";
    pub const LIST_MARKS: &str = "list marks: J judged · H labelled (by anyone) · ≠ a label and the judge disagree · ! control characters or instruction-like text · ? your unsure/skip · ✎ a note";
    pub const ROW_LABELS: &str = "verdict rows: J the judge's value · H your label (another scale: mapped) · ✎ notes, in full below · test/train: its side of the split";
    pub const BLIND_NOTE: &str = "blind review hides the judge: J values until you label, the ≠ marks, compare and agreement";
    pub const HELP_WORD: &str = "help";
    pub const LEGEND_TITLE: &str = " what the marks mean ";

    pub fn legend_hint(close: &str, help: &str) -> String {
        format!("{close} hides this · {help} lists every key and these marks")
    }
    pub const LABEL_STATES: &str =
        "label states: ✓saved (on disk) · …saving · ✗UNSAVED (kept; retry with the retry key)";
    pub const UNBOUND: &str = "(unbound)";
    /// The search field's terms and what "labelled" counts.
    pub const SEARCH_TERMS: &[&str] = &[
        "search (/): free words match id, title or sender; terms narrow further, all combined with the filter (f) and order (o):",
        "  urgency=not        the classifier's value on a classification",
        "  judge:urgency=2    the judge's latest value there (current persona, mode, shown perspectives)",
        "  by:alice           someone named alice labelled a row of the item",
        "  split:test         a classification of the item is on that side of the held-out split",
        "  tag:persona-misread  a label on a row of the item carries the tag (config.toml tags)",
        "  conf<0.6           the judge's confidence on a row in view is under 0.6 (also >, <=, >=)",
        "  text:kettle        the item's body holds the word",
        "  why:invoice        the judge's reasoning on a row in view holds it (latest verdicts)",
        "  note:ring          anyone's note on a label or an unsure/skip mark of the item holds it",
        "  -term, -word       the opposite: -by:alice, -judge:urgency=2, -tag:…, -split:test, -note:ring, -invoice",
        "order (o): file · judge≠human · mode≠mode · persona≠persona · low confidence first · random sample (seeded; its labels count as sampled for jury estimate) · where the judge is unsure (active sample: its labels are recorded as draws with their π; both sample orders show what the next label is worth)",
        "progress \"37/200 labelled by me\": of the items listed, those where you labelled every row shown (each classification × shown perspective, current persona); filter f \"not labelled by me\" lists the others, \"labelled by anyone\" counts anyone's label",
        "agreement view: tab moves into the confusion matrix (arrows move between cells); enter lists the items behind the cell or group; esc comes back",
    ];

    /// The hint line under the screen: each action's key (from the keymap)
    /// and its word ("1-5 label" stands without a key).
    pub const KEY_HINTS: &[(Action, &str)] = &[
        (Action::Activate, "judge"),
        (Action::Likert1, "1-5 label"),
        (Action::Agree, "agree"),
        (Action::Disagree, "disagree"),
        (Action::CycleMode, "mode"),
        (Action::PickPersona, "persona"),
        (Action::PickPerspective, "perspective"),
        (Action::Compare, "compare"),
        (Action::RunFiltered, "run list"),
        (Action::Help, "help"),
        (Action::Quit, "quit"),
    ];

    pub fn popup_section(title: &str, section: &str) -> String {
        format!("{title} [{section}]")
    }
}

// Undo and history, the compare axes, the few-shot loop, the search terms.
pub mod active;
pub mod adjudicate;
pub mod compare;
pub mod fewshot;
pub mod marks;
pub mod query;
pub mod session;
pub mod verdict;
