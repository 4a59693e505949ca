//! What a judge is asked, typed per protocol: built once by one constructor
//! per protocol ([`JudgeSpec::awag`], [`JudgeSpec::rubric`],
//! [`JudgeSpec::proposition`], [`JudgeSpec::guideline`]) and checked there,
//! so the CLI and the workbench refuse the same things and nothing downstream
//! parses settings again. `jury run`'s flags reach them through
//! [`JudgeSpec::from_flags`] (in `flags`), which words a refusal by its flags.

mod flags;

pub use flags::SpecFlags;

use super::proposition;
use super::rubric::Dimension;
use crate::domain::{Mode, PersonaRef, Protocol};

/// One judge style and everything it needs to know to ask.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "protocol", rename_all = "snake_case")]
pub enum JudgeSpec {
    /// AwAg: a persona, one or more perspectives, a mode.
    Awag {
        mode: Mode,
        persona: String,
        perspectives: Vec<String>,
    },
    /// Rubric scores, one request per example and dimension. `persona` only
    /// names who the verdicts are recorded for.
    Rubric {
        dimensions: Vec<Dimension>,
        persona: Option<String>,
    },
    /// A claim, judged from a persona's view or no one's.
    Proposition {
        settings: proposition::Settings,
        persona: Option<String>,
    },
    /// Each conversation's own guidelines. `persona` as for rubric.
    Guideline { persona: Option<String> },
}

/// Why a spec's constructor refuses what it was given, as data: each front
/// end words it for what its user can change (the CLI names its flags, see
/// `flags`; the workbench shows these words, which name none).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SpecRefusal {
    #[error("the awag protocol needs a persona and a perspective")]
    NoPersonaOrPerspective,
    /// Two rubrics under one dimension name; `first` and `second` are their
    /// places in the dimensions given.
    #[error("two rubrics name the same dimension '{name}': give each name once")]
    DimensionTwice {
        name: String,
        first: usize,
        second: usize,
    },
    #[error("no dimensions: a rubric run needs at least one")]
    NoDimensions,
    #[error("the proposition protocol needs a claim")]
    NoClaim,
    /// The precondition does not parse; why.
    #[error("precondition: {0}")]
    BadPrecondition(String),
}

/// A spec that cannot be built, or one that names what the store lacks.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
}

impl JudgeSpec {
    /// AwAg in `mode`, as `persona`, from each of `perspectives` (trimmed,
    /// blank ones dropped, each once at its first place). The persona and
    /// perspectives are looked up in the store when the run is planned.
    pub fn awag(
        mode: Mode,
        persona: &str,
        perspectives: Vec<String>,
    ) -> Result<JudgeSpec, SpecRefusal> {
        let persona = persona.trim();
        let perspectives: Vec<String> = perspectives
            .iter()
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        let perspectives = crate::domain::first_of_each(perspectives).0;
        match PersonaRef::from_id(persona) {
            PersonaRef::Persona(persona) if !persona.is_empty() && !perspectives.is_empty() => {
                Ok(JudgeSpec::Awag {
                    mode,
                    persona,
                    perspectives,
                })
            }
            _ => Err(SpecRefusal::NoPersonaOrPerspective),
        }
    }

    /// Rubric scores on relevance and tone (left out without
    /// `with_defaults`) and on the dimensions `given`: one named like a
    /// default replaces it, in its place; one given twice is kept once; two
    /// rubrics under one name are refused, as only the person can choose.
    pub fn rubric(
        given: Vec<Dimension>,
        with_defaults: bool,
        persona: PersonaRef,
    ) -> Result<JudgeSpec, SpecRefusal> {
        if let Some(refusal) = repeated_dimension(&given) {
            return Err(refusal);
        }
        let mut dimensions = if with_defaults {
            Dimension::defaults()
        } else {
            Vec::new()
        };
        for dim in given {
            match dimensions.iter_mut().find(|x| x.name == dim.name) {
                Some(same) => *same = dim,
                None => dimensions.push(dim),
            }
        }
        if dimensions.is_empty() {
            return Err(SpecRefusal::NoDimensions);
        }
        Ok(JudgeSpec::Rubric {
            dimensions,
            persona: persona.into_persona(),
        })
    }

