//! Keys → [`Action`]s for the main screen and → [`PopupAction`]s for each
//! popup ([`PopupKind`]): the embedded default map with the user's
//! `keymap.toml` merged over it.

use super::action::{Action, PopupAction, PopupKind};
pub use super::keycombo::KeyCombo;
use crossterm::event::KeyEvent;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

const DEFAULT: &str = include_str!("default_keymap.toml");

/// A popup action with its keys, as `?` lists it.
pub type PopupBinding = (PopupAction, Vec<String>);

type Section = BTreeMap<toml::Spanned<String>, toml::Spanned<String>>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeymapFile {
    #[serde(default)]
    keys: Section,
    #[serde(default)]
    quit_prompt: Section,
    #[serde(default)]
    replay: Section,
    #[serde(default)]
    picker: Section,
    #[serde(default)]
    editor: Section,
    #[serde(default)]
    persona_editor: Section,
    #[serde(default)]
    cancel_run: Section,
    #[serde(default)]
    confirm_runs: Section,
    #[serde(default)]
    confirm_loop: Section,
}

impl KeymapFile {
    fn popup(&self, kind: PopupKind) -> &Section {
        match kind {
            PopupKind::QuitPrompt => &self.quit_prompt,
            PopupKind::Replay => &self.replay,
            PopupKind::Picker => &self.picker,
            PopupKind::Editor => &self.editor,
            PopupKind::PersonaEditor => &self.persona_editor,
            PopupKind::CancelRun => &self.cancel_run,
            PopupKind::ConfirmRuns => &self.confirm_runs,
            PopupKind::ConfirmLoop => &self.confirm_loop,
        }
    }
}

/// A section's bindings in the order the file lists them (a popup's hint
/// shows the key listed first).
fn in_file_order(section: &Section) -> Vec<(&toml::Spanned<String>, &toml::Spanned<String>)> {
    let mut entries: Vec<_> = section.iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    entries
}

#[derive(Debug, Clone)]
pub struct Keymap {
    map: HashMap<KeyCombo, Action>,
    /// Each popup binding with its place in the files (defaults first, then
    /// the user's): a popup's hint shows the key listed first.
    popups: HashMap<(PopupKind, KeyCombo), (PopupAction, u32)>,
    next_seq: u32,
}

impl Keymap {
    /// The embedded default map.
    pub fn default_map() -> Keymap {
        let mut k = Keymap {
            map: HashMap::new(),
            popups: HashMap::new(),
            next_seq: 0,
        };
        // The embedded file is tested (`default_keymap_parses`), so this cannot fail.
        k.merge_toml(DEFAULT).expect("embedded keymap is valid");
        k
    }

    /// The default map with `dir/keymap.toml` merged over it, when it exists.
    /// A bad user file is reported and the defaults kept.
    pub fn load(config_dir: Option<&Path>) -> (Keymap, Option<String>) {
        let mut k = Keymap::default_map();
        let Some(path) = config_dir.map(|d| d.join("keymap.toml")) else {
            return (k, None);
        };
        if !path.exists() {
            return (k, None);
        }
        let warn = match crate::readfile::read_to_string(&path) {
            Ok(text) => {
                let backup = k.clone();
                match k.merge_toml(&text) {
                    Ok(()) => None,
                    Err(e) => {
                        k = backup;
                        Some(format!("{}: {e}; using the default keys", path.display()))
                    }
                }
            }
            Err(e) => Some(format!("{}: {e}", path.display())),
        };
        (k, warn)
    }

