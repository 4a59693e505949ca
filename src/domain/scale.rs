use serde::{Deserialize, Serialize};
use std::fmt;

/// What a verdict (and the human label beside it) holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// Likert 1–5.
    Likert,
    /// AGREE / DISAGREE.
    Agreement,
    /// 0–9 (proposition `score`).
    Score09,
    /// true / false.
    Bool,
    /// no / partially / fully.
    Degree,
}

impl Scale {
    pub fn as_str(self) -> &'static str {
        match self {
            Scale::Likert => "likert",
            Scale::Agreement => "agreement",
            Scale::Score09 => "score09",
            Scale::Bool => "bool",
            Scale::Degree => "degree",
        }
    }

    pub fn parse_name(s: &str) -> Option<Scale> {
        Some(match s {
            "likert" => Scale::Likert,
            "agreement" => Scale::Agreement,
            "score09" => Scale::Score09,
            "bool" => Scale::Bool,
            "degree" => Scale::Degree,
            _ => return None,
        })
    }

    /// Ordinal scales get weighted kappa and Spearman; nominal ones do not.
    pub fn is_ordinal(self) -> bool {
        matches!(self, Scale::Likert | Scale::Score09 | Scale::Degree)
    }

    /// Every legal value, in order.
    pub fn values(self) -> Vec<Value> {
        match self {
            Scale::Likert => (1..=5).map(Value::Likert).collect(),
            Scale::Agreement => vec![
                Value::Agreement(Agreement::Agree),
                Value::Agreement(Agreement::Disagree),
            ],
            Scale::Score09 => (0..=9).map(Value::Score).collect(),
            Scale::Bool => vec![Value::Bool(true), Value::Bool(false)],
            Scale::Degree => vec![
                Value::Degree(Degree::No),
                Value::Degree(Degree::Partially),
                Value::Degree(Degree::Fully),
            ],
        }
    }

    /// Parses user or judge text on this scale ("4", "agree", "TRUE", "partially").
    pub fn parse(self, text: &str) -> Result<Value, ValueError> {
        let t = text.trim();
        let bad = || ValueError {
            scale: self,
            got: t.to_string(),
        };
        match self {
            Scale::Likert => match t.parse::<u8>() {
                Ok(n @ 1..=5) => Ok(Value::Likert(n)),
                _ => Err(bad()),
            },
            Scale::Score09 => match t.parse::<u8>() {
                Ok(n @ 0..=9) => Ok(Value::Score(n)),
                _ => Err(bad()),
            },
            Scale::Agreement => match t.to_ascii_uppercase().as_str() {
                "AGREE" => Ok(Value::Agreement(Agreement::Agree)),
                "DISAGREE" => Ok(Value::Agreement(Agreement::Disagree)),
                _ => Err(bad()),
            },
            Scale::Bool => match t.to_ascii_lowercase().as_str() {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(bad()),
            },
            Scale::Degree => match t.to_ascii_lowercase().as_str() {
                "no" => Ok(Value::Degree(Degree::No)),
                "partially" => Ok(Value::Degree(Degree::Partially)),
                "fully" => Ok(Value::Degree(Degree::Fully)),
                _ => Err(bad()),
            },
        }
    }

    /// Reads a JSON value on this scale (integers for numeric scales, strings otherwise).
    pub fn from_json(self, v: &serde_json::Value) -> Result<Value, ValueError> {
        match v {
            serde_json::Value::Number(n) if matches!(self, Scale::Likert | Scale::Score09) => {
                // 4.0 is accepted as 4; 4.5 is not an integer and is rejected.
                match n.as_f64() {
                    Some(f) if f.fract() == 0.0 && (0.0..=255.0).contains(&f) => {
                        self.parse(&(f as u8).to_string())
                    }
                    _ => Err(ValueError {
                        scale: self,
                        got: n.to_string(),
                    }),
                }
            }
            serde_json::Value::Bool(b) if self == Scale::Bool => Ok(Value::Bool(*b)),
            serde_json::Value::String(s) => self.parse(s),
            other => Err(ValueError {
                scale: self,
                got: other.to_string(),
            }),
        }
    }

    pub fn expected(self) -> &'static str {
        match self {
            Scale::Likert => "an integer from 1 to 5",
            Scale::Agreement => "AGREE or DISAGREE",
            Scale::Score09 => "an integer from 0 to 9",
            Scale::Bool => "true or false",
            Scale::Degree => "no, partially or fully",
        }
    }
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{got}' is not a valid {scale} value (expected {})", scale.expected())]
pub struct ValueError {
    pub scale: Scale,
    pub got: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Agreement {
    Agree,
    Disagree,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Degree {
    No,
    Partially,
    Fully,
}

/// One value on one scale.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Value {
    Likert(u8),
    Agreement(Agreement),
    Score(u8),
    Bool(bool),
    Degree(Degree),
}

impl Value {
    pub fn scale(self) -> Scale {
        match self {
            Value::Likert(_) => Scale::Likert,
            Value::Agreement(_) => Scale::Agreement,
            Value::Score(_) => Scale::Score09,
            Value::Bool(_) => Scale::Bool,
            Value::Degree(_) => Scale::Degree,
        }
    }

