//! `jury adjudicate ITEM CLASSIFICATION VALUE` and `jury adjudicate --list`:
//! the reference label where people disagree, from a shell.

use super::strings::adjudicate as say;
use super::{AdjudicateArgs, open_store};
use crate::config::Settings;
use crate::domain::{Adjudication, ComboKey, Dispute};
use std::process::ExitCode;

pub fn adjudicate(s: &Settings, a: AdjudicateArgs) -> anyhow::Result<ExitCode> {
    let mut store = open_store(s)?;
    if a.list {
        let queue = store.adjudication_queue()?;
        let text = if a.json {
            serde_json::to_string_pretty(&queue.iter().map(row).collect::<Vec<_>>())?
        } else {
            table(&queue)
        };
        super::out(format_args!("{text}\n"));
        return Ok(ExitCode::SUCCESS);
    }
    let (Some(item), Some(classification), Some(value)) = (a.item, a.classification, a.value)
    else {
        anyhow::bail!(say::NEEDS_VALUE);
    };
    let key = ComboKey::new(&item, &classification, &a.perspective);
    let labels: Vec<_> = store
        .labels_for_item(&item)?
        .into_iter()
        .filter(|l| l.key == key)
        .collect();
    if labels.is_empty() {
        anyhow::bail!(say::no_labels(&item, &classification, &a.perspective));
    }
    let mut personas: Vec<&str> = labels.iter().map(|l| l.persona_id.as_str()).collect();
    personas.sort_unstable();
    personas.dedup();
    let persona = match (&a.persona, personas.as_slice()) {
        (Some(p), _) if personas.contains(&p.as_str()) => p.clone(),
        (Some(p), _) => anyhow::bail!(say::no_persona_labels(p)),
        (None, [one]) => one.to_string(),
        (None, many) => anyhow::bail!(say::which_persona(&many.join(", "))),
    };
    // The people's scale, where they used one; else read from the value.
    let mut scales: Vec<_> = labels
        .iter()
        .filter(|l| l.persona_id == persona)
        .map(|l| l.value.scale())
        .collect();
    scales.dedup();
    let scale = match scales.as_slice() {
        [one] => *one,
        _ => crate::import::infer_scale_text(&value),
    };
    let value = scale
        .parse(&value)
        .map_err(|e| anyhow::anyhow!(say::bad_value(&e.to_string(), scale.as_str())))?;
    let adj = Adjudication {
        key,
        persona_id: persona,
        value,
        note: a.note,
        who: s.who.clone(),
        created_at: crate::store::now(),
    };
    store.adjudicate(&adj)?;
    let show = |s: &str| crate::sanitize::one_line(s, 200);
    super::out(format_args!(
        "{}\n",
        say::adjudicated(
            &show(&adj.key.item_id),
            &show(&adj.key.classification_id),
            &adj.value.to_string(),
            adj.value.scale().as_str(),
            &show(&adj.persona_id),
            &show(&adj.who)
        )
    ));
    Ok(ExitCode::SUCCESS)
}

/// One dispute as JSON: the combination and every person's label and note.
fn row(d: &Dispute) -> serde_json::Value {
    serde_json::json!({
        "item_id": d.key.item_id,
        "classification_id": d.key.classification_id,
        "perspective_id": d.key.perspective_id,
        "persona_id": d.persona_id,
        "scale": d.scale.as_str(),
        "labels": d.labels.iter().map(|l| serde_json::json!({
            "who": l.who,
            "value": l.value.to_json(),
            "note": l.note,
            "created_at": l.created_at,
        })).collect::<Vec<_>>(),
    })
}

/// The queue as text: each combination, then each person's label and note.
fn table(queue: &[Dispute]) -> String {
    let show = |s: &str, n: usize| crate::sanitize::one_line(s, n);
    let mut out = say::queue_head(queue.len());
    for d in queue {
        out.push_str(&format!(
            "\n  {} · {} · {} · {} ({})",
            show(&d.key.item_id, 60),
            show(&d.key.classification_id, 60),
            show(&d.key.perspective_id, 40),
            show(&d.persona_id, 40),
            d.scale.as_str()
        ));
        for l in &d.labels {
            out.push_str(&format!("\n      {:<12} {:<9}", show(&l.who, 12), l.value));
            if !l.note.is_empty() {
                out.push_str(&format!(" {}", show(&l.note, 100)));
            }
        }
    }
    out
}
