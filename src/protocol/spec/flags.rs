//! `jury run`'s judge flags, at the CLI's edge: parsed into the typed
//! arguments of one protocol's constructor, and its refusals worded by the
//! flags the user gave (the texts `jury run` has always printed).

use super::{JudgeSpec, SpecError, SpecRefusal, repeated_dimension};
use crate::domain::{Mode, PersonaRef, Protocol};
use crate::protocol::proposition::{Scoring, Settings};
use crate::protocol::rubric::Dimension;

/// The choices a spec is made from, as `jury run`'s flags give them. Empty
/// strings count as not given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SpecFlags {
    /// `awag`, `rubric`, `proposition` or `guideline`.
    pub protocol: String,
    /// AwAg mode 1, 2 or 3 (awag only).
    pub mode: Option<u8>,
    pub persona: Option<String>,
    pub perspectives: Vec<String>,
    /// Rubric: extra dimensions as `NAME=RUBRIC_FILE`.
    pub dimensions: Vec<String>,
    /// Rubric: leave out relevance and tone.
    pub no_default_dimensions: bool,
    pub claim: Option<String>,
    pub claim_id: Option<String>,
    /// `check` (the default) or `score`.
    pub scoring: Option<String>,
    pub double_check: bool,
    pub precondition: Option<String>,
    pub first_n: Option<usize>,
    pub last_n: Option<usize>,
}

fn invalid<T>(m: impl Into<String>) -> Result<T, SpecError> {
    Err(SpecError::Invalid(m.into()))
}

/// `Some` of a non-blank string, trimmed.
fn given(s: &Option<String>) -> Option<String> {
    s.as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
}

impl JudgeSpec {
    /// The spec `jury run`'s flags ask for: flags of another protocol are
    /// refused, the rest parsed and handed to that protocol's constructor.
    pub fn from_flags(f: &SpecFlags) -> Result<JudgeSpec, SpecError> {
        let protocol: Protocol = f.protocol.parse().map_err(SpecError::Invalid)?;
        if f.double_check && protocol != Protocol::Proposition {
            return invalid("--double-check applies to the proposition protocol");
        }
        if f.mode.is_some() && protocol != Protocol::Awag {
            return invalid("--mode applies to the awag protocol only");
        }
        let proposition_flags = f.claim.is_some()
            || f.claim_id.is_some()
            || f.precondition.is_some()
            || f.first_n.is_some()
            || f.last_n.is_some()
            || f.scoring.as_deref().is_some_and(|s| s != "check");
        if proposition_flags && protocol != Protocol::Proposition {
            return invalid(
                "--claim, --claim-id, --scoring, --precondition, --first-n and --last-n apply to the proposition protocol",
            );
        }
        let refused = |r: SpecRefusal| SpecError::Invalid(in_flags(r, f));
        // The recorded "no persona" given as a choice means none.
        let persona = given(&f.persona).map_or(PersonaRef::None, |p| PersonaRef::from_id(&p));
        match protocol {
            Protocol::Awag => {
                let mode = match f.mode {
                    Some(m) => Mode::from_number(m).ok_or_else(|| {
                        SpecError::Invalid(format!("--mode must be 1, 2 or 3, got {m}"))
                    })?,
                    None => return invalid("--mode is required for the awag protocol (1, 2 or 3)"),
                };
                let persona = persona.persona().unwrap_or_default();
                JudgeSpec::awag(mode, persona, f.perspectives.clone()).map_err(refused)
            }
            Protocol::Rubric => {
                let given = dimensions(f)?;
                JudgeSpec::rubric(given, !f.no_default_dimensions, persona).map_err(refused)
            }
            Protocol::Proposition => {
                let scoring = Scoring::parse(f.scoring.as_deref().unwrap_or("check"));
                let settings = Settings {
                    claim: f.claim.clone().unwrap_or_default(),
                    claim_id: f.claim_id.clone().unwrap_or_default(),
                    scoring: scoring.clone().unwrap_or(Scoring::Check),
                    double_check: f.double_check,
                    precondition: f.precondition.clone(),
                    first_n: f.first_n,
                    last_n: f.last_n,
                };
                let mut spec = JudgeSpec::proposition(settings, persona).map_err(refused)?;
                // A scoring that does not parse is named after the claim and
                // the precondition, as it always was.
                let scoring = scoring.map_err(SpecError::Invalid)?;
                if let JudgeSpec::Proposition { settings, .. } = &mut spec {
                    settings.scoring = scoring;
                }
                Ok(spec)
            }
            Protocol::Guideline => Ok(JudgeSpec::guideline(persona)),
        }
    }
}

