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

    /// The perspective id the protocol's verdicts and labels are recorded
    /// under: its own name, except AwAg's, which are the perspectives chosen.
    pub fn own_perspective(self) -> Option<&'static str> {
        (self != Protocol::Awag).then(|| self.as_str())
    }

    /// The protocol a perspective id stands for: one of the other
    /// protocols' own perspectives, else an AwAg perspective. The one place
    /// a perspective id is read for a protocol.
    pub fn of_perspective(id: &str) -> Protocol {
        [Protocol::Rubric, Protocol::Proposition, Protocol::Guideline]
            .into_iter()
            .find(|p| p.own_perspective() == Some(id))
            .unwrap_or(Protocol::Awag)
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

#[cfg(test)]
mod tests {
    use super::Protocol;

    /// Each protocol's own perspective is the one its verdicts are keyed
    /// on, and reads back as that protocol; any other id is AwAg's.
    #[test]
    fn a_perspective_id_names_its_protocol() {
        let own = [
            (Protocol::Rubric, crate::protocol::rubric::PERSPECTIVE),
            (Protocol::Guideline, crate::protocol::guideline::PERSPECTIVE),
            (
                Protocol::Proposition,
                crate::protocol::proposition::PERSPECTIVE,
            ),
        ];
        for (p, id) in own {
            assert_eq!(p.own_perspective(), Some(id));
            assert_eq!(Protocol::of_perspective(id), p);
        }
        assert_eq!(Protocol::Awag.own_perspective(), None);
        for id in ["classification", "awag", "", "Rubric"] {
            assert_eq!(Protocol::of_perspective(id), Protocol::Awag, "{id}");
        }
    }
}
