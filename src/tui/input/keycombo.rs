//! One key with the modifiers that matter: parsed from keymap files, shown
//! by `?` and the popups' hints.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

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

    /// Plain characters first, then named keys, then keys with modifiers.
    pub fn sort_key(&self) -> (u8, String) {
        let rank = match self.code {
            KeyCode::Char(_) if self.mods.is_empty() => 0,
            _ if self.mods.is_empty() => 1,
            _ => 2,
        };
        (rank, self.display())
    }
}
