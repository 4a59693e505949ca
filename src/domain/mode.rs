use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A judge style (docs/design.md §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    Awag,
    Rubric,
    Proposition,
    Guideline,
}

impl Protocol {
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Awag => "awag",
            Protocol::Rubric => "rubric",
            Protocol::Proposition => "proposition",
            Protocol::Guideline => "guideline",
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Protocol {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "awag" => Ok(Protocol::Awag),
            "rubric" => Ok(Protocol::Rubric),
            "proposition" => Ok(Protocol::Proposition),
            "guideline" => Ok(Protocol::Guideline),
            other => Err(format!(
                "unknown protocol '{other}' (expected awag, rubric, proposition or guideline)"
            )),
        }
    }
}

/// The three AwAg evaluation modes (docs/design.md §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Mode {
    /// Many items with all their classifications in one request; Likert.
    One,
    /// One entry per (item, classification); Likert.
    Two,
    /// One entry per (item, classification); AGREE/DISAGREE.
    Three,
}

impl Mode {
    pub const ALL: [Mode; 3] = [Mode::One, Mode::Two, Mode::Three];

    pub fn number(self) -> u8 {
        match self {
            Mode::One => 1,
            Mode::Two => 2,
            Mode::Three => 3,
        }
    }

    pub fn from_number(n: u8) -> Option<Mode> {
        match n {
            1 => Some(Mode::One),
            2 => Some(Mode::Two),
            3 => Some(Mode::Three),
            _ => None,
        }
    }

    /// The next mode in the cycle 1 → 2 → 3 → 1 (the `m` key).
    pub fn next(self) -> Mode {
        match self {
            Mode::One => Mode::Two,
            Mode::Two => Mode::Three,
            Mode::Three => Mode::One,
        }
    }

    /// The scale a verdict (and a human label beside it) uses in this mode.
    pub fn scale(self) -> super::Scale {
        match self {
            Mode::One | Mode::Two => super::Scale::Likert,
            Mode::Three => super::Scale::Agreement,
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

impl FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        s.trim()
            .parse::<u8>()
            .ok()
            .and_then(Mode::from_number)
            .ok_or_else(|| format!("unknown mode '{s}' (expected 1, 2 or 3)"))
    }
}

/// A judge configuration as reports name it: "awag mode 2 · gpt-4o-mini",
/// "proposition · gpt-4o-mini".
pub fn judge_name(protocol: Protocol, mode: Option<Mode>, model: &str) -> String {
    match mode {
        Some(m) => format!("{protocol} mode {m} · {model}"),
        None => format!("{protocol} · {model}"),
    }
}
