//! The compare view's columns (docs/design.md §6): modes 1/2/3, or the personas, or
//! the models that judged the current item, each with its verdicts; and the
//! human label read on each column's scale.

use super::{App, CompareAxis, LabelEntry};
use crate::domain::{ComboKey, Mode, Scale, Value, Verdict};

/// One column: whose verdicts in which mode (and from which model).
#[derive(Debug, Clone, PartialEq)]
pub struct CompareColumn {
    pub title: String,
    pub persona: String,
    pub mode: Mode,
    /// `None`: any model (the latest verdict).
    pub model: Option<String>,
}

/// A human label as a column shows it: on the column's scale, `mapped` when
/// it was read across scales as AGREE/DISAGREE (the report's `(mapped)` rule);
/// `None` value: a Likert 3 read as AGREE/DISAGREE is undecided.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HumanReading {
    pub value: Option<Value>,
    pub mapped: bool,
}

impl App {
    /// The columns of the compare view for the current item.
    pub fn compare_columns(&self) -> Vec<CompareColumn> {
        let persona = self.persona_id().to_string();
        let mode = self.choices.mode;
        let verdicts: &[Verdict] = self
            .current_item()
            .and_then(|it| self.data.verdicts.get(&it.id))
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let awag = |v: &&Verdict| v.protocol == crate::domain::Protocol::Awag;
        match self.choices.compare_axis {
            CompareAxis::Mode => Mode::ALL
                .into_iter()
                .map(|m| CompareColumn {
                    title: format!("mode {m}"),
                    persona: persona.clone(),
                    mode: m,
                    model: None,
                })
                .collect(),
            // The chosen persona, then every persona with verdicts here, in
            // the workspace's order.
            CompareAxis::Persona => self
                .data
                .personas
                .iter()
                .filter(|p| {
                    p.id == persona
                        || verdicts
                            .iter()
                            .filter(awag)
                            .any(|v| v.persona_id == p.id && v.mode == Some(mode))
                })
                .map(|p| CompareColumn {
                    title: p.id.clone(),
                    persona: p.id.clone(),
                    mode,
                    model: None,
                })
                .collect(),
            CompareAxis::Model => {
                let mut models: Vec<&str> = verdicts
                    .iter()
                    .filter(awag)
                    .filter(|v| v.persona_id == persona && v.mode == Some(mode))
                    .map(|v| v.model.as_str())
                    .collect();
                models.sort_unstable();
                models.dedup();
                models
                    .into_iter()
                    .map(|m| CompareColumn {
                        title: m.to_string(),
                        persona: persona.clone(),
                        mode,
                        model: Some(m.to_string()),
                    })
                    .collect()
            }
        }
    }

    /// The latest verdict a column holds for a combination.
    pub fn column_verdict(&self, key: &ComboKey, c: &CompareColumn) -> Option<&Verdict> {
        match &c.model {
            None => self.verdict(key, &c.persona, c.mode),
            Some(model) => self
                .data
                .verdicts
                .get(&key.item_id)?
                .iter()
                .filter(|v| {
                    v.key == *key
                        && v.persona_id == c.persona
                        && v.mode == Some(c.mode)
                        && v.model == *model
                })
                .max_by(|a, b| (&a.created_at, a.run_id).cmp(&(&b.created_at, b.run_id))),
        }
    }

    /// This person's label for a column (labels belong to a persona), the
    /// one on the column's scale when there is one.
    pub fn column_label(&self, key: &ComboKey, c: &CompareColumn) -> Option<&LabelEntry> {
        self.data.my_label(key, &c.persona, c.mode.scale())
    }
}

/// A label read on a column's scale: as it is on the same scale, else both
/// read as AGREE/DISAGREE (Likert ≥4 AGREE, ≤2 DISAGREE, 3 undecided).
pub fn human_on_scale(label: Value, scale: Scale) -> HumanReading {
    if label.scale() == scale {
        return HumanReading {
            value: Some(label),
            mapped: false,
        };
    }
    HumanReading {
        value: label.as_agreement().map(Value::Agreement),
        mapped: true,
    }
}
