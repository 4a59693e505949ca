//! Judge styles. A protocol supplies only what differs between styles: how
//! combinations are grouped into requests, how a request is written, how an
//! answer is parsed and validated, and its scale. The engine, store, labels,
//! analytics and TUI are shared.

pub mod awag;
mod build;
pub mod caps;
mod error;
pub mod guideline;
mod items;
pub mod proposition;
pub mod rubric;
pub mod spec;

pub use build::{Built, build};
pub use error::ProtocolError;
pub use items::ItemBook;
pub use spec::{JudgeSpec, SpecError, SpecFlags, SpecRefusal};

use crate::domain::{ComboKey, Mode, Protocol, Scale, Value};
use crate::provider::ChatCall;

/// One combination to judge, with the selection the judge is asked about
/// (so a different `evaluatedSelection` in the answer can be flagged).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Unit {
    pub key: ComboKey,
    pub asked_selection: String,
}

/// Each item's place among the items of `units`, in first-seen order: the
/// order a request lists them in (requests keep the units' item order), so
/// both request building and the engine's position record use it.
pub fn item_order(units: &[Unit]) -> std::collections::HashMap<&str, usize> {
    let mut order = std::collections::HashMap::new();
    for u in units {
        let next = order.len();
        order.entry(u.key.item_id.as_str()).or_insert(next);
    }
    order
}

/// A validated answer for one unit.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedVerdict {
    pub key: ComboKey,
    pub value: Value,
    pub text: String,
    pub evaluated_selection: Option<String>,
    pub selection_mismatch: bool,
    /// The entry as the judge wrote it.
    pub raw: String,
}

/// What came of one answer: the valid verdicts, and a reason for every unit
/// asked about that did not get one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParseOutcome {
    pub verdicts: Vec<ParsedVerdict>,
    /// Units without a valid verdict, each with why.
    pub missing: Vec<(ComboKey, String)>,
    /// Problems not tied to a unit we asked about (unknown ids, duplicates...).
    pub notes: Vec<String>,
    /// True when the answer was not JSON at all.
    pub malformed: bool,
}

/// The seam every judge style implements.
pub trait JudgeProtocol: Send + Sync {
    fn protocol(&self) -> Protocol;
    /// The AwAg mode; the other judge styles have none.
    fn mode(&self) -> Option<Mode> {
        None
    }
    fn scale(&self) -> Scale;
    /// Every unit to judge for these items (in order), skipping items this
    /// protocol cannot judge.
    fn units(&self, item_ids: &[String]) -> Vec<Unit>;
    /// Groups units into requests of at most `batch_size` (what "size" counts
    /// is the protocol's business: items for Mode 1, entries for Modes 2/3).
    /// The units move into their requests: a plan of 100 000 combinations
    /// is held once, not once more per grouping.
    fn batches(&self, units: Vec<Unit>, batch_size: usize) -> Vec<Vec<Unit>>;
    /// The request for one batch; `boundary` delimits untrusted content.
    fn build_call(&self, batch: &[Unit], boundary: &str) -> Result<ChatCall, ProtocolError>;
    /// Validates an answer against the batch it answers.
    fn parse(&self, batch: &[Unit], answer: &str) -> ParseOutcome;
    /// Evaluation texts visible in a partial answer to `batch` (streaming display).
    fn partial_texts(&self, batch: &[Unit], partial: &serde_json::Value)
    -> Vec<(ComboKey, String)>;
    /// Verdicts decided without asking the judge (a proposition whose
    /// precondition does not hold). Called once at plan time; the units
    /// returned here are not sent.
    fn settle(&self, _units: &[Unit]) -> Vec<ParsedVerdict> {
        Vec::new()
    }
    /// A follow-up turn in the same conversation once `first` has been parsed
    /// from `answer` to `call` (proposition `--double-check`); `None` when done.
    fn follow_up(
        &self,
        _batch: &[Unit],
        _call: &ChatCall,
        _answer: &str,
        _first: &ParseOutcome,
    ) -> Option<ChatCall> {
        None
    }
    /// Combines the first outcome with the follow-up's answer.
    fn parse_follow_up(
        &self,
        _batch: &[Unit],
        first: &ParseOutcome,
        _answer: &str,
    ) -> ParseOutcome {
        first.clone()
    }
}

/// A fresh unguessable boundary token (128 bits from the OS-seeded hasher and the clock).
pub fn new_boundary() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut out = String::with_capacity(32);
    for i in 0..2u64 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0),
        );
        h.write_u32(std::process::id());
        out.push_str(&format!("{:016x}", h.finish()));
    }
    out
}