    /// Merges bindings from TOML text: a key bound again replaces the old
    /// binding, `"none"` removes it. Errors give the line and column, never
    /// the file's text; a failed merge may have applied part of the file
    /// (callers keep a copy, see [`Keymap::load`]).
    pub fn merge_toml(&mut self, text: &str) -> Result<(), String> {
        let at = |span: std::ops::Range<usize>, what: String| {
            let (line, col) = crate::config::line_col(text, span.start);
            format!("line {line}, column {col}: {what}")
        };
        let file: KeymapFile =
            toml::from_str(text).map_err(|e| crate::config::toml_error(text, &e))?;
        for (key, action) in in_file_order(&file.keys) {
            let combo = KeyCombo::parse(key.get_ref()).map_err(|e| at(key.span(), e))?;
            if action.get_ref() == "none" {
                self.map.remove(&combo);
                continue;
            }
            let name = serde_json::Value::String(action.get_ref().clone());
            let parsed: Action = serde_json::from_value(name).map_err(|_| {
                at(
                    action.span(),
                    "unknown action (the help screen, ?, lists them)".into(),
                )
            })?;
            self.map.insert(combo, parsed);
        }
        for kind in PopupKind::ALL {
            for (key, action) in in_file_order(file.popup(*kind)) {
                let combo = KeyCombo::parse(key.get_ref()).map_err(|e| at(key.span(), e))?;
                if action.get_ref() == "none" {
                    self.popups.remove(&(*kind, combo));
                    continue;
                }
                let name = serde_json::Value::String(action.get_ref().clone());
                let parsed = serde_json::from_value::<PopupAction>(name)
                    .ok()
                    .filter(|a| kind.actions().contains(a))
                    .ok_or_else(|| {
                        at(
                            action.span(),
                            format!(
                                "not an action of [{}] (the help screen, ?, lists them)",
                                kind.section()
                            ),
                        )
                    })?;
                self.popups.insert((*kind, combo), (parsed, self.next_seq));
                self.next_seq += 1;
            }
        }
        Ok(())
    }

    pub fn action(&self, ev: &KeyEvent) -> Option<Action> {
        self.map.get(&KeyCombo::from_event(ev)).copied()
    }

    /// What a key asks for on a popup of this kind.
    pub fn popup_action(&self, kind: PopupKind, ev: &KeyEvent) -> Option<PopupAction> {
        self.popups
            .get(&(kind, KeyCombo::from_event(ev)))
            .map(|(a, _)| *a)
    }

    /// The keys bound to `action`, plain characters first.
    pub fn keys_for(&self, action: Action) -> Vec<String> {
        sorted(
            self.map
                .iter()
                .filter(|(_, a)| **a == action)
                .map(|(k, _)| *k),
        )
    }

    /// The keys bound to `action` on a popup of this kind, plain characters first.
    pub fn popup_keys(&self, kind: PopupKind, action: PopupAction) -> Vec<String> {
        sorted(
            self.popups
                .iter()
                .filter(|((p, _), (a, _))| *p == kind && *a == action)
                .map(|((_, k), _)| *k),
        )
    }

    /// The first key for `action`, for hints ("press ? for help").
    pub fn hint(&self, action: Action) -> String {
        self.keys_for(action)
            .into_iter()
            .next()
            .unwrap_or_else(|| format!("({})", action.name()))
    }

    /// The key listed first for a popup's action, for the popup's own hint
    /// line (the defaults list "esc" first for "stay", though "n" stays too).
    pub fn popup_hint(&self, kind: PopupKind, action: PopupAction) -> String {
        self.popups
            .iter()
            .filter(|((p, _), (a, _))| *p == kind && *a == action)
            .min_by_key(|(_, (_, seq))| *seq)
            .map(|((_, k), _)| k.display())
            .unwrap_or_else(|| format!("({})", action.name()))
    }

    /// Every action with its keys, in help order.
    pub fn bindings(&self) -> Vec<(Action, Vec<String>)> {
        Action::ALL
            .iter()
            .map(|a| (*a, self.keys_for(*a)))
            .collect()
    }

    /// Every popup's actions with their keys, in help order.
    pub fn popup_bindings(&self) -> Vec<(PopupKind, Vec<PopupBinding>)> {
        PopupKind::ALL
            .iter()
            .map(|kind| {
                let actions = kind
                    .actions()
                    .iter()
                    .map(|a| (*a, self.popup_keys(*kind, *a)))
                    .collect();
                (*kind, actions)
            })
            .collect()
    }
}

