//! What a judge is asked, typed per protocol: built once (from `jury run`'s
//! flags, or from the workbench's choices) by [`JudgeSpec::from_flags`], and
//! validated there, so the CLI and the workbench refuse the same things with
//! the same words and nothing downstream parses settings again.

use super::proposition::{self, Scoring};
use super::rubric::Dimension;
use crate::domain::{Mode, Protocol};
use serde_json::{Value, json};
use std::path::Path;

/// The persona id a run without a persona records (rubric, guideline, a
/// proposition judged from no one's view). Stores keep it; it never stands
/// for "no persona" inside a [`JudgeSpec`].
pub const NO_PERSONA: &str = "-";

/// One judge style and everything it needs to know to ask.
#[derive(Debug, Clone, PartialEq)]
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

/// The choices a spec is made from, as plain data: `jury run`'s flags, or
/// what the workbench picked. Empty strings count as not given.
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

/// A spec that cannot be built, or one that names what the store lacks.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
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
    /// The one constructor: every check a spec needs that does not need the
    /// store (the persona and perspectives are looked up when the run is planned).
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
        // A "-" persona is how stores write "none"; as a choice it means none.
        let persona = given(&f.persona).filter(|p| p != NO_PERSONA);
        Ok(match protocol {
            Protocol::Awag => {
                let mode = match f.mode {
                    Some(m) => Mode::from_number(m).ok_or_else(|| {
                        SpecError::Invalid(format!("--mode must be 1, 2 or 3, got {m}"))
                    })?,
                    None => return invalid("--mode is required for the awag protocol (1, 2 or 3)"),
                };
                let perspectives: Vec<String> = f
                    .perspectives
                    .iter()
                    .map(|p| p.trim().to_string())
                    .filter(|p| !p.is_empty())
                    .collect();
                let perspectives = crate::domain::first_of_each(perspectives).0;
                match persona {
                    Some(persona) if !perspectives.is_empty() => JudgeSpec::Awag {
                        mode,
                        persona,
                        perspectives,
                    },
                    _ => {
                        return invalid(
                            "the awag protocol needs --persona and --perspective (see `jury list personas` and `jury list perspectives`)",
                        );
                    }
                }
            }
            Protocol::Rubric => JudgeSpec::Rubric {
                dimensions: rubric_dimensions(f)?,
                persona,
            },
            Protocol::Proposition => JudgeSpec::Proposition {
                settings: proposition_settings(f)?,
                persona,
            },
            Protocol::Guideline => JudgeSpec::Guideline { persona },
        })
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

    /// The perspectives the run's verdicts are recorded under: the chosen
    /// ones for AwAg, the protocol's own name otherwise.
    pub fn perspective_ids(&self) -> Vec<String> {
        match self {
            JudgeSpec::Awag { perspectives, .. } => perspectives.clone(),
            other => vec![other.protocol().as_str().to_string()],
        }
    }

    /// The settings as a run records them (`params.options` in the store):
    /// the same JSON `jury` has always written, so stores, `jury runs --json`
    /// and exports read alike. `prompts_dir` is the directory the protocol's
    /// prompts came from.
    pub fn options_json(&self, prompts_dir: Option<&Path>) -> Value {
        match self {
            JudgeSpec::Awag { .. } => Value::Null,
            JudgeSpec::Rubric { dimensions, .. } => json!({
                "dimensions": dimensions
                    .iter()
                    .map(|d| json!({"name": d.name, "rubric": d.rubric}))
                    .collect::<Vec<_>>(),
                "prompts_dir": prompts_dir,
            }),
            JudgeSpec::Proposition { settings, .. } => {
                let mut o = settings.to_options();
                o["prompts_dir"] = json!(prompts_dir);
                o
            }
            JudgeSpec::Guideline { .. } => json!({ "prompts_dir": prompts_dir }),
        }
    }
}

/// Relevance and tone unless left out, then the user's own; at least one.
fn rubric_dimensions(f: &SpecFlags) -> Result<Vec<Dimension>, SpecError> {
    let mut dims = if f.no_default_dimensions {
        Vec::new()
    } else {
        Dimension::defaults()
    };
    let mut given: Vec<(&str, Dimension)> = Vec::new();
    for d in &f.dimensions {
        let dim = Dimension::from_arg(d).map_err(SpecError::Invalid)?;
        // One name is one dimension: the same rubric twice is kept once, two
        // rubrics under one name are a choice only the person can make.
        match given.iter().find(|(_, g)| g.name == dim.name) {
            Some((_, g)) if g.rubric == dim.rubric => continue,
            Some((first, _)) => {
                return invalid(format!(
                    "--dimension {first} and --dimension {d} name the same dimension '{}': give each name once",
                    dim.name
                ));
            }
            None => given.push((d, dim)),
        }
    }
    for (_, dim) in given {
        // A dimension named like a default one replaces it, in its place.
        match dims.iter_mut().find(|x| x.name == dim.name) {
            Some(default) => *default = dim,
            None => dims.push(dim),
        }
    }
    if dims.is_empty() {
        return invalid(
            "no dimensions: give --dimension NAME=FILE or drop --no-default-dimensions",
        );
    }
    Ok(dims)
}

/// A claim (required), its id (default: from the claim), the scoring and a
/// precondition that parses.
fn proposition_settings(f: &SpecFlags) -> Result<proposition::Settings, SpecError> {
    let Some(claim) = given(&f.claim) else {
        return invalid("the proposition protocol needs --claim \"...\"");
    };
    let precondition = given(&f.precondition);
    if let Some(p) = &precondition {
        proposition::precondition::parse(p)
            .map_err(|e| SpecError::Invalid(format!("--precondition: {e}")))?;
    }
    Ok(proposition::Settings {
        claim_id: given(&f.claim_id)
            .unwrap_or_else(|| proposition::Settings::default_claim_id(&claim)),
        claim,
        scoring: Scoring::parse(f.scoring.as_deref().unwrap_or("check"))
            .map_err(SpecError::Invalid)?,
        double_check: f.double_check,
        precondition,
        first_n: f.first_n,
        last_n: f.last_n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        f.persona = Some(NO_PERSONA.into());
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
        let o = spec.options_json(Some(Path::new("p")));
        assert_eq!(o["claim"], "It is urgent.");
        assert_eq!(o["prompts_dir"], "p");
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
            JudgeSpec::from_flags(&flags("guideline"))
                .unwrap()
                .options_json(None),
            json!({"prompts_dir": null})
        );
    }
}
