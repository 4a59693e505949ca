//! The chrome: focus, the view and popup on screen, the status message,
//! terminal size, keymap and theme.

use crate::domain::{ComboKey, Failure, Label, Run};
use crate::tui::input::keymap::Keymap;
use crate::tui::theme::Theme;
use ratatui_textarea::TextArea;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pane {
    List,
    Item,
    Verdicts,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerKind {
    Persona,
    Perspective,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    Search,
    Note,
    /// The note of an `unsure` or `skip` mark (the label note editor).
    MarkNote(crate::domain::MarkKind),
    Persona,
}

pub enum Popup {
    Picker {
        kind: PickerKind,
        options: Vec<String>,
        cursor: usize,
    },
    Input {
        kind: InputKind,
        area: Box<TextArea<'static>>,
        /// The combination a note belongs to.
        target: Option<(ComboKey, crate::domain::Scale)>,
        error: Option<String>,
    },
    /// A message that needs acknowledging (e.g. no endpoint configured);
    /// `text` may hold several lines.
    Notice { title: String, text: String },
    /// Quitting with labels not yet on disk.
    Quit(QuitPrompt),
    /// Cancelling a run: the runs still going (tags, oldest first) and the
    /// highlighted one.
    CancelRun { tags: Vec<u64>, cursor: usize },
    /// Quitting while runs go: asked as the cancel prompt asks (its keys,
    /// the runs still going), and a yes cancels them all and quits.
    QuitWithRuns { tags: Vec<u64> },
    /// What the runs would send, before they start. `judged` when the user
    /// asked for one item that is already judged (only re-judging is left).
    ConfirmRuns {
        runs: Vec<super::PlannedRun>,
        judged: bool,
    },
    /// The tags of my label at this place (combination, persona, scale):
    /// the configured set with toggles, `cursor` highlighted.
    Tags {
        key: ComboKey,
        persona: String,
        scale: crate::domain::Scale,
        cursor: usize,
    },
    /// A row's label history (any key closes it); lines already sanitised.
    History { title: String, lines: Vec<String> },
    /// Labels an earlier session could not save, offered for replay at start.
    Replay {
        labels: Vec<Label>,
        /// Where they are kept (shown).
        path: String,
    },
    /// The few-shot loop's run, waiting for a yes.
    ConfirmLoop(Box<super::LoopReady>),
}

/// The quit prompt: first the retry of every unsaved label, then, when some
/// still fail, the question.
#[derive(Debug, Clone, PartialEq)]
pub enum QuitPrompt {
    /// Waiting for the store's answers to the retry.
    Saving,
    Unsaved {
        count: usize,
        /// The store's last refusal.
        reason: String,
        /// Where the recovery file keeps them, or why it could not; `None`
        /// while it is being written.
        kept: Option<Result<String, String>>,
    },
}

/// The views besides the main screen.
#[derive(Debug, Clone, PartialEq)]
pub enum View {
    Main,
    Compare,
    Personas { cursor: usize },
    Runs(RunsView),
    Agreement(AgreementState),
    Prompt { text: String, scroll: u16 },
    Help { scroll: u16 },
}

#[derive(Debug, Clone, PartialEq, Default)]
pub enum RunsView {
    #[default]
    Loading,
    Loaded {
        /// Newest first.
        runs: Vec<ListedRun>,
        failures: Vec<Failure>,
        cursor: usize,
    },
    Error(String),
}

/// A stored run as the runs view lists it: with its start and how long it
/// took read from its timestamps once, when the runs are read.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedRun {
    pub run: Run,
    /// `2026-11-24 04:00` (UTC), or the stored text when it does not read.
    pub started: String,
    /// When it ended, the same way; `None` while it runs.
    pub ended: Option<String>,
    /// From its start to its end; `None` while it runs (or when a time does
    /// not read).
    pub took: Option<std::time::Duration>,
}

impl ListedRun {
    pub fn new(run: Run) -> ListedRun {
        let at = |s: &str| chrono::DateTime::parse_from_rfc3339(s).ok();
        let shown = crate::domain::utc_minute;
        let took = match (at(&run.created_at), run.finished_at.as_deref().and_then(at)) {
            (Some(a), Some(b)) => (b - a).to_std().ok(),
            _ => None,
        };
        ListedRun {
            started: shown(&run.created_at),
            ended: run.finished_at.as_deref().map(shown),
            took,
            run,
        }
    }
}

