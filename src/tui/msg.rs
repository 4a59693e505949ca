//! Messages into [`super::update::update`] and effects out of it: the
//! whole vocabulary between the workbench's layers.

use super::app::{PlannedRun, RunPlan};
use crate::domain::{Failure, Label, Persona, Run};
use crate::engine::EngineEvent;
use crossterm::event::KeyEvent;

/// Everything that can change the state, grouped by where it comes from.
/// Each answer to an [`Effect`] names the effect it answers; results carry
/// the error as text, since update only shows it.
#[derive(Debug, Clone)]
pub enum Msg {
    // ----- the terminal and the clock (the event loop) -----
    /// A key pressed (or released: update ignores releases).
    Key(KeyEvent),
    /// Text pasted in one piece (bracketed paste): typed into the open text
    /// field, never run as keys.
    Paste(String),
    /// The terminal's new size in columns and rows; also sent once at start.
    Resize(u16, u16),
    /// A timer tick (spinner, elapsed time, keeping a changed session);
    /// sent only while a run shows progress or the session waits to be kept.
    Tick,
    /// About once a second, always: time to ask whether others changed
    /// labels, notes or marks in the store (see `update::live`).
    WatchTick,

    // ----- the engine (run tasks) -----
    /// An engine event from the run this session tagged `tag`.
    Engine { tag: u64, event: EngineEvent },
    /// A run task ended; `error` when it could not start or ended in a
    /// fatal error (also the answer to `Effect::StartRun` and
    /// `Effect::StartLoopRun` when no endpoint is configured).
    RunEnded { tag: u64, error: Option<String> },
    /// What the planned runs would send (answers `Effect::PlanRuns`).
    /// `started` is the run (tag) that was asked to start and did not,
    /// because nothing was missing (answers `Effect::StartRun`).
    RunsPlanned {
        started: Option<u64>,
        result: Result<Vec<PlannedRun>, String>,
    },
    /// The few-shot loop's run is planned (answers `Effect::PrepareLoop`).
    LoopReady(Result<Box<super::app::LoopReady>, String>),

    // ----- store reads and writes on blocking tasks -----
    /// Runs and their failures, for the runs view (answers `Effect::LoadRuns`).
    RunsLoaded(Result<(Vec<Run>, Vec<Failure>), String>),
    /// The store's split, read for `L` (made with `jury split` while the
    /// workbench was open, perhaps); answers `Effect::LoadSplitForLoop`.
    SplitForLoop(Result<Option<crate::store::Split>, String>),
    /// A combination's label history, newest first, for the history popup
    /// (answers `Effect::LoadLabelHistory`).
    LabelHistory {
        key: crate::domain::ComboKey,
        result: Result<Vec<crate::store::LabelEvent>, String>,
        /// The combination's mark changes, newest first (none when they
        /// could not be read: the labels' history is what matters).
        marks: Vec<crate::store::MarkEvent>,
    },
    /// The persona saved as it was given, or why not (answers
    /// `Effect::SavePersona`).
    PersonaSaved(Result<Persona, String>),
    /// The verdicts that need a person, for the "needs a person" filter
    /// (answers `Effect::LoadEscalations`).
    EscalationsLoaded(Result<Escalations, String>),
    /// The active order for this person (answers `Effect::LoadActiveOrder`).
    ActiveOrderLoaded(Result<Box<crate::report::active_walk::ActiveWalk>, String>),
    /// What the next label is worth, per estimate (answers
    /// `Effect::LoadLabelWorth`).
    LabelWorth(Result<Vec<crate::report::label_worth::Worth>, String>),

    // ----- the agreement report -----
    /// A part of the answer to `Effect::LoadAgreement { req }`, the parts in
    /// the order of [`AgreementPart`]. Only the request the open agreement
    /// view waits for is taken: a side switched with `t`, or the view closed
    /// and opened again, while one was computed leaves its parts stale, and
    /// update drops them.
    Agreement { req: u64, part: AgreementPart },

