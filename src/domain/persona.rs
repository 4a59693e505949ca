use serde::{Deserialize, Serialize};

/// The `--persona` value that means "each item's owner" (`jury run
/// --persona owner`, `R` in the workbench); no persona may take it as its id,
/// or a run could not tell which one is meant.
pub const OWNER_CHOICE: &str = "owner";

/// Who a run's verdicts and labels are for: one persona, or no one (rubric,
/// guideline, a proposition judged from no one's view). "Each item's owner"
/// is a choice, not one of these: it is settled into each item's persona
/// ([`OWNER_CHOICE`]) before a run is asked for, one run per persona.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum PersonaRef {
    #[default]
    None,
    Persona(String),
}

impl PersonaRef {
    /// How stores, exports and labels write [`PersonaRef::None`]; no persona
    /// may take it as its id.
    pub const NONE_ID: &'static str = "-";

    /// What a recorded persona id stands for.
    pub fn from_id(id: &str) -> PersonaRef {
        if id == Self::NONE_ID {
            PersonaRef::None
        } else {
            PersonaRef::Persona(id.to_string())
        }
    }

    /// The id as runs, verdicts and labels record it.
    pub fn id(&self) -> &str {
        match self {
            PersonaRef::None => Self::NONE_ID,
            PersonaRef::Persona(id) => id,
        }
    }

    /// The persona's id; `None` for no one.
    pub fn persona(&self) -> Option<&str> {
        match self {
            PersonaRef::None => None,
            PersonaRef::Persona(id) => Some(id),
        }
    }

    pub fn into_persona(self) -> Option<String> {
        match self {
            PersonaRef::None => None,
            PersonaRef::Persona(id) => Some(id),
        }
    }
}

impl From<Option<String>> for PersonaRef {
    fn from(persona: Option<String>) -> PersonaRef {
        persona.map_or(PersonaRef::None, PersonaRef::Persona)
    }
}

/// Why a persona id is refused, if it is: `owner` (what `--persona owner`
/// means), `-` (how runs without a persona are recorded), and an id
/// holding `:`, which separates the parts of the wide export's column names.
pub fn reserved_id(id: &str) -> Option<String> {
    if id.contains(':') {
        return Some(format!(
            "'{}' cannot be a persona id: ':' separates the parts of the wide export's column names; use another character, e.g. '{}'",
            crate::sanitize::one_line(id, 60),
            crate::sanitize::one_line(&id.replace(':', "-"), 60)
        ));
    }
    match id.trim() {
        OWNER_CHOICE => Some(format!(
            "'{OWNER_CHOICE}' is reserved: `jury run --persona {OWNER_CHOICE}` means each item's owner; give the persona another id"
        )),
        PersonaRef::NONE_ID => Some(format!(
            "'{}' is reserved: it is how runs without a persona are recorded; give the persona another id",
            PersonaRef::NONE_ID
        )),
        _ => None,
    }
}

/// Why a perspective id is refused, if it is: the protocols record their
/// verdicts and labels under their own name (`rubric`, `guideline`,
/// `proposition`), and a perspective of that name would mix with them.
pub fn reserved_perspective_id(id: &str) -> Option<String> {
    (super::Protocol::of_perspective(id.trim()) != super::Protocol::Awag).then(|| {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// "No persona" is written as it always was: stores and exports keep "-".
    #[test]
    fn no_persona_is_recorded_as_a_dash_and_read_back() {
        assert_eq!(PersonaRef::None.id(), "-");
        assert_eq!(PersonaRef::from_id("-"), PersonaRef::None);
        assert_eq!(
            PersonaRef::from_id("ana"),
            PersonaRef::Persona("ana".into())
        );
        assert_eq!(PersonaRef::from(Some("ana".to_string())).id(), "ana");
        assert_eq!(PersonaRef::from(None).persona(), None);
        assert!(reserved_id(" - ").is_some_and(|why| why.starts_with("'-' is reserved")));
        assert!(reserved_id(OWNER_CHOICE).is_some());
        assert_eq!(reserved_id("ana"), None);
        assert!(reserved_id("ana:likert").is_some_and(|why| why.contains("':'")));
    }
}