/// The agreement view: counts at once from what the screen holds, the full
/// figures (`jury report`'s) when a background task has computed them.
#[derive(Debug, Clone, PartialEq)]
pub struct AgreementState {
    /// The `Effect::LoadAgreement` request whose answer this view shows or
    /// waits for: the parts of any other are stale.
    pub req: u64,
    pub quick: Vec<AgreementRow>,
    pub figures: FiguresState,
    /// The selected group (its confusion matrix and distributions are drawn).
    pub cursor: usize,
    /// Self-consistency and position-bias lines, as `jury report` prints them.
    pub notes: Vec<String>,
    /// Which judge agrees best (`jury report --rank`), shown first.
    pub ranking: Vec<crate::report::rank::Ranking>,
    /// The classifier's accuracy per classification (`jury estimate`), at
    /// the very top.
    pub estimates: Vec<String>,
    /// The side of the held-out split the figures cover (`None`: all pairs);
    /// the split key cycles all → test → train.
    pub side: Option<crate::domain::Side>,
    /// The listed items the figures are limited to (`None`: every item).
    pub items: Option<std::sync::Arc<crate::report::ItemSet>>,
    /// The estimates and trust on every item: the list was made of the
    /// judge's verdicts (`report::Scope::heads_on_all`).
    pub heads_on_all: bool,
    /// Each group's pairs as matrix cells (`figures[i]` ↔ `cells[i]`);
    /// empty until the background task sends them.
    pub cells: Vec<crate::report::GroupCells>,
    /// The selected confusion-matrix cell `(row, column)` when the focus is
    /// in the matrix (tab), else `None` (the group table has it).
    pub cell: Option<(usize, usize)>,
    /// Per annotator: of the judged or labelled items listed, how many they labelled
    /// (every shown row), as `(who, labelled)`; and that number of items.
    pub progress: (Vec<(String, usize)>, usize),
}

#[derive(Debug, Clone, PartialEq)]
pub enum FiguresState {
    Computing,
    Ready(Vec<crate::report::GroupFigures>),
    Error(String),
}

/// Judge vs human for one classification, counted from the screen's data.
#[derive(Debug, Clone, PartialEq)]
pub struct AgreementRow {
    pub classification: String,
    pub n: usize,
    pub agree: usize,
    pub undecided: usize,
    /// Over the pairs read as AGREE/DISAGREE (different scales), undecided
    /// ones too: the summed agreement, an undecided answer (Likert 3) read
    /// as 0.5 as `jury report` reads it, and how many pairs.
    pub half_credit: f64,
    pub half_n: usize,
    pub judge_agree: usize,
    pub human_agree: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Warning,
    Error,
}

pub struct Chrome {
    pub(crate) focus: Pane,
    pub view: View,
    pub popup: Option<Popup>,
    pub message: Option<(Level, String)>,
    /// The last known terminal size.
    pub size: (u16, u16),
    pub keymap: Keymap,
    pub theme: Theme,
    pub quit: bool,
    /// The first start's legend is shown, with the start-up note (may be
    /// empty) in its last line instead of over the key hints.
    pub legend: Option<String>,
    /// When the session (persona, mode, filter, item...) was last kept.
    pub session: super::SessionTracker,
    /// The agreement view a drill came from: Esc on the drilled list goes
    /// back to it as it was.
    pub back: Option<Box<AgreementState>>,
    /// Which set of columns the agreement and runs tables show: 0 the
    /// first, then the columns a narrow screen left out, in place of the
    /// others ([`crate::tui::layout::columns::pages`]).
    pub column_page: usize,
}

impl Chrome {
    pub fn new(keymap: Keymap, theme: Theme) -> Chrome {
        Chrome {
            focus: Pane::List,
            view: View::Main,
            popup: None,
            message: None,
            size: (120, 40),
            keymap,
            theme,
            quit: false,
            legend: None,
            session: Default::default(),
            back: None,
            column_page: 0,
        }
    }

    /// Says `text` on the message line, for information.
    pub fn info(&mut self, text: impl Into<String>) {
        self.message = Some((Level::Info, text.into()));
    }

    /// Says `text` on the message line as a warning: something was not done.
    pub fn warn(&mut self, text: impl Into<String>) {
        self.message = Some((Level::Warning, text.into()));
    }

    /// Says `text` on the message line as an error: something failed.
    pub fn error(&mut self, text: impl Into<String>) {
        self.message = Some((Level::Error, text.into()));
    }
}