    // ----- the label writer (one thread, jobs answered in order) -----
    /// The label writer answered request `req` (answers `Effect::SaveLabel`,
    /// `Effect::SaveNote` and `Effect::UndoLabel` when it was done or failed).
    LabelSaved {
        req: u64,
        result: Result<(), String>,
    },
    /// The undo `req` was refused: the label changed since the change it
    /// would revert (`current`: the label the store holds now, if any).
    UndoRefused {
        req: u64,
        current: Option<Label>,
        why: String,
    },
    /// The store refused to record a label as sampled (answers
    /// `Effect::MarkSampled` only when it failed; the label itself is
    /// answered on its own).
    SampleNotKept(String),
    /// The store refused a mark (answers `Effect::SaveMark` only when it
    /// failed): why, and the write to hand over again once the store is
    /// back (None when the writer never saw it).
    MarkNotSaved { why: String, retry: Option<Effect> },
    /// The session could not be saved (answers `Effect::SaveSession` only
    /// when it failed).
    SessionNotSaved(String),
    /// The label writer lost the store (a PostgreSQL server restarting, a
    /// network cut): why. Sent once, before the answer to the job that
    /// found it; the writer tries again with backoff until `StoreBack`.
    StoreUnreachable(String),
    /// The store answers the label writer again after `StoreUnreachable`.
    StoreBack,

    /// The lease on `item` was asked (answers `Effect::MoveLease`):
    /// `Some(lease)` when someone else holds it, and the others' running
    /// leases as they stand.
    LeaseMoved {
        item: Option<String>,
        result: LeaseAnswer,
    },

    /// What others changed in the store since the marker `since` (answers
    /// `Effect::WatchStore`).
    StoreWatched {
        since: crate::store::ChangeMarker,
        result: Result<crate::store::Changed, String>,
    },
    /// The runs marked running in the store, when that changed (the store
    /// watcher's; runs of other processes show on the status line).
    RunsRunning(Vec<crate::store::RunningRun>),

    // ----- the recovery file beside the store -----
    /// The recovery file was written: where, or why not (answers
    /// `Effect::KeepUnsaved`, and `Effect::ClearUnsaved` when it failed).
    UnsavedKept(Result<String, String>),
    /// The store refused an adjudication or its undo: why.
    AdjudicationNotSaved(String),
}

/// Work for [`super::effects`] to do; never done inside `update`.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Read the store's held-out split, then go on with `L` (answers
    /// `Msg::SplitForLoop`).
    LoadSplitForLoop,
    /// Record that a label was given in the random `sample` order (answers
    /// only when the store refused: `Msg::SampleNotKept`).
    MarkSampled {
        key: crate::domain::ComboKey,
        persona: String,
        who: String,
        how: crate::store::Selected,
    },
    /// Set (or, `mark` None, clear) a row's "come back later" mark durably;
    /// `kind` is `mark` or `undo`. Answers only when it failed
    /// (`Msg::MarkNotSaved`).
    SaveMark {
        slot: crate::store::MarkSlot,
        mark: Option<(crate::domain::MarkKind, String)>,
        at: String,
        kind: crate::store::MarkEventKind,
    },
    /// Write a label durably and answer with `Msg::LabelSaved { req }`.
    SaveLabel { req: u64, label: Label },
    /// Write an adjudication durably; answers only when it failed
    /// (`Msg::AdjudicationNotSaved`).
    SaveAdjudication(crate::domain::Adjudication),
    /// Undo an adjudication (`restore` the one before, stamped `at`, or none);
    /// answers only when it failed (`Msg::AdjudicationNotSaved`).
    UndoAdjudication {
        undoes: crate::domain::Adjudication,
        restore: Option<crate::domain::Adjudication>,
        at: String,
    },
    /// Save only the note of a label (`label.note`): the value the store
    /// holds stays, since it may be newer than the one shown (`jury label`
    /// from a shell). A label the store does not hold yet is saved whole.
    /// Answers `Msg::LabelSaved { req }`.
    SaveNote { req: u64, label: Label },
    /// Release `who`'s lease on `release` and lease `take` to them until
    /// `until` (the clock read `now`), in that order, then read the others'
    /// running leases (answers `Msg::LeaseMoved`).
    MoveLease {
        who: String,
        release: Option<String>,
        take: Option<String>,
        now: String,
        until: String,
    },
    /// Read what changed in the store since `since`: the new marker and the
    /// changed items' labels and marks (answers `Msg::StoreWatched`).
    WatchStore { since: crate::store::ChangeMarker },
    /// Start a run; one that resumes and finds nothing missing does not
    /// start, and answers `Msg::RunsPlanned { started: Some(tag) }`.
    StartRun { tag: u64, plan: RunPlan },
    /// Count what these runs would send, missing and all (answers `Msg::RunsPlanned`).
    PlanRuns(Vec<RunPlan>),
    /// Cancel the run tagged `tag` (its end arrives as `Msg::RunEnded`).
    CancelRun { tag: u64 },
    /// Read runs and failures from the store (answers `Msg::RunsLoaded`).
    LoadRuns,
    /// Find the verdicts that cannot stand without a person (trust
    /// thresholds over the whole store; answers `Msg::EscalationsLoaded`).
    LoadEscalations,
    /// Lay out the active order and read what the store holds of it for
    /// `who` (answers `Msg::ActiveOrderLoaded`).
    LoadActiveOrder { who: String },
    /// Compute what the next label is worth, as `jury plan` (answers
    /// `Msg::LabelWorth`).
    LoadLabelWorth,
    /// Compute the agreement figures, on one side of the held-out split or
    /// all and on the listed items (answers `Msg::Agreement { req }`, part by
    /// part).
    LoadAgreement {
        req: u64,
        scope: crate::report::Scope,
    },
    /// Add or replace a persona in the store (answers `Msg::PersonaSaved`).
    SavePersona(Persona),
    /// Add labels to the recovery file beside the store (answers `Msg::UnsavedKept`).
    KeepUnsaved(Vec<Label>),
    /// Remove the recovery file: its labels are saved or were discarded.
    ClearUnsaved,
    /// Remove these labels from the recovery file (saved after the store
    /// came back), leaving any others it holds; the file goes when empty.
    /// Answers only when it failed (`Msg::UnsavedKept`).
    ForgetUnsaved(Vec<Label>),
    /// Undo a label change durably, after every label write handed over
    /// before it; answers `Msg::LabelSaved { req }`.
    UndoLabel {
        req: u64,
        undo: crate::store::LabelUndo,
    },
    /// Read a combination's label history (answers `Msg::LabelHistory`).
    LoadLabelHistory(crate::domain::ComboKey),
    /// Keep the workbench session (JSON) for `who`'s next start.
    SaveSession { who: String, state: String },
    /// The few-shot loop: write the set from `train` labels beside the store
    /// (or, with `baseline_for`, reuse that set's examples to leave their
    /// items out) and plan the run on the held-out items with resume
    /// (answers `Msg::LoopReady`).
    PrepareLoop {
        plan: RunPlan,
        baseline_for: Option<std::path::PathBuf>,
        /// Each item is judged as its owner (`plan.persona_id()` for items
        /// without one): one run per owner persona.
        by_owner: bool,
    },
    /// A run with `--resume` semantics, with the prompt set in `prompts`
    /// (`None`: the workbench's own).
    StartLoopRun {
        tag: u64,
        plan: RunPlan,
        prompts: Option<std::path::PathBuf>,
    },
}