/// Each `--dimension NAME=RUBRIC_FILE`, read. An argument that does not read
/// is named after a repeat among the ones before it, which was met first.
fn dimensions(f: &SpecFlags) -> Result<Vec<Dimension>, SpecError> {
    let mut given = Vec::with_capacity(f.dimensions.len());
    for arg in &f.dimensions {
        match Dimension::from_arg(arg) {
            Ok(dim) => given.push(dim),
            Err(e) => {
                if let Some(r) = repeated_dimension(&given) {
                    return invalid(in_flags(r, f));
                }
                return invalid(e);
            }
        }
    }
    Ok(given)
}

/// A constructor's refusal in the words of the flags that caused it.
fn in_flags(r: SpecRefusal, f: &SpecFlags) -> String {
    match r {
        SpecRefusal::NoPersonaOrPerspective => "the awag protocol needs --persona and --perspective (see `jury list personas` and `jury list perspectives`)".into(),
        SpecRefusal::DimensionTwice {
            name,
            first,
            second,
        } => {
            let arg = |i: usize| f.dimensions.get(i).map_or(name.as_str(), String::as_str);
            format!(
                "--dimension {} and --dimension {} name the same dimension '{name}': give each name once",
                arg(first),
                arg(second)
            )
        }
        SpecRefusal::NoDimensions => {
            "no dimensions: give --dimension NAME=FILE or drop --no-default-dimensions".into()
        }
        SpecRefusal::NoClaim => "the proposition protocol needs --claim \"...\"".into(),
        SpecRefusal::BadPrecondition(e) => format!("--precondition: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Mode;
    use crate::protocol::proposition::{self, Scoring};
    use crate::protocol::rubric::Dimension;
    use serde_json::json;

    fn flags(protocol: &str) -> SpecFlags {
        SpecFlags {
            protocol: protocol.into(),
            ..SpecFlags::default()
        }
    }

    fn refused(f: &SpecFlags) -> String {
        match JudgeSpec::from_flags(f) {
            Err(SpecError::Invalid(m)) => m,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    /// A perspective or dimension named twice is one: a plan never asks
    /// for one combination twice.
    #[test]
    fn a_perspective_or_dimension_named_twice_is_kept_once() {
        let mut f = flags("awag");
        f.mode = Some(2);
        f.persona = Some("ana".into());
        f.perspectives = vec!["b".into(), " a".into(), "b".into(), "a ".into()];
        assert_eq!(
            JudgeSpec::from_flags(&f).unwrap().perspective_ids(),
            vec!["b".to_string(), "a".to_string()]
        );
        let dir = std::env::temp_dir().join(format!("jury-spec-dims-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (one, two) = (dir.join("one.txt"), dir.join("two.txt"));
        std::fs::write(&one, "Is it clear?").unwrap();
        std::fs::write(&two, "Is it short?").unwrap();
        let mut f = flags("rubric");
        let arg = |name: &str, p: &std::path::Path| format!("{name}={}", p.display());
        f.dimensions = vec![
            arg("clarity", &one),
            arg("clarity", &one),
            arg("relevance", &two),
        ];
        let JudgeSpec::Rubric { dimensions, .. } = JudgeSpec::from_flags(&f).unwrap() else {
            panic!("a rubric spec");
        };
        let names: Vec<&str> = dimensions.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["relevance", "tone", "clarity"]);
        assert_eq!(
            dimensions[0].rubric, "Is it short?",
            "the default is replaced"
        );
        f.dimensions = vec![arg("clarity", &one), arg("clarity", &two)];
        assert!(
            refused(&f).contains("name the same dimension 'clarity'"),
            "{}",
            refused(&f)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn awag_needs_a_mode_a_persona_and_a_perspective() {
        let mut f = flags("awag");
        assert!(refused(&f).contains("--mode is required"));
        f.mode = Some(4);
        assert!(refused(&f).contains("--mode must be 1, 2 or 3, got 4"));
        f.mode = Some(2);
        assert!(refused(&f).contains("needs --persona and --perspective"));
        f.persona = Some("ana".into());
        f.perspectives = vec![" ".into()];
        assert!(refused(&f).contains("needs --persona and --perspective"));
        f.perspectives = vec!["classification".into()];
        assert_eq!(
            JudgeSpec::from_flags(&f).unwrap(),
            JudgeSpec::Awag {
                mode: Mode::Two,
                persona: "ana".into(),
                perspectives: vec!["classification".into()],
            }
        );
    }

    #[test]
    fn rubric_dimensions_default_once_and_bad_ones_are_named() {
        let spec = JudgeSpec::from_flags(&flags("rubric")).unwrap();
        assert_eq!(
            spec,
            JudgeSpec::Rubric {
                dimensions: Dimension::defaults(),
                persona: None
            }
        );
        assert_eq!(spec.persona(), None);
        assert_eq!(spec.perspective_ids(), vec!["rubric".to_string()]);
        let mut f = flags("rubric");
        f.dimensions = vec![String::new()];
        assert!(
            refused(&f).contains("expected NAME=RUBRIC_FILE"),
            "{}",
            refused(&f)
        );
        f.dimensions = Vec::new();
        f.no_default_dimensions = true;
        assert!(refused(&f).starts_with("no dimensions"));
        let mut f = flags("rubric");
        f.mode = Some(1);
        assert!(refused(&f).contains("--mode applies to the awag protocol only"));
    }

    #[test]
    fn a_proposition_needs_a_claim_and_a_precondition_that_parses() {
        let mut f = flags("proposition");
        assert!(refused(&f).contains("needs --claim"));
        f.claim = Some("   ".into());
        assert!(refused(&f).contains("needs --claim"));
        f.claim = Some(" It is urgent. ".into());
        f.precondition = Some("colour == red".into());
        assert!(refused(&f).starts_with("--precondition: unknown field 'colour'"));
        f.precondition = Some("tags contains urgent".into());
        f.scoring = Some("grade".into());
        assert!(refused(&f).contains("--scoring must be check or score"));
        f.scoring = Some("score".into());
        f.persona = Some(crate::domain::PersonaRef::NONE_ID.into());
        let spec = JudgeSpec::from_flags(&f).unwrap();
        let JudgeSpec::Proposition { settings, persona } = &spec else {
            panic!("{spec:?}")
        };
        assert_eq!(persona, &None, "a '-' persona is no persona");
        assert_eq!(settings.claim, "It is urgent.");
        assert_eq!(
            settings.claim_id,
            proposition::Settings::default_claim_id("It is urgent.")
        );
        assert_eq!(settings.scoring, Scoring::Score);
        // As a run's record keeps it: the same spec read back.
        let kept = serde_json::to_value(&spec).unwrap();
        assert_eq!(kept["settings"]["claim"], "It is urgent.");
        assert_eq!(serde_json::from_value::<JudgeSpec>(kept).unwrap(), spec);
    }

    #[test]
    fn flags_of_another_protocol_are_refused() {
        let mut f = flags("guideline");
        f.claim = Some("x".into());
        assert!(refused(&f).contains("apply to the proposition protocol"));
        let mut f = flags("rubric");
        f.double_check = true;
        assert!(refused(&f).contains("--double-check applies"));
        assert!(refused(&flags("nope")).contains("nope"));
        assert_eq!(
            serde_json::to_value(JudgeSpec::from_flags(&flags("guideline")).unwrap()).unwrap(),
            json!({"protocol": "guideline", "persona": null})
        );
    }

    /// Each refusal is met where the flags were always checked: a repeated
    /// dimension before a later argument that does not read, a missing claim
    /// before a scoring that does not parse.
    #[test]
    fn refusals_come_in_the_order_the_flags_are_read() {
        let dir = std::env::temp_dir().join(format!("jury-spec-order-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (one, two) = (dir.join("one.txt"), dir.join("two.txt"));
        std::fs::write(&one, "Is it clear?").unwrap();
        std::fs::write(&two, "Is it short?").unwrap();
        let mut f = flags("rubric");
        let (a, b) = (
            format!("clarity={}", one.display()),
            format!("clarity={}", two.display()),
        );
        f.dimensions = vec![a.clone(), b.clone(), "nope".into()];
        assert_eq!(
            refused(&f),
            format!(
                "--dimension {a} and --dimension {b} name the same dimension 'clarity': give each name once"
            )
        );
        f.dimensions = vec![a, "nope".into(), b];
        assert!(
            refused(&f).contains("--dimension 'nope'"),
            "{}",
            refused(&f)
        );
        let mut f = flags("proposition");
        f.scoring = Some("grade".into());
        assert_eq!(
            refused(&f),
            "the proposition protocol needs --claim \"...\""
        );
        f.claim = Some("x".into());
        f.precondition = Some("kind ==".into());
        assert!(
            refused(&f).starts_with("--precondition: "),
            "{}",
            refused(&f)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
