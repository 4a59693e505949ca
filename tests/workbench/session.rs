//! Undo and label history, the session kept across a restart, compare by
//! persona and by model — pure update tests.
#![cfg(feature = "tui")]

use crate::tui_common;
use jury::domain::*;
use jury::tui::app::{Level, Popup, SaveState};
use jury::tui::msg::{Effect, Msg};
use tui_common::*;

mod compare;
mod history;
mod kept;
mod undo;

fn message(app: &jury::tui::app::App) -> String {
    app.chrome.message.clone().map(|m| m.1).unwrap_or_default()
}

fn two_personas() -> jury::tui::app::Loaded {
    let mut data = loaded();
    data.personas.push(Persona {
        id: "maren".into(),
        name: "Maren, buyer".into(),
        definition: serde_json::json!({"type": "professional"}),
    });
    data
}
