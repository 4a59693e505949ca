//! The vocabulary of jury (DESIGN §1): plain data, no I/O.

mod item;
mod mode;
mod persona;
mod run;
mod scale;
mod split;
mod verdict;

pub use item::{Classification, Item, Source};
pub use mode::{Mode, Protocol, judge_name};
pub use persona::{Persona, Perspective};
pub use run::{Run, RunSpec, RunStatus};
pub use scale::{Agreement, Degree, Scale, Value, ValueError};
pub use split::{Side, SplitError, SplitRule};
pub use verdict::{
    ComboKey, Confidence, ConfidenceSource, Failure, FailureKind, Label, RequestPosition, Usage,
    Verdict,
};