/// What the store said to a lease move: the other holder of the item
/// asked for (if any), and every running lease of the others.
pub type LeaseAnswer = Result<(Option<crate::store::Lease>, Vec<crate::store::Lease>), String>;

/// The answer to `Effect::LoadAgreement`, part by part, in this order.
#[derive(Debug, Clone)]
pub enum AgreementPart {
    /// The agreement figures, computed off the UI thread. An error ends the
    /// answer: no part follows it.
    Figures(Result<Vec<crate::report::GroupFigures>, String>),
    /// Self-consistency and position-bias lines for the agreement view.
    Notes(Vec<String>),
    /// Which judge agrees best (`jury report --rank`'s lines), for the top
    /// of the agreement view.
    Ranking(Vec<crate::report::rank::Ranking>),
    /// The classifier's accuracy per classification (`jury estimate`'s
    /// headline lines), for the very top of the agreement view.
    Estimates(Vec<String>),
    /// Each agreement group's pairs as confusion-matrix cells (in the
    /// order of the groups), so Enter on a cell lists its items.
    Cells(Vec<crate::report::GroupCells>),
    /// The agreement view's prompt-version changes (the few-shot loop's delta).
    Changes(Vec<crate::report::prompt_change::PromptChange>),
}

/// The escalation queue as the workbench keeps it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Escalations {
    /// Each combination that needs a person: (persona, combination).
    pub queue: Vec<(String, crate::domain::ComboKey)>,
    /// The judge configurations whose verdicts these are, each once, as the
    /// report names them: the rows in view may show another one.
    pub judges: Vec<String>,
    /// Whether any judge configuration is trusted (has a threshold): when
    /// none is, every judged combination no one labelled is in the queue.
    pub trusted: bool,
}

impl Msg {
    /// An answer that leaves the screen as it was: the store watcher's,
    /// when nothing new was found or the check failed (it is asked again
    /// quietly). The loop skips the redraw for it.
    pub fn changes_nothing(&self) -> bool {
        match self {
            Msg::StoreWatched { since, result } => {
                result.as_ref().map_or(true, |c| c.nothing(since))
            }
            _ => false,
        }
    }
}