    /// A claim judged from `persona`'s view or no one's: the claim (trimmed)
    /// is required, a blank claim id becomes the claim's own, a blank
    /// precondition is none and a given one must parse.
    pub fn proposition(
        settings: proposition::Settings,
        persona: PersonaRef,
    ) -> Result<JudgeSpec, SpecRefusal> {
        let claim = settings.claim.trim().to_string();
        if claim.is_empty() {
            return Err(SpecRefusal::NoClaim);
        }
        let precondition = Some(settings.precondition.as_deref().unwrap_or("").trim())
            .filter(|p| !p.is_empty())
            .map(String::from);
        if let Some(p) = &precondition {
            proposition::precondition::parse(p).map_err(SpecRefusal::BadPrecondition)?;
        }
        let claim_id = match settings.claim_id.trim() {
            "" => proposition::Settings::default_claim_id(&claim),
            id => id.to_string(),
        };
        Ok(JudgeSpec::Proposition {
            settings: proposition::Settings {
                claim,
                claim_id,
                precondition,
                ..settings
            },
            persona: persona.into_persona(),
        })
    }

    /// Each conversation against its own guidelines; nothing to check.
    pub fn guideline(persona: PersonaRef) -> JudgeSpec {
        JudgeSpec::Guideline {
            persona: persona.into_persona(),
        }
    }

    /// The same judge asked as `persona` (a run per item owner), checked as
    /// its constructor checks it.
    pub fn as_persona(&self, persona: &str) -> Result<JudgeSpec, SpecRefusal> {
        let mut spec = self.clone();
        match &mut spec {
            JudgeSpec::Awag {
                mode, perspectives, ..
            } => return JudgeSpec::awag(*mode, persona, std::mem::take(perspectives)),
            JudgeSpec::Rubric { persona: p, .. }
            | JudgeSpec::Proposition { persona: p, .. }
            | JudgeSpec::Guideline { persona: p } => {
                *p = PersonaRef::from_id(persona).into_persona();
            }
        }
        Ok(spec)
    }

    /// The spec with each perspective and dimension once, at its first
    /// place: whoever built it (flags, the workbench), a plan never asks for
    /// one combination twice.
    pub fn without_repeats(&self) -> JudgeSpec {
        let mut spec = self.clone();
        match &mut spec {
            JudgeSpec::Awag { perspectives, .. } => {
                *perspectives = crate::domain::first_of_each(std::mem::take(perspectives)).0;
            }
            JudgeSpec::Rubric { dimensions, .. } => {
                let mut seen = std::collections::HashSet::new();
                dimensions.retain(|d| seen.insert(d.name.clone()));
            }
            JudgeSpec::Proposition { .. } | JudgeSpec::Guideline { .. } => {}
        }
        spec
    }

    pub fn protocol(&self) -> Protocol {
        match self {
            JudgeSpec::Awag { .. } => Protocol::Awag,
            JudgeSpec::Rubric { .. } => Protocol::Rubric,
            JudgeSpec::Proposition { .. } => Protocol::Proposition,
            JudgeSpec::Guideline { .. } => Protocol::Guideline,
        }
    }

    /// The AwAg mode; other protocols have none.
    pub fn mode(&self) -> Option<Mode> {
        match self {
            JudgeSpec::Awag { mode, .. } => Some(*mode),
            _ => None,
        }
    }

    /// The persona chosen, if any.
    pub fn persona(&self) -> Option<&str> {
        match self {
            JudgeSpec::Awag { persona, .. } => Some(persona),
            JudgeSpec::Rubric { persona, .. }
            | JudgeSpec::Proposition { persona, .. }
            | JudgeSpec::Guideline { persona } => persona.as_deref(),
        }
    }

