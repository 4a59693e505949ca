//! Keys → [`Action`]s: the embedded default map with the user's
//! `keymap.toml` merged over it.

use super::action::Action;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

const DEFAULT: &str = include_str!("default_keymap.toml");

/// A key with the modifiers that matter (shift is folded into the character).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KeyCombo {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl KeyCombo {
    pub fn from_event(ev: &KeyEvent) -> KeyCombo {
        let mods = ev.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT);
        let code = match ev.code {
            KeyCode::BackTab => KeyCode::BackTab,
            KeyCode::Tab if ev.modifiers.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
            c => c,
        };
        KeyCombo { code, mods }
    }

    /// Parses "j", "J", "?", "enter", "ctrl-c", "alt-x", "pagedown".
    pub fn parse(s: &str) -> Result<KeyCombo, String> {
        let mut mods = KeyModifiers::NONE;
        let mut rest = s;
        loop {
            if let Some(r) = rest.strip_prefix("ctrl-").filter(|r| !r.is_empty()) {
                mods |= KeyModifiers::CONTROL;
                rest = r;
            } else if let Some(r) = rest.strip_prefix("alt-").filter(|r| !r.is_empty()) {
                mods |= KeyModifiers::ALT;
                rest = r;
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(c),
            _ => match rest.to_ascii_lowercase().as_str() {
                "enter" | "return" => KeyCode::Enter,
                "tab" => KeyCode::Tab,
                "backtab" | "shift-tab" => KeyCode::BackTab,
                "esc" | "escape" => KeyCode::Esc,
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "pageup" => KeyCode::PageUp,
                "pagedown" => KeyCode::PageDown,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "space" => KeyCode::Char(' '),
                "backspace" => KeyCode::Backspace,
                "delete" => KeyCode::Delete,
                f if f.starts_with('f') && f[1..].parse::<u8>().is_ok() => {
                    KeyCode::F(f[1..].parse().unwrap_or(1))
                }
                // The text is not echoed: the caller gives its line and column.
                _ => {
                    return Err(
                        "unknown key (a character, or enter, tab, esc, up, pagedown, f1…, with an optional ctrl- or alt-)"
                            .into(),
                    );
                }
            },
        };
        Ok(KeyCombo { code, mods })
    }

    /// The form `parse` reads and `?` shows.
    pub fn display(&self) -> String {
        let mut out = String::new();
        if self.mods.contains(KeyModifiers::CONTROL) {
            out.push_str("ctrl-");
        }
        if self.mods.contains(KeyModifiers::ALT) {
            out.push_str("alt-");
        }
        let name = match self.code {
            KeyCode::Char(' ') => "space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Enter => "enter".into(),
            KeyCode::Tab => "tab".into(),
            KeyCode::BackTab => "shift-tab".into(),
            KeyCode::Esc => "esc".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::PageUp => "pageup".into(),
            KeyCode::PageDown => "pagedown".into(),
            KeyCode::Home => "home".into(),
            KeyCode::End => "end".into(),
            KeyCode::Backspace => "backspace".into(),
            KeyCode::Delete => "delete".into(),
            KeyCode::F(n) => format!("f{n}"),
            other => format!("{other:?}"),
        };
        out.push_str(&name);
        out
    }

    fn sort_key(&self) -> (u8, String) {
        let rank = match self.code {
            KeyCode::Char(_) if self.mods.is_empty() => 0,
            _ if self.mods.is_empty() => 1,
            _ => 2,
        };
        (rank, self.display())
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KeymapFile {
    #[serde(default)]
    keys: BTreeMap<toml::Spanned<String>, toml::Spanned<String>>,
}

#[derive(Debug, Clone)]
pub struct Keymap {
    map: HashMap<KeyCombo, Action>,
}

impl Keymap {
    /// The embedded default map.
    pub fn default_map() -> Keymap {
        let mut k = Keymap {
            map: HashMap::new(),
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
        let warn = match std::fs::read_to_string(&path) {
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
    /// the file's text.
    pub fn merge_toml(&mut self, text: &str) -> Result<(), String> {
        let at = |span: std::ops::Range<usize>, what: String| {
            let (line, col) = crate::config::line_col(text, span.start);
            format!("line {line}, column {col}: {what}")
        };
        let file: KeymapFile =
            toml::from_str(text).map_err(|e| crate::config::toml_error(text, &e))?;
        for (key, action) in file.keys {
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
        Ok(())
    }

    pub fn action(&self, ev: &KeyEvent) -> Option<Action> {
        self.map.get(&KeyCombo::from_event(ev)).copied()
    }

    /// The keys bound to `action`, plain characters first.
    pub fn keys_for(&self, action: Action) -> Vec<String> {
        let mut keys: Vec<KeyCombo> = self
            .map
            .iter()
            .filter(|(_, a)| **a == action)
            .map(|(k, _)| *k)
            .collect();
        keys.sort_by_key(|k| k.sort_key());
        keys.iter().map(KeyCombo::display).collect()
    }

    /// The first key for `action`, for hints ("press ? for help").
    pub fn hint(&self, action: Action) -> String {
        self.keys_for(action)
            .into_iter()
            .next()
            .unwrap_or_else(|| format!("({})", action.name()))
    }

    /// Every action with its keys, in help order.
    pub fn bindings(&self) -> Vec<(Action, Vec<String>)> {
        Action::ALL
            .iter()
            .map(|a| (*a, self.keys_for(*a)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_keymap_parses_and_binds_required_keys() {
        let k = Keymap::default_map();
        let ev = |c| KeyEvent::new(c, KeyModifiers::NONE);
        assert_eq!(k.action(&ev(KeyCode::Char('j'))), Some(Action::MoveDown));
        assert_eq!(k.action(&ev(KeyCode::Enter)), Some(Action::Judge));
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
