use serde::{Deserialize, Serialize};

/// The `--persona` value that means "each item's owner" (`jury run
/// --persona owner`, `R` in the workbench); no persona may take it as its id,
/// or a run could not tell which one is meant.
pub const OWNER_CHOICE: &str = "owner";

/// Why a persona id is refused, if it is: `owner` (what `--persona owner`
/// means) and `-` (how runs without a persona are recorded).
pub fn reserved_id(id: &str) -> Option<String> {
    match id.trim() {
        OWNER_CHOICE => Some(format!(
            "'{OWNER_CHOICE}' is reserved: `jury run --persona {OWNER_CHOICE}` means each item's owner; give the persona another id"
        )),
        "-" => Some(
            "'-' is reserved: it is how runs without a persona are recorded; give the persona another id".into(),
        ),
        _ => None,
    }
}

/// Why a perspective id is refused, if it is: the protocols record their
/// verdicts and labels under their own name (`rubric`, `guideline`,
/// `proposition`), and a perspective of that name would mix with them.
pub fn reserved_perspective_id(id: &str) -> Option<String> {
    ["rubric", "guideline", "proposition"]
        .contains(&id.trim())
        .then(|| {
            format!(
                "'{}' is reserved: the {} protocol records its verdicts and labels under it; give the perspective another id",
                id.trim(),
                id.trim()
            )
        })
}

/// Who the judge role-plays (S8.1.1). The definition is kept as the JSON object
/// it was imported as, so fields we do not know about survive a round trip and
/// reach the judge unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Persona {
    pub id: String,
    pub name: String,
    pub definition: serde_json::Value,
}

impl Persona {
    /// One definition field as text (e.g. `does`), empty when absent.
    pub fn field(&self, key: &str) -> String {
        match self.definition.get(key) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(serde_json::Value::Null) | None => String::new(),
            Some(other) => other.to_string(),
        }
    }
}

/// The angle of evaluation (S8.1.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Perspective {
    pub id: String,
    pub name: String,
    pub text: String,
}
