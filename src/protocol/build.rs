//! From a [`JudgeSpec`] to the judge that asks: the protocol (units,
//! requests, parser, tool schema), and what the run records of it. The
//! engine calls [`build`] and never looks at which protocol it got.

use super::guideline::GuidelineCheck;
use super::proposition::Proposition;
use super::rubric::{self, Rubric};
use super::spec::{JudgeSpec, SpecError};
use super::{JudgeProtocol, ProtocolError, awag::Awag};
use crate::domain::{Persona, PersonaRef};
use crate::prompt::PromptSet;
use crate::store::Store;
use std::sync::Arc;

/// A judge ready to ask, and what its run records.
pub struct Built {
    pub judge: Arc<dyn JudgeProtocol>,
    /// The persona id verdicts are recorded for ([`PersonaRef::NONE_ID`] for none).
    pub persona_id: String,
    /// Hash of the prompt texts and settings that change what is asked.
    pub prompt_hash: String,
}

/// Builds the judge for `spec` with its prompts from `prompts`, looking up
/// the persona and perspectives it names in `store`; `items` are the items
/// as the judge may see them.
pub fn build(
    spec: &JudgeSpec,
    store: &Store,
    prompts: &Arc<PromptSet>,
    items: Arc<crate::protocol::ItemBook>,
) -> Result<Built, ProtocolError> {
    let invalid = |e: String| ProtocolError::Spec(SpecError::Invalid(e));
    match spec {
        JudgeSpec::Awag {
            mode,
            persona,
            perspectives,
        } => {
            let persona = persona_in(store, persona)?;
            let all = store.perspectives()?;
            let mut chosen = Vec::with_capacity(perspectives.len());
            for id in perspectives {
                let p = all.iter().find(|p| &p.id == id).ok_or_else(|| {
                    invalid(format!(
                        "no perspective '{id}' in the store (see `jury list perspectives`)"
                    ))
                })?;
                chosen.push(p.clone());
            }
            if chosen.is_empty() {
                return Err(invalid("name at least one perspective".into()));
            }
            Ok(Built {
                persona_id: persona.id.clone(),
                prompt_hash: prompts.hash().to_string(),
                judge: Arc::new(Awag {
                    mode: *mode,
                    prompts: prompts.clone(),
                    persona,
                    perspectives: chosen,
                    items,
                }),
            })
        }
        JudgeSpec::Rubric {
            dimensions,
            persona,
        } => {
            let texts = prompts.rubric()?;
            Ok(Built {
                persona_id: PersonaRef::from(persona.clone()).id().to_string(),
                prompt_hash: rubric::prompt_hash(&texts, dimensions),
                judge: Arc::new(Rubric {
                    prompts: texts,
                    dimensions: dimensions.clone(),
                    items,
                }),
            })
        }
        JudgeSpec::Proposition { settings, persona } => {
            let texts = prompts.proposition()?;
            let persona = persona
                .as_deref()
                .map(|id| persona_in(store, id))
                .transpose()?;
            Ok(Built {
                persona_id: PersonaRef::from(persona.as_ref().map(|p| p.id.clone()))
                    .id()
                    .to_string(),
                prompt_hash: settings.prompt_hash(&texts),
                judge: Arc::new(Proposition::new(texts, settings.clone(), persona, items)?),
            })
        }
        JudgeSpec::Guideline { persona } => {
            let texts = prompts.guideline()?;
            Ok(Built {
                persona_id: PersonaRef::from(persona.clone()).id().to_string(),
                prompt_hash: texts.hash(),
                judge: Arc::new(GuidelineCheck {
                    prompts: texts,
                    items,
                }),
            })
        }
    }
}

fn persona_in(store: &Store, id: &str) -> Result<Persona, SpecError> {
    store.persona(id)?.ok_or_else(|| {
        SpecError::Invalid(format!(
            "no persona '{id}' in the store (see `jury list personas`)"
        ))
    })
}
