//! `jury label ITEM CLASSIFICATION VALUE`.

use super::{LabelArgs, open_store};
use crate::config::Settings;
use crate::domain::{ComboKey, Label};
use std::process::ExitCode;

/// The persona whose inbox an item sits in (`inbox:<id>` tag), if any.
pub fn inbox_persona(tags: &[String]) -> Option<&str> {
    tags.iter().find_map(|t| t.strip_prefix("inbox:"))
}

pub fn label(s: &Settings, a: LabelArgs) -> anyhow::Result<ExitCode> {
    let mut store = open_store(s)?;
    let item = store
        .item(&a.item)?
        .ok_or_else(|| anyhow::anyhow!("no item '{}' in the store", a.item))?;
    if item.classification(&a.classification).is_none() {
        let known: Vec<&str> = item.classifications.iter().map(|c| c.id.as_str()).collect();
        anyhow::bail!(
            "item '{}' has no classification '{}' (it has: {})",
            a.item,
            a.classification,
            known.join(", ")
        );
    }
    let personas = store.personas()?;
    let persona = match a.persona.clone() {
        Some(p) => p,
        None => match inbox_persona(&item.tags) {
            Some(p) => p.to_string(),
            None if personas.len() == 1 => personas[0].id.clone(),
            None => anyhow::bail!("say which persona this label is for with --persona"),
        },
    };
    if !personas.iter().any(|p| p.id == persona) {
        anyhow::bail!("no persona '{persona}' in the store");
    }
    if !store.perspectives()?.iter().any(|p| p.id == a.perspective) {
        anyhow::bail!("no perspective '{}' in the store", a.perspective);
    }
    let scale = crate::import::infer_scale_text(&a.value);
    let value = scale.parse(&a.value).map_err(|e| {
        anyhow::anyhow!(
            "{e}; a label is 1–5, AGREE/DISAGREE, 0–9, true/false or no/partially/fully"
        )
    })?;
    let label = Label {
        key: ComboKey::new(&a.item, &a.classification, &a.perspective),
        persona_id: persona,
        value,
        note: a.note,
        who: s.who.clone(),
        created_at: crate::store::now(),
        replaced_judge_value: None,
    };
    store.upsert_label(&label)?;
    // Ids and names come from files and flags: neutralise them for the terminal.
    let show = |s: &str| crate::sanitize::one_line(s, 200);
    println!(
        "labelled {}/{} as {} ({} scale) for {} by {}",
        show(&label.key.item_id),
        show(&label.key.classification_id),
        label.value,
        label.value.scale(),
        show(&label.persona_id),
        show(&label.who)
    );
    Ok(ExitCode::SUCCESS)
}
