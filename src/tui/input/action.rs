//! What a key can ask for. Keys map to these through the [`super::keymap`];
//! `?` lists every binding with the help line below.

use serde::{Deserialize, Serialize};

macro_rules! actions {
    ($( $(#[$attr:meta])+ $name:ident => $help:literal, )+) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Action {
            $( $(#[$attr])+ $name, )+
        }
        impl Action {
            /// Every action, in the order `?` lists them.
            pub const ALL: &'static [Action] = &[ $( Action::$name, )+ ];
            /// One line for the help screen.
            pub fn help(self) -> &'static str {
                match self { $( Action::$name => $help, )+ }
            }
        }
    };
}

actions! {
    /// Move down in the focused pane (next item, next row, scroll text).
    MoveDown => "move down in the focused pane",
    /// Move up in the focused pane.
    MoveUp => "move up in the focused pane",
    /// Move a page down.
    PageDown => "page down",
    /// Move a page up.
    PageUp => "page up",
    /// Agreement view, in the confusion matrix: the cell to the left.
    MoveLeft => "agreement matrix: the cell to the left",
    /// Agreement view, in the confusion matrix: the cell to the right.
    MoveRight => "agreement matrix: the cell to the right",
    /// Jump to the first entry.
    Top => "first entry",
    /// Jump to the last entry.
    Bottom => "last entry",
    /// Focus the next pane (list → item → verdicts).
    FocusNext => "next pane",
    /// Focus the previous pane.
    FocusPrev => "previous pane",
    /// Focus the next classification row (for labels) from any pane.
    NextRow => "next classification row",
    /// Focus the previous classification row.
    PrevRow => "previous classification row",
    /// Acts on what is selected (Enter). On the main screen and in compare:
    /// judges the current item with the current persona, perspective and
    /// mode, at once, only what is missing (an item already judged asks
    /// before re-judging). In the agreement view: lists the items behind the
    /// figure or cell. In the personas view: uses the persona. Keymap files
    /// call it `judge`, its first and main use.
    #[serde(rename = "judge")]
    Activate => "judge the current item (only what is missing; asks before re-judging)",
    /// Run the judge over every item in the filtered list, after saying what
    /// it will send: the missing combinations, or everything again.
    RunFiltered => "judge the filtered list: says what it sends, then missing only or all",
    /// Cycle the evaluation mode 1 → 2 → 3.
    CycleMode => "cycle the mode 1 → 2 → 3",
    /// Cycle how structured answers are asked for: auto → tools → json_schema → json.
    CycleStructured => "cycle structured answers: auto → tools → json_schema → json",
    /// Pick the persona the judge role-plays.
    PickPersona => "pick the persona",
    /// Pick the perspective (or all of them).
    PickPerspective => "pick the perspective",
    /// Human label: Likert 1 on the focused row.
    Likert1 => "human Likert 1 (strongly disagree) for the focused row",
    /// Human label: Likert 2.
    Likert2 => "human Likert 2",
    /// Human label: Likert 3.
    Likert3 => "human Likert 3",
    /// Human label: Likert 4.
    Likert4 => "human Likert 4",
    /// Human label: Likert 5.
    Likert5 => "human Likert 5 (strongly agree)",
    /// Human score 0 on a 0–9 row (proposition `score`).
    Score0 => "human score 0 on a 0–9 row",
    /// Human score 6 on a 0–9 row.
    Score6 => "human score 6 on a 0–9 row",
    /// Human score 7 on a 0–9 row.
    Score7 => "human score 7 on a 0–9 row",
    /// Human score 8 on a 0–9 row.
    Score8 => "human score 8 on a 0–9 row",
    /// Human score 9 on a 0–9 row.
    Score9 => "human score 9 on a 0–9 row",
    /// Human label: AGREE (the classifier was right).
    Agree => "human AGREE for the focused row",
    /// Human label: DISAGREE (the classifier was wrong).
    Disagree => "human DISAGREE for the focused row",
    /// Edit the note of the focused row's label.
    EditNote => "edit the note of the focused label",
    /// Mark the focused row `unsure`, with a note and no label, to come
    /// back to (never counted as a label; `f` lists your marks).
    MarkUnsure => "mark the focused row unsure (a note, no label; come back later)",
    /// Mark the focused row `skip`, with a note and no label.
    MarkSkip => "mark the focused row skipped (a note, no label; come back later)",
    /// Tags on the focused row's label: why the judge was wrong, from the
    /// configured set (config.toml `tags`).
    PickTags => "tags on the focused label (why the judge was wrong)",
    /// Save again every label the store refused.
    RetryUnsaved => "retry saving unsaved labels",
    /// Blind review: hide judge values until the row is labelled.
    ToggleBlind => "blind review on/off",
    /// Search the item list (id, title, sender).
    Search => "search the item list",
    /// Cycle the list filter (all, unjudged, judged, labelled, unlabelled,
    /// not mine, disagreements, needs a person, marked by me).
    CycleFilter => "cycle the list filter",
    /// The list filter cycled backwards (one step back to "not labelled by
    /// me" after one `f` or `Esc` too many).
    CycleFilterBack => "cycle the list filter backwards",
    /// Cycle the list order: file, judge≠human, mode≠mode, persona≠persona, low confidence first.
    CycleOrder => "order the list: file / judge≠human / mode≠mode / persona≠persona / low confidence first",
    /// Open the compare view (modes 1, 2, 3 side by side).
    Compare => "compare modes 1/2/3 for this item",
    /// In compare: start the runs that are missing for this item.
    RunMissing => "compare view: start the missing mode runs",
    /// Open the personas view.
    Personas => "personas (read, edit, create)",
    /// In the personas view: edit the selected persona.
    EditPersona => "personas view: edit the selected persona",
    /// In the personas view: create a new persona.
    NewPersona => "personas view: create a persona",
    /// Open the runs view (progress, tokens, cost, failures).
    Runs => "runs and failures",
    /// Few-shot loop: examples from `train` labels, a run on the held-out
    /// `test` items (confirmed first), then the agreement view on the change.
    FewShotLoop => "few-shot from train labels → run on held-out test → the change in κ",
    /// Open the agreement view (judge vs human).
    Agreement => "agreement judge vs human",
    /// In the agreement view: figures on all pairs, the held-out test side, the train side.
    CycleSplit => "agreement view: all pairs / held-out test / train",
    /// The agreement and runs tables on a narrow screen (under 120
    /// columns): the columns that gave way, in place of the others, and back.
    OtherColumns => "agreement and runs tables, narrow screen: the other columns / back",
    /// Open the prompt view (what is sent for this item).
    Prompt => "the request sent for this item",
    /// Undo the last label change of this session (repeat to walk back).
    Undo => "undo this session's last label, tag, mark or adjudication (again: further back)",
    /// Adjudicate the focused row: the next value key (1–5, a/d, 0–9) gives
    /// its reference label where people disagree, stored with who and when
    /// as an adjudication, not as one's own label. Esc or any other key
    /// leaves it.
    Adjudicate => "adjudicate: the next value key is the focused row's reference label",
    /// The focused row's label history: who, when, value, judge value replaced.
    LabelHistory => "label and mark history of the focused row",
    /// In compare: columns by mode, by persona or by model.
    CompareBy => "compare view: columns by mode / persona / model",
    /// Show every key binding.
    Help => "this help",
    /// Back out: close a view, clear the search, then the filter, then the
    /// message. It never stops a run ([`Action::CancelRun`] does).
    Cancel => "back out: close the view, clear the search, filter or message (not runs)",
    /// Cancel a run: asks first when more than a few combinations are left,
    /// and which run when several are running. Verdicts so far are kept.
    CancelRun => "cancel a run (asks first; its verdicts so far are kept)",
    /// Quit the workbench.
    Quit => "quit",
}

impl Action {
    /// The Likert value of `Likert1`..`Likert5`.
    pub fn likert(self) -> Option<u8> {
        Some(match self {
            Action::Likert1 => 1,
            Action::Likert2 => 2,
            Action::Likert3 => 3,
            Action::Likert4 => 4,
            Action::Likert5 => 5,
            _ => return None,
        })
    }

    /// The digit of `Score0` and `Score6`..`Score9` (1–5 come from [`Action::likert`]).
    pub fn score_digit(self) -> Option<u8> {
        Some(match self {
            Action::Score0 => 0,
            Action::Score6 => 6,
            Action::Score7 => 7,
            Action::Score8 => 8,
            Action::Score9 => 9,
            _ => return None,
        })
    }

    /// The name used in keymap files.
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

/// The popups that read keys through the keymap, each from its own section
/// of the keymap file (a notice closes on any key).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PopupKind {
    /// Quitting with labels not saved.
    QuitPrompt,
    /// Labels an earlier session could not save, offered at start.
    Replay,
    /// The persona and perspective pickers.
    Picker,
    /// The one-line search field and the note editor.
    Editor,
    /// The persona JSON editor (enter there is a new line).
    PersonaEditor,
    /// Cancelling a run: which one, and whether.
    CancelRun,
    /// What `R` (or Enter on a judged item) would send: start or not.
    ConfirmRuns,
    /// The few-shot loop's confirm step (how many requests it will send).
    ConfirmLoop,
}

impl PopupKind {
    /// In the order `?` lists them.
    pub const ALL: &'static [PopupKind] = &[
        PopupKind::QuitPrompt,
        PopupKind::Replay,
        PopupKind::Picker,
        PopupKind::Editor,
        PopupKind::PersonaEditor,
        PopupKind::CancelRun,
        PopupKind::ConfirmRuns,
        PopupKind::ConfirmLoop,
    ];

    /// Its section in the keymap file.
    pub fn section(self) -> &'static str {
        match self {
            PopupKind::QuitPrompt => "quit_prompt",
            PopupKind::Replay => "replay",
            PopupKind::Picker => "picker",
            PopupKind::Editor => "editor",
            PopupKind::PersonaEditor => "persona_editor",
            PopupKind::CancelRun => "cancel_run",
            PopupKind::ConfirmRuns => "confirm_runs",
            PopupKind::ConfirmLoop => "confirm_loop",
        }
    }

    /// What `?` calls it.
    pub fn title(self) -> &'static str {
        match self {
            PopupKind::QuitPrompt => "quit prompt (labels not saved)",
            PopupKind::Replay => "replay offer (labels kept by the last session)",
            PopupKind::Picker => "persona and perspective pickers",
            PopupKind::Editor => "search field and note editor",
            PopupKind::PersonaEditor => "persona JSON editor",
            PopupKind::CancelRun => "cancel a run",
            PopupKind::ConfirmRuns => "judging the list (R): what it will send",
            PopupKind::ConfirmLoop => "few-shot loop: confirm the run",
        }
    }

    /// The popup's actions, in help order.
    pub fn actions(self) -> &'static [PopupAction] {
        use PopupAction::*;
        match self {
            PopupKind::QuitPrompt => &[QuitAnyway, RetrySaving, Stay],
            PopupKind::Replay => &[Replay, Keep, Discard],
            PopupKind::Picker => &[Pick, Next, Previous, First, Last, Close],
            PopupKind::Editor | PopupKind::PersonaEditor => &[Submit, Close],
            PopupKind::CancelRun => &[ConfirmCancel, CancelAll, Next, Previous, KeepRunning],
            PopupKind::ConfirmRuns => &[StartMissing, StartBatch, RejudgeAll, DontStart],
            PopupKind::ConfirmLoop => &[StartRun, Close],
        }
    }
}

