//! Themes: a struct of named roles loaded from `themes/*.toml`. The three
//! built-in themes are embedded; a file of the same name in the user's config
//! directory (`themes/NAME.toml`) replaces the roles it names. Views take every
//! colour from here.

use ratatui::style::{Color, Modifier, Style};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;
use toml::Spanned;

pub const BUILTIN: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    ("ansi16", include_str!("../../themes/ansi16.toml")),
];

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleSpec {
    pub fg: Option<Spanned<String>>,
    pub bg: Option<Spanned<String>>,
    #[serde(default)]
    pub bold: bool,
    #[serde(default)]
    pub italic: bool,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThemeFile {
    #[allow(dead_code)]
    name: Option<String>,
    #[serde(default)]
    roles: BTreeMap<Spanned<String>, RoleSpec>,
}

macro_rules! theme_roles {
    ($($(#[doc = $doc:literal])* $role:ident),+ $(,)?) => {
        /// Named styles; views never name a colour.
        #[derive(Debug, Clone, PartialEq)]
        pub struct Theme {
            pub name: String,
            $( $(#[doc = $doc])* pub $role: Style, )+
        }
        impl Theme {
            pub const ROLES: &'static [&'static str] = &[$(stringify!($role)),+];
            fn blank(name: &str) -> Theme {
                Theme { name: name.to_string(), $( $role: Style::default(), )+ }
            }
            fn set(&mut self, role: &str, style: Style) -> Result<(), String> {
                match role {
                    $( stringify!($role) => self.$role = style, )+
                    // The name is not echoed: the error gives its line and column.
                    _ => return Err(format!("unknown role (known: {})", Self::ROLES.join(", "))),
                }
                Ok(())
            }
        }
    };
}

theme_roles! {
    /// Ordinary text.
    text,
    /// Secondary text: hints, ids, empty values.
    muted,
    border,
    border_focused,
    /// Pane titles.
    title,
    /// The selected list entry or row.
    selection,
    /// The judge's values and texts.
    judge,
    /// Human labels.
    human,
    agree,
    disagree,
    /// The mark where judge and human disagree.
    disagreement_mark,
    /// Text still arriving from the judge.
    streaming,
    warning,
    error,
    accent,
    status_bar,
    /// Escapes made visible in untrusted text.
    escape,
    /// Keys in help and hints.
    key,
}

pub fn parse_color(s: &str) -> Result<Color, String> {
    // The text is not echoed: the error gives its line and column.
    Color::from_str(s.trim())
        .map_err(|_| "unknown colour (a name such as red, an index 0-255, or #rrggbb)".to_string())
}

/// A role's style, or where in the file it went wrong and why.
fn style_of(spec: &RoleSpec) -> Result<Style, (std::ops::Range<usize>, String)> {
    let colour = |c: &Spanned<String>| parse_color(c.get_ref()).map_err(|e| (c.span(), e));
    let mut st = Style::default();
    if let Some(fg) = &spec.fg {
        st = st.fg(colour(fg)?);
    }
    if let Some(bg) = &spec.bg {
        st = st.bg(colour(bg)?);
    }
    if spec.bold {
        st = st.add_modifier(Modifier::BOLD);
    }
    if spec.italic {
        st = st.add_modifier(Modifier::ITALIC);
    }
    Ok(st)
}

/// A theme name names a file in `themes/`, never a path.
pub fn is_theme_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

impl Theme {
    /// A built-in theme by name (dark when the name is unknown).
    pub fn builtin(name: &str) -> Theme {
        let text = BUILTIN
            .iter()
            .find(|(n, _)| *n == name)
            .unwrap_or(&BUILTIN[0]);
        let mut t = Theme::blank(text.0);
        // Built-in files are covered by `builtin_themes_parse`.
        t.merge_toml(text.1).expect("built-in theme is valid");
        t
    }

    /// Applies the roles named in a theme file. Errors give the line and
    /// column, never the file's text.
    pub fn merge_toml(&mut self, text: &str) -> Result<(), String> {
        let at = |span: std::ops::Range<usize>, what: String| {
            let (line, col) = crate::config::line_col(text, span.start);
            format!("line {line}, column {col}: {what}")
        };
        let file: ThemeFile =
            toml::from_str(text).map_err(|e| crate::config::toml_error(text, &e))?;
        for (role, spec) in &file.roles {
            let st = style_of(spec).map_err(|(span, e)| at(span, e))?;
            self.set(role.get_ref(), st)
                .map_err(|e| at(role.span(), e))?;
        }
        Ok(())
    }

    /// The named theme: built-in roles (for built-in names), then the user's
    /// `config_dir/themes/NAME.toml` over them. Errors are returned as a
    /// warning to show; the theme is still usable.
    pub fn load(name: &str, config_dir: Option<&Path>) -> (Theme, Option<String>) {
        if !is_theme_name(name) {
            // `../config` would read config.toml (and show its lines).
            return (
                Theme::builtin("dark"),
                Some(format!(
                    "theme '{}' is not a theme name (letters, digits, - and _ only); using dark",
                    crate::tui::strings::flat(name, 60)
                )),
            );
        }
        let mut t = Theme::builtin(name);
        t.name = name.to_string();
        let known = BUILTIN.iter().any(|(n, _)| *n == name);
        let user = config_dir.map(|d| d.join("themes").join(format!("{name}.toml")));
        match user.filter(|p| p.exists()) {
            Some(p) => match crate::readfile::read_to_string(&p)
                .map_err(|e| e.to_string())
                .and_then(|s| t.merge_toml(&s))
            {
                Ok(()) => (t, None),
                Err(e) => (t, Some(format!("{}: {e}", p.display()))),
            },
            None if known => (t, None),
            None => (t, Some(format!("unknown theme '{name}'; using dark"))),
        }
    }

    /// The focused or unfocused border.
    pub fn border(&self, focused: bool) -> Style {
        if focused {
            self.border_focused
        } else {
            self.border
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_themes_parse_and_set_every_role() {
        for (name, text) in BUILTIN {
            let file: ThemeFile = toml::from_str(text).unwrap();
            for role in Theme::ROLES {
                assert!(
                    file.roles.keys().any(|k| k.get_ref() == role),
                    "{name} lacks {role}"
                );
            }
            let _ = Theme::builtin(name);
        }
    }

    #[test]
    fn ansi16_uses_only_the_16_colours() {
        let file: ThemeFile = toml::from_str(BUILTIN[2].1).unwrap();
        for (role, spec) in &file.roles {
            for c in [&spec.fg, &spec.bg].into_iter().flatten() {
                let c = c.get_ref();
                let col = parse_color(c).unwrap();
                let ok = matches!(
                    col,
                    Color::Black
                        | Color::Red
                        | Color::Green
                        | Color::Yellow
                        | Color::Blue
                        | Color::Magenta
                        | Color::Cyan
                        | Color::Gray
                        | Color::DarkGray
                        | Color::LightRed
                        | Color::LightGreen
                        | Color::LightYellow
                        | Color::LightBlue
                        | Color::LightMagenta
                        | Color::LightCyan
                        | Color::White
                        | Color::Reset
                );
                assert!(ok, "{role}: {c}");
            }
        }
    }

    #[test]
    fn user_file_overrides_a_role() {
        let mut t = Theme::builtin("dark");
        t.merge_toml("[roles]\njudge = { fg = \"red\" }\n").unwrap();
        assert_eq!(t.judge.fg, Some(Color::Red));
        assert!(t.merge_toml("[roles]\nnope = { fg = \"red\" }\n").is_err());
    }

    #[test]
    fn errors_name_line_and_column_but_not_the_text() {
        let mut t = Theme::builtin("dark");
        let e = t
            .merge_toml("[roles]\njudge = { fg = \"sk-CANARY-1\" }\n")
            .unwrap_err();
        assert!(e.starts_with("line 2, column 16: unknown colour"), "{e}");
        assert!(!e.contains("CANARY"), "{e}");
        let e = t
            .merge_toml("[roles]\n\nsk-CANARY-2 = { fg = \"red\" }\n")
            .unwrap_err();
        assert!(e.starts_with("line 3, column 1: unknown role"), "{e}");
        assert!(!e.contains("CANARY"), "{e}");
        let e = t.merge_toml("api_key = \"sk-CANARY-3\"\n").unwrap_err();
        assert!(e.starts_with("line 1, column 1: "), "{e}");
        assert!(!e.contains("CANARY"), "{e}");
    }

    #[test]
    fn a_theme_name_is_not_a_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config.toml"),
            "api_key = \"sk-CANARY-4\"\n",
        )
        .unwrap();
        for name in ["../config", "/etc/passwd", "a/b", "", ".."] {
            let (t, w) = Theme::load(name, Some(dir.path()));
            assert_eq!(t.name, "dark");
            let w = w.unwrap();
            assert!(
                w.contains("not a theme name") && !w.contains("CANARY"),
                "{w}"
            );
        }
        assert!(Theme::load("light", Some(dir.path())).1.is_none());
    }
}
