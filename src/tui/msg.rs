//! Messages into [`super::update::update`] and effects out of it.

use super::app::RunPlan;
use crate::domain::{Failure, Label, Persona, Run};
use crate::engine::EngineEvent;
use crossterm::event::KeyEvent;

/// Everything that can change the state.
#[derive(Debug, Clone)]
pub enum Msg {
    Key(KeyEvent),
    Paste(String),
    Resize(u16, u16),
    /// A timer tick (spinner, elapsed time).
    Tick,
    /// An engine event from the run this session tagged `tag`.
    Engine {
        tag: u64,
        event: EngineEvent,
    },
    /// A run task ended; `error` when it could not start or ended in a fatal error.
    RunEnded {
        tag: u64,
        error: Option<String>,
    },
    /// The label writer answered request `req`.
    LabelSaved {
        req: u64,
        result: Result<(), String>,
    },
    RunsLoaded(Result<(Vec<Run>, Vec<Failure>), String>),
    /// The agreement figures, computed off the UI thread.
    AgreementLoaded(Result<Vec<crate::report::GroupFigures>, String>),
    /// Self-consistency and position-bias lines for the agreement view.
    AgreementNotes(Vec<String>),
    /// Each agreement group's pairs as confusion-matrix cells (in the
    /// order of the groups), so Enter on a cell lists its items.
    AgreementCells(Vec<crate::report::GroupCells>),
    PersonaSaved(Result<Persona, String>),
    /// The recovery file was written: where, or why not.
    UnsavedKept(Result<String, String>),
}

/// Work for [`super::effects`] to do; never done inside `update`.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Write a label durably and answer with `Msg::LabelSaved { req }`.
    SaveLabel {
        req: u64,
        label: Label,
    },
    StartRun {
        tag: u64,
        plan: RunPlan,
    },
    CancelRun {
        tag: u64,
    },
    /// Read runs and failures from the store (answers `Msg::RunsLoaded`).
    LoadRuns,
    /// Compute the agreement figures (answers `Msg::AgreementLoaded`).
    /// The agreement figures, on one side of the held-out split or all.
    LoadAgreement(Option<crate::domain::Side>),
    SavePersona(Persona),
    /// Add labels to the recovery file beside the store (answers `Msg::UnsavedKept`).
    KeepUnsaved(Vec<Label>),
    /// Remove the recovery file: its labels are saved or were discarded.
    ClearUnsaved,
}
