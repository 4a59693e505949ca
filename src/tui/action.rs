//! What a key can ask for. Keys map to these through the [`super::keymap`];
//! `?` lists every binding with the help line below.

use serde::{Deserialize, Serialize};

macro_rules! actions {
    ($( $(#[doc = $doc:literal])+ $name:ident => $help:literal, )+) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Action {
            $( $(#[doc = $doc])+ $name, )+
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
    /// Judge the current item with the current persona, perspective and mode.
    Judge => "judge the current item",
    /// Run the judge over every item in the filtered list.
    RunFiltered => "judge every item in the filtered list",
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
    /// Save again every label the store refused.
    RetryUnsaved => "retry saving unsaved labels",
    /// Blind review: hide judge values until the row is labelled.
    ToggleBlind => "blind review on/off",
    /// Search the item list (id, title, sender).
    Search => "search the item list",
    /// Cycle the list filter (all, unjudged, judged, labelled, unlabelled, disagreements).
    CycleFilter => "cycle the list filter",
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
    /// Open the agreement view (judge vs human).
    Agreement => "agreement judge vs human",
    /// Open the prompt view (what is sent for this item).
    Prompt => "the request sent for this item",
    /// Show every key binding.
    Help => "this help",
    /// Cancel: stop running runs, close a view or popup, clear the search.
    Cancel => "cancel run / close view / clear search",
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
