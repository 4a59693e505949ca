//! The user's choices that shape the verdict rows and the next runs:
//! persona, perspective, mode, structured path and blind review.

use crate::domain::Mode;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PerspectiveSel {
    One(usize),
    All,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Choices {
    /// Index into the workspace's personas: the persona when one is fixed,
    /// and for items without an owner.
    pub persona: usize,
    /// Each item is judged and labelled as its owner (`Item::owner`); the
    /// default when items have owners, until the user fixes one persona.
    pub by_owner: bool,
    pub perspective: PerspectiveSel,
    pub mode: Mode,
    /// How runs ask for structured answers (`None`: auto, the engine finds
    /// the path); config `structured` is the default, a key cycles it.
    pub structured: Option<crate::provider::ToolMode>,
    /// Blind review: judge values hidden until the row is labelled.
    pub blind: bool,
}

impl Default for Choices {
    fn default() -> Choices {
        Choices {
            persona: 0,
            by_owner: false,
            perspective: PerspectiveSel::One(0),
            mode: Mode::Two,
            structured: None,
            blind: false,
        }
    }
}