fn sorted(keys: impl Iterator<Item = KeyCombo>) -> Vec<String> {
    let mut keys: Vec<KeyCombo> = keys.collect();
    keys.sort_by_key(|k| k.sort_key());
    keys.iter().map(KeyCombo::display).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    #[test]
    fn default_keymap_parses_and_binds_required_keys() {
        let k = Keymap::default_map();
        let ev = |c| KeyEvent::new(c, KeyModifiers::NONE);
        assert_eq!(k.action(&ev(KeyCode::Char('j'))), Some(Action::MoveDown));
        assert_eq!(k.action(&ev(KeyCode::Enter)), Some(Action::Activate));
        assert_eq!(
            k.action(&KeyEvent::new(KeyCode::Char('R'), KeyModifiers::SHIFT)),
            Some(Action::RunFiltered)
        );
        assert_eq!(k.action(&ev(KeyCode::Char('4'))), Some(Action::Likert4));
        for a in Action::ALL {
            assert!(!k.keys_for(*a).is_empty(), "{a:?} has no key");
        }
    }

    #[test]
    fn every_popup_action_has_a_default_key() {
        let k = Keymap::default_map();
        for kind in PopupKind::ALL {
            for a in kind.actions() {
                assert!(
                    !k.popup_keys(*kind, *a).is_empty(),
                    "{kind:?} {a:?} has no key"
                );
            }
        }
        let ev = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        // The same key means different things on different popups.
        assert_eq!(
            k.popup_action(PopupKind::Replay, &ev('k')),
            Some(PopupAction::Keep)
        );
        assert_eq!(
            k.popup_action(PopupKind::Picker, &ev('k')),
            Some(PopupAction::Previous)
        );
        assert_eq!(k.popup_action(PopupKind::Editor, &ev('k')), None);
        // The first key listed is the one hints show.
        assert_eq!(
            k.popup_hint(PopupKind::QuitPrompt, PopupAction::Stay),
            "esc"
        );
        assert_eq!(
            k.popup_keys(PopupKind::QuitPrompt, PopupAction::QuitAnyway),
            ["q", "y", "ctrl-c"]
        );
    }

    #[test]
    fn a_popup_action_outside_its_popup_is_refused_with_its_place() {
        let mut k = Keymap::default_map();
        let e = k.merge_toml("[picker]\nx = \"discard\"\n").unwrap_err();
        assert!(
            e.starts_with("line 2, column 5: not an action of [picker]"),
            "{e}"
        );
        k.merge_toml("[quit_prompt]\nx = \"quit_anyway\"\nq = \"none\"\n")
            .unwrap();
        let ev = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        assert_eq!(
            k.popup_action(PopupKind::QuitPrompt, &ev('x')),
            Some(PopupAction::QuitAnyway)
        );
        assert_eq!(k.popup_action(PopupKind::QuitPrompt, &ev('q')), None);
        assert_eq!(
            k.popup_hint(PopupKind::QuitPrompt, PopupAction::QuitAnyway),
            "y"
        );
        // The main map is untouched by a popup section.
        assert_eq!(k.action(&ev('q')), Some(Action::Quit));
    }

    #[test]
    fn user_file_overrides_and_unbinds() {
        let mut k = Keymap::default_map();
        k.merge_toml("[keys]\nx = \"quit\"\nq = \"none\"\n")
            .unwrap();
        let ev = |c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE);
        assert_eq!(k.action(&ev('x')), Some(Action::Quit));
        assert_eq!(k.action(&ev('q')), None);
        assert!(k.merge_toml("[keys]\nx = \"fly\"\n").is_err());
    }

    #[test]
    fn errors_name_line_and_column_but_not_the_text() {
        let mut k = Keymap::default_map();
        let e = k.merge_toml("[keys]\nx = \"sk-CANARY-1\"\n").unwrap_err();
        assert!(e.starts_with("line 2, column 5: unknown action"), "{e}");
        assert!(!e.contains("CANARY"), "{e}");
        let e = k
            .merge_toml("[keys]\n\"sk-CANARY-2\" = \"quit\"\n")
            .unwrap_err();
        assert!(e.starts_with("line 2, column 1: unknown key"), "{e}");
        assert!(!e.contains("CANARY"), "{e}");
        let e = k.merge_toml("api_key = \"sk-CANARY-3\"\n").unwrap_err();
        assert!(e.starts_with("line 1, column 1: "), "{e}");
        assert!(!e.contains("CANARY"), "{e}");
        // A failed merge leaves the map as it was.
        assert_eq!(
            k.action(&KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE)),
            Some(Action::Quit)
        );
    }
}
