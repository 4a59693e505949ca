//! `jury label ITEM CLASSIFICATION VALUE`.

use super::strings::{label as say, missing};
use super::{LabelArgs, open_store};
use crate::config::Settings;
use crate::domain::{ComboKey, Label, PersonaRef};
use std::process::ExitCode;

/// The persona whose inbox an item sits in (`inbox:<id>` tag), if any.
pub fn inbox_persona(tags: &[String]) -> Option<&str> {
    crate::import::inbox_name(tags)
}

pub fn label(s: &Settings, a: LabelArgs) -> anyhow::Result<ExitCode> {
    // A tag outside the set is refused before anything is read or written.
    crate::config::check_tags(&a.tags, &s.tags).map_err(anyhow::Error::msg)?;
    let mut store = open_store(s)?;
    let item = store
        .item(&a.item)?
        .ok_or_else(|| anyhow::anyhow!(missing::item(&a.item)))?;
    // Protocol perspectives (rubric, proposition, guideline) label protocol
    // combinations: the "classification" is a dimension, claim id or guideline
    // id, the persona defaults to none (as their runs record it) and the scale
    // is the protocol's.
    use crate::domain::Protocol;
    let protocol = Protocol::of_perspective(&a.perspective);
    let protocol_scale = match protocol {
        Protocol::Rubric => Some(crate::domain::Scale::Likert),
        Protocol::Guideline => Some(crate::domain::Scale::Degree),
        Protocol::Proposition => Some(
            if matches!(
                a.value.trim().to_ascii_lowercase().as_str(),
                "true" | "false"
            ) {
                crate::domain::Scale::Bool
            } else {
                crate::domain::Scale::Score09
            },
        ),
        Protocol::Awag => None,
    };
    if let Some(scale) = protocol_scale {
        if protocol == Protocol::Guideline
            && !crate::protocol::guideline::guidelines(&item)
                .iter()
                .any(|g| g.id == a.classification)
        {
            anyhow::bail!(say::no_guideline(&a.item, &a.classification));
        }
        let persona = a
            .persona
            .clone()
            .map_or(PersonaRef::None, |p| PersonaRef::from_id(&p));
        if let PersonaRef::Persona(id) = &persona
            && !store.personas()?.iter().any(|p| &p.id == id)
        {
            anyhow::bail!(missing::persona(id));
        }
        let persona = persona.id().to_string();
        let value = scale.parse(&a.value).map_err(|e| {
            anyhow::anyhow!(say::bad_protocol_value(
                &e.to_string(),
                &a.perspective,
                scale.expected()
            ))
        })?;
        return save(s, &mut store, a, persona, value);
    }
    if item.classification(&a.classification).is_none() {
        let known: Vec<&str> = item.classifications.iter().map(|c| c.id.as_str()).collect();
        anyhow::bail!(say::no_classification(
            &a.item,
            &a.classification,
            &known.join(", ")
        ));
    }
    let personas = store.personas()?;
    let persona = match a.persona.clone() {
        Some(p) => p,
        // The item's owner, else (a store imported before owners) its inbox tag.
        None => match item.owner.as_deref().or(inbox_persona(&item.tags)) {
            Some(p) => p.to_string(),
            None if personas.len() == 1 => personas[0].id.clone(),
            None => anyhow::bail!(say::WHICH_PERSONA),
        },
    };
    if !personas.iter().any(|p| p.id == persona) {
        anyhow::bail!(missing::persona(&persona));
    }
    if !store.perspectives()?.iter().any(|p| p.id == a.perspective) {
        anyhow::bail!(missing::perspective(&a.perspective));
    }
    let scale = crate::import::infer_scale_text(&a.value);
    let value = scale
        .parse(&a.value)
        .map_err(|e| anyhow::anyhow!(say::bad_value(&e.to_string())))?;
    save(s, &mut store, a, persona, value)
}

fn save(
    s: &Settings,
    store: &mut crate::store::Store,
    a: LabelArgs,
    persona: String,
    value: crate::domain::Value,
) -> anyhow::Result<ExitCode> {
    let label = Label {
        key: ComboKey::new(&a.item, &a.classification, &a.perspective),
        persona_id: persona,
        value,
        note: a.note,
        who: s.who.clone(),
        created_at: crate::store::now(),
        replaced_judge_value: None,
        blind: false,
        tags: a.tags,
    };
    store.upsert_label(&label)?;
    // Ids and names come from files and flags: neutralise them for the terminal.
    let show = |s: &str| crate::sanitize::one_line(s, 200);
    println!(
        "{}",
        say::labelled(
            &show(&label.key.item_id),
            &show(&label.key.classification_id),
            &label.value.to_string(),
            &label.value.scale().to_string(),
            &show(&label.persona_id),
            &show(&label.who)
        )
    );
    Ok(ExitCode::SUCCESS)
}