macro_rules! popup_actions {
    ($( $(#[doc = $doc:literal])+ $name:ident => $help:literal, )+) => {
        /// What a key asks for on a popup ([`PopupKind`] says which).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum PopupAction {
            $( $(#[doc = $doc])+ $name, )+
        }
        impl PopupAction {
            /// One line for the help screen.
            pub fn help(self) -> &'static str {
                match self { $( PopupAction::$name => $help, )+ }
            }
        }
    };
}

popup_actions! {
    /// Quit prompt: quit with labels not saved (they stay in the recovery file).
    QuitAnyway => "quit anyway (unsaved labels stay in the recovery file)",
    /// Quit prompt: hand the unsaved labels to the store again.
    RetrySaving => "retry saving the unsaved labels",
    /// Quit prompt: do not quit.
    Stay => "stay in the workbench",
    /// Replay offer: write the recovered labels into the store.
    Replay => "replay the recovered labels into the store",
    /// Replay offer: leave them in the recovery file for the next start.
    Keep => "keep them in the recovery file for the next start",
    /// Replay offer: throw the recovered labels away.
    Discard => "discard the recovered labels",
    /// Picker: take the highlighted entry.
    Pick => "pick the highlighted entry",
    /// Picker: highlight the next entry.
    Next => "next entry",
    /// Picker: highlight the previous entry.
    Previous => "previous entry",
    /// Picker: highlight the first entry.
    First => "first entry",
    /// Picker: highlight the last entry.
    Last => "last entry",
    /// Close the popup (a search keeps what was typed; a note or persona is not saved).
    Close => "close (a search keeps what was typed; a note or persona is not saved)",
    /// Confirm step: start the run it describes.
    StartRun => "start the run (its requests are counted on the popup)",
    /// Editors: save the note or persona, keep the search.
    Submit => "save the note or persona / keep the search",
    /// Cancel prompt: cancel the highlighted run.
    ConfirmCancel => "cancel the highlighted run (its verdicts so far are kept)",
    /// Cancel prompt: cancel every run still going.
    CancelAll => "cancel every run still going",
    /// Cancel prompt: cancel nothing.
    KeepRunning => "keep the runs going",
    /// Run confirmation: judge only what is missing (as `jury run --resume`).
    StartMissing => "judge only the missing combinations",
    /// Run confirmation: send the missing combinations as one Batch API
    /// batch per run (or wait again for one already sent).
    StartBatch => "send the missing combinations as a batch (half the price, answers within 24 h)",
    /// Run confirmation: judge everything again, judged or not.
    RejudgeAll => "re-judge everything (the counts say how much)",
    /// Run confirmation: start nothing.
    DontStart => "start nothing",
}

impl PopupAction {
    /// The name used in keymap files.
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}