    /// Canonical text, as stored: "4", "AGREE", "true", "partially".
    pub fn as_text(self) -> String {
        match self {
            Value::Likert(n) | Value::Score(n) => n.to_string(),
            Value::Agreement(Agreement::Agree) => "AGREE".into(),
            Value::Agreement(Agreement::Disagree) => "DISAGREE".into(),
            Value::Bool(b) => b.to_string(),
            Value::Degree(Degree::No) => "no".into(),
            Value::Degree(Degree::Partially) => "partially".into(),
            Value::Degree(Degree::Fully) => "fully".into(),
        }
    }

    /// The export form (docs/design.md §5): integers for Likert/score, strings for
    /// agreement and degrees, booleans for true/false.
    pub fn to_json(self) -> serde_json::Value {
        match self {
            Value::Likert(n) | Value::Score(n) => serde_json::Value::from(n),
            Value::Bool(b) => serde_json::Value::Bool(b),
            _ => serde_json::Value::String(self.as_text()),
        }
    }

    /// Position on an ordinal scale (0-based), used by the statistics.
    pub fn ordinal(self) -> u8 {
        match self {
            Value::Likert(n) => n - 1,
            Value::Score(n) => n,
            Value::Agreement(Agreement::Agree) => 0,
            Value::Agreement(Agreement::Disagree) => 1,
            Value::Bool(true) => 0,
            Value::Bool(false) => 1,
            Value::Degree(d) => d as u8,
        }
    }

    /// Cross-scale reading (docs/design.md §7): Likert ≥4 is AGREE, ≤2 DISAGREE, 3 undecided.
    pub fn as_agreement(self) -> Option<Agreement> {
        match self {
            Value::Agreement(a) => Some(a),
            Value::Likert(n) if n >= 4 => Some(Agreement::Agree),
            Value::Likert(n) if n <= 2 => Some(Agreement::Disagree),
            Value::Bool(true) => Some(Agreement::Agree),
            Value::Bool(false) => Some(Agreement::Disagree),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn likert_rejects_out_of_range_and_fractions() {
        assert_eq!(Scale::Likert.parse("4"), Ok(Value::Likert(4)));
        assert!(Scale::Likert.parse("7").is_err());
        assert!(Scale::Likert.parse("0").is_err());
        assert!(Scale::Likert.from_json(&serde_json::json!(4.5)).is_err());
        assert_eq!(
            Scale::Likert.from_json(&serde_json::json!(4.0)),
            Ok(Value::Likert(4))
        );
    }

    #[test]
    fn agreement_is_case_insensitive_but_strict() {
        assert_eq!(
            Scale::Agreement.parse("agree"),
            Ok(Value::Agreement(Agreement::Agree))
        );
        assert!(Scale::Agreement.parse("MAYBE").is_err());
    }

    #[test]
    fn cross_scale_reading() {
        assert_eq!(Value::Likert(4).as_agreement(), Some(Agreement::Agree));
        assert_eq!(Value::Likert(3).as_agreement(), None);
        assert_eq!(Value::Likert(2).as_agreement(), Some(Agreement::Disagree));
    }

    #[test]
    fn export_json_types() {
        assert_eq!(Value::Likert(3).to_json(), serde_json::json!(3));
        assert_eq!(
            Value::Agreement(Agreement::Disagree).to_json(),
            serde_json::json!("DISAGREE")
        );
        assert_eq!(Value::Bool(true).to_json(), serde_json::json!(true));
    }
}