    /// The persona id the run's verdicts are recorded under
    /// ([`PersonaRef::NONE_ID`] for no one).
    pub fn persona_id(&self) -> &str {
        self.persona().unwrap_or(PersonaRef::NONE_ID)
    }

    /// The perspectives the run's verdicts are recorded under: the chosen
    /// ones for AwAg, the protocol's own name otherwise.
    pub fn perspective_ids(&self) -> Vec<String> {
        match self {
            JudgeSpec::Awag { perspectives, .. } => perspectives.clone(),
            other => other
                .protocol()
                .own_perspective()
                .map(String::from)
                .into_iter()
                .collect(),
        }
    }
}

/// The first dimension name given with two different rubrics, if any (the
/// same rubric twice is one dimension, kept once).
pub(super) fn repeated_dimension(given: &[Dimension]) -> Option<SpecRefusal> {
    let mut kept: Vec<usize> = Vec::new();
    for (second, dim) in given.iter().enumerate() {
        match kept.iter().find(|&&k| given[k].name == dim.name) {
            Some(&first) if given[first].rubric != dim.rubric => {
                return Some(SpecRefusal::DimensionTwice {
                    name: dim.name.clone(),
                    first,
                    second,
                });
            }
            Some(_) => {}
            None => kept.push(second),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use proposition::{Scoring, Settings};

    fn dim(name: &str, rubric: &str) -> Dimension {
        Dimension {
            name: name.into(),
            rubric: rubric.into(),
        }
    }

    fn claim(text: &str) -> Settings {
        Settings {
            claim: text.into(),
            claim_id: String::new(),
            scoring: Scoring::Check,
            double_check: false,
            precondition: None,
            first_n: None,
            last_n: None,
        }
    }

    #[test]
    fn awag_keeps_each_perspective_once_and_needs_a_persona_and_one() {
        let spec = JudgeSpec::awag(
            Mode::Two,
            " ana ",
            vec!["b".into(), " a".into(), " ".into(), "b".into(), "a ".into()],
        )
        .unwrap();
        assert_eq!(
            spec,
            JudgeSpec::Awag {
                mode: Mode::Two,
                persona: "ana".into(),
                perspectives: vec!["b".into(), "a".into()],
            }
        );
        assert_eq!(spec.persona_id(), "ana");
        let refused = |persona: &str, perspectives: Vec<String>| {
            JudgeSpec::awag(Mode::One, persona, perspectives).unwrap_err()
        };
        let p = || vec!["classification".to_string()];
        // No one, blank, or the recorded "no persona" are not a persona.
        for persona in ["", "  ", PersonaRef::NONE_ID] {
            assert_eq!(
                refused(persona, p()),
                SpecRefusal::NoPersonaOrPerspective,
                "{persona:?}"
            );
        }
        assert_eq!(
            refused("ana", vec![" ".into()]),
            SpecRefusal::NoPersonaOrPerspective
        );
    }

    #[test]
    fn rubric_dimensions_replace_defaults_in_place_and_a_name_has_one_rubric() {
        let JudgeSpec::Rubric {
            dimensions,
            persona,
        } = JudgeSpec::rubric(
            vec![
                dim("clarity", "Is it clear?"),
                dim("clarity", "Is it clear?"),
                dim("relevance", "Is it short?"),
            ],
            true,
            PersonaRef::None,
        )
        .unwrap()
        else {
            panic!("a rubric spec");
        };
        let names: Vec<&str> = dimensions.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["relevance", "tone", "clarity"]);
        assert_eq!(dimensions[0].rubric, "Is it short?");
        assert_eq!(persona, None);
        assert_eq!(
            JudgeSpec::rubric(
                vec![dim("a", "x"), dim("clarity", "one"), dim("clarity", "two")],
                true,
                PersonaRef::None,
            ),
            Err(SpecRefusal::DimensionTwice {
                name: "clarity".into(),
                first: 1,
                second: 2,
            })
        );
        assert_eq!(
            JudgeSpec::rubric(Vec::new(), false, PersonaRef::None),
            Err(SpecRefusal::NoDimensions)
        );
        let spec = JudgeSpec::rubric(Vec::new(), true, PersonaRef::Persona("ana".into())).unwrap();
        assert_eq!((spec.persona(), spec.persona_id()), (Some("ana"), "ana"));
    }

    #[test]
    fn a_proposition_needs_a_claim_and_a_precondition_that_parses() {
        for blank in ["", "   "] {
            assert_eq!(
                JudgeSpec::proposition(claim(blank), PersonaRef::None),
                Err(SpecRefusal::NoClaim)
            );
        }
        let mut s = claim(" It is urgent. ");
        s.precondition = Some("colour == red".into());
        let e = JudgeSpec::proposition(s.clone(), PersonaRef::None).unwrap_err();
        assert!(
            matches!(&e, SpecRefusal::BadPrecondition(why) if why.starts_with("unknown field 'colour'")),
            "{e:?}"
        );
        s.precondition = Some("  ".into());
        let spec = JudgeSpec::proposition(s, PersonaRef::None).unwrap();
        let JudgeSpec::Proposition { settings, persona } = &spec else {
            panic!("{spec:?}")
        };
        assert_eq!(settings.claim, "It is urgent.");
        assert_eq!(
            settings.claim_id,
            Settings::default_claim_id("It is urgent.")
        );
        assert_eq!(settings.precondition, None, "a blank precondition is none");
        assert_eq!(persona, &None);
        assert_eq!(spec.persona_id(), PersonaRef::NONE_ID);
        // Built again from what it built: the same spec.
        assert_eq!(
            JudgeSpec::proposition(settings.clone(), PersonaRef::None).as_ref(),
            Ok(&spec)
        );
        let mut s = claim("x");
        s.claim_id = " c-1 ".into();
        let spec = JudgeSpec::proposition(s, PersonaRef::Persona("ana".into())).unwrap();
        let JudgeSpec::Proposition { settings, persona } = spec else {
            panic!()
        };
        assert_eq!(
            (settings.claim_id.as_str(), persona.as_deref()),
            ("c-1", Some("ana"))
        );
    }

    #[test]
    fn a_spec_asked_as_another_persona_is_checked_again() {
        let spec = JudgeSpec::awag(Mode::Three, "ana", vec!["p".into()]).unwrap();
        assert_eq!(
            spec.as_persona(" maren "),
            JudgeSpec::awag(Mode::Three, "maren", vec!["p".into()])
        );
        assert_eq!(
            spec.as_persona(""),
            Err(SpecRefusal::NoPersonaOrPerspective)
        );
        let none = JudgeSpec::guideline(PersonaRef::None);
        assert_eq!(none.as_persona("ana").unwrap().persona(), Some("ana"));
        assert_eq!(none.as_persona(PersonaRef::NONE_ID).as_ref(), Ok(&none));
    }

    #[test]
    fn a_guideline_spec_records_its_persona_or_none() {
        assert_eq!(
            JudgeSpec::guideline(PersonaRef::None),
            JudgeSpec::Guideline { persona: None }
        );
        assert_eq!(
            JudgeSpec::guideline(PersonaRef::Persona("ana".into())).persona_id(),
            "ana"
        );
    }

    /// The constructors' own words are what the workbench shows: they name
    /// no flag (only `jury run` has flags, and it words refusals itself).
    #[test]
    fn a_refusal_names_no_flag() {
        for r in [
            SpecRefusal::NoPersonaOrPerspective,
            SpecRefusal::DimensionTwice {
                name: "clarity".into(),
                first: 0,
                second: 1,
            },
            SpecRefusal::NoDimensions,
            SpecRefusal::NoClaim,
            SpecRefusal::BadPrecondition("unknown field 'colour'".into()),
        ] {
            assert!(!r.to_string().contains("--"), "{r}");
        }
    }
}
