use serde::{Deserialize, Serialize};

/// Where an item came from (S8.1.3 `source`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    #[serde(rename = "type")]
    pub kind: String,
    pub originator: String,
    pub channel: String,
}

/// One label the classifier applied to an item.
///
/// `selected == None` means the classifier chose nothing (JSON null); `none` and
/// `not` are kept as the strings they are: all three mean "not relevant".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Classification {
    pub id: String,
    pub description: String,
    pub available: Vec<String>,
    pub selected: Option<String>,
}

impl Classification {
    /// The selection as shown to the judge: null becomes `none`.
    pub fn selected_text(&self) -> &str {
        self.selected.as_deref().unwrap_or("none")
    }
}

/// One content item with the classifications the classifier gave it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub id: String,
    /// `sent` as ISO 8601 text (derived from epoch seconds when that was given).
    pub sent_text: Option<String>,
    /// `sent` as epoch milliseconds.
    pub sent_ms: Option<i64>,
    pub title: String,
    pub text: String,
    pub source: Source,
    pub tags: Vec<String>,
    pub classifications: Vec<Classification>,
    /// What the item is: empty for a classified content item (AwAg), otherwise
    /// the protocol input it holds (`rubric-example`, `conversation`...).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// Protocol-specific input kept as imported (ticket and response, events
    /// and guidelines...); `Null` for content items.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub payload: serde_json::Value,
    /// The persona whose item this is (whose inbox it sits in): runs over a
    /// mixed list judge each item as its owner unless one persona is fixed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<String>,
}

impl Item {
    pub fn classification(&self, id: &str) -> Option<&Classification> {
        self.classifications.iter().find(|c| c.id == id)
    }

    /// Modes 2/3 content: sent time, title and text joined by newlines (S8.4.2).
    /// Empty parts are left out so the judge never sees blank lines for them.
    pub fn content_text(&self) -> String {
        let sent = self.sent_text.clone().unwrap_or_default();
        [sent.as_str(), self.title.as_str(), self.text.as_str()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join("\n")
    }
}
