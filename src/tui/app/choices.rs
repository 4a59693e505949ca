//! The user's choices that shape the verdict rows and the next runs:
//! persona, perspective, mode, structured path and blind review; and where
//! the focus goes after a label.

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
    /// What the compare view's columns are.
    pub compare_axis: CompareAxis,
    /// The side of the held-out split the agreement view opens on (`None`:
    /// all pairs); its split key changes it.
    pub split_side: Option<crate::domain::Side>,
    /// Where the focus goes after a label: config `auto_advance` (default
    /// `item`), set by [`crate::tui::build_app`]; an `App` built without
    /// settings (tests, benches) keeps the focus where it is.
    pub auto_advance: crate::config::AutoAdvance,
    /// How often a batch run looks at its batch on the server: config
    /// `batch_poll` (seconds, default 30, as `jury run --batch-poll`).
    pub batch_poll: std::time::Duration,
}

/// The compare view's columns: the modes, the personas or the models that
/// judged the current item (docs/design.md §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompareAxis {
    #[default]
    Mode,
    Persona,
    Model,
}

impl CompareAxis {
    pub fn next(self) -> CompareAxis {
        match self {
            CompareAxis::Mode => CompareAxis::Persona,
            CompareAxis::Persona => CompareAxis::Model,
            CompareAxis::Model => CompareAxis::Mode,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            CompareAxis::Mode => "mode",
            CompareAxis::Persona => "persona",
            CompareAxis::Model => "model",
        }
    }
    pub fn parse(s: &str) -> Option<CompareAxis> {
        [CompareAxis::Mode, CompareAxis::Persona, CompareAxis::Model]
            .into_iter()
            .find(|a| a.name() == s)
    }
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
            compare_axis: CompareAxis::Mode,
            split_side: None,
            auto_advance: crate::config::AutoAdvance::Off,
            batch_poll: std::time::Duration::from_secs(30),
        }
    }
}
