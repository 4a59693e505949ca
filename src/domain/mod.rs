//! The vocabulary of jury (docs/design.md §1): plain data, no I/O.

mod adjudication;
mod cascade;
mod item;
mod mark;
mod mode;
mod origin;
mod persona;
mod record;
mod run;
mod scale;
mod split;
mod verdict;
mod who;

pub use adjudication::{
    Adjudication, AdjudicationIndex, AdjudicationSlot, AssignedPeople, Dispute, ReferenceCounts,
    ReferenceSource, disputes, same_answer,
};
pub use cascade::{
    CASCADE_MODEL_PREFIX, CASCADE_RECORD_VERSION, CascadeRecord, CascadeStage, StageSource,
    StageThreshold,
};
pub use item::{Classification, Item, Source};
pub use mark::{MarkKind, RowMark, join_tags, split_tags};
pub use mode::{Mode, Protocol, judge_name};
pub use origin::ImportOrigin;
pub use persona::{
    OWNER_CHOICE, Persona, PersonaRef, Perspective, reserved_id, reserved_perspective_id,
};
pub use record::{BatchSettings, BatchWay, PromptsUsed, RECORD_VERSION, RunRecord};
pub use run::{Run, RunSpec, RunStatus, utc_minute};
pub use scale::{Agreement, Degree, Scale, Value, ValueError};
pub use split::{Side, SplitError, SplitRule};
pub use verdict::{
    ComboKey, Confidence, ConfidenceSource, Failure, FailureKind, Label, RequestPosition, Usage,
    Verdict,
};
pub use who::{refused_who, who_on_team_store};

/// `ids` with each id kept at its first place, and the ids that were named
/// more than once (each once, in order): a combination named twice is one
/// combination, judged once.
pub fn first_of_each(ids: Vec<String>) -> (Vec<String>, Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    let mut repeated = Vec::new();
    let mut kept = Vec::with_capacity(ids.len());
    for id in ids {
        if seen.insert(id.clone()) {
            kept.push(id);
        } else if !repeated.contains(&id) {
            repeated.push(id);
        }
    }
    (kept, repeated)
}
