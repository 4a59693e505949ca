//! The help screen's lines as text, from the live keymap. The view styles
//! them; update counts them to know how far the screen scrolls.

use super::legend;
use crate::tui::app::App;
use crate::tui::strings;

/// One line of the help screen, before it is styled.
pub enum HelpLine {
    Blank,
    /// A key binding: its keys, its name in keymap files, what it does.
    Binding {
        keys: Vec<String>,
        name: String,
        help: &'static str,
    },
    /// A section's heading.
    Title(String),
    /// Explanatory text, shown muted.
    Note(String),
}

/// Every line of the help screen, in order.
pub fn lines(app: &App) -> Vec<HelpLine> {
    let mut lines = vec![
        HelpLine::Note(strings::help::HEADER.into()),
        HelpLine::Blank,
    ];
    for (action, keys) in app.chrome.keymap.bindings() {
        lines.push(HelpLine::Binding {
            keys,
            name: action.name(),
            help: action.help(),
        });
    }
    lines.push(HelpLine::Blank);
    // One mark a line: the help must read at 80 columns too.
    let legend = legend::lines();
    for l in legend
        .iter()
        .chain([&strings::help::LABEL_STATES, &strings::help::BLIND_NOTE])
    {
        let (head, marks) = l.split_once(": ").unwrap_or(("", l));
        lines.push(HelpLine::Title(format!("{head}:")));
        for m in marks.split(" · ").flat_map(|m| m.split(", ")) {
            lines.push(HelpLine::Note(format!("  {m}")));
        }
    }
    lines.push(HelpLine::Blank);
    for l in strings::help::SEARCH_TERMS {
        lines.push(HelpLine::Note((*l).into()));
    }
    // What each popup answers to, from its own section of the keymap.
    for (kind, actions) in app.chrome.keymap.popup_bindings() {
        lines.push(HelpLine::Blank);
        lines.push(HelpLine::Title(strings::help::popup_section(
            kind.title(),
            kind.section(),
        )));
        for (action, keys) in actions {
            lines.push(HelpLine::Binding {
                keys,
                name: action.name(),
                help: action.help(),
            });
        }
    }
    lines
}
