//! Human labels: written with `synchronous=FULL`, because a person's judgement
//! is the one thing we cannot recompute.

use super::db::{OptionalExtension, params};
use super::label_history::EventKind;
use super::{Result, Store, StoreError};
use crate::domain::{ComboKey, Label, Scale};
use std::collections::HashSet;

/// A stored label with its row id.
pub type LabelRow = Label;

/// The statement that stores a label (public for the test that sends it
/// as another person would, by hand, on a team's PostgreSQL store).
#[doc(hidden)]
pub const UPSERT_LABEL: &str = "INSERT INTO labels (item_id, classification_id, perspective_id, persona_id, who, scale, value, note, replaced_judge_value, created_at, blind, tags)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
         ON CONFLICT(item_id, classification_id, perspective_id, persona_id, who, scale)
         DO UPDATE SET value=excluded.value, note=excluded.note,
           replaced_judge_value=coalesce(excluded.replaced_judge_value, labels.replaced_judge_value),
           created_at=excluded.created_at, blind=excluded.blind, tags=excluded.tags";

/// Writes the label as the current answer and appends the row as it now
/// stands to its history (`kind`: why it changed).
pub(super) fn upsert_label_tx(
    tx: &super::db::Tx<'_>,
    l: &Label,
    kind: super::label_history::EventKind,
) -> Result<()> {
    tx.execute(
        UPSERT_LABEL,
        params![
            l.key.item_id,
            l.key.classification_id,
            l.key.perspective_id,
            l.persona_id,
            l.who,
            l.value.scale().as_str(),
            l.value.as_text(),
            l.note,
            l.replaced_judge_value.map(|v| v.as_text()),
            l.created_at,
            l.blind,
            crate::domain::join_tags(&l.tags)
        ],
    )?;
    // A label given by the person settles their "come back later" mark.
    if kind == EventKind::Set {
        super::marks::settle_tx(tx, l)?;
    }
    super::label_history::record_tx(tx, &super::label_history::Slot::of(l), kind)
}

/// Two labels on one slot that say the same, given at the same instant.
fn same_label(a: &Label, b: &Label) -> bool {
    a.value == b.value
        && a.note == b.note
        && a.created_at == b.created_at
        && a.replaced_judge_value == b.replaced_judge_value
        && a.blind == b.blind
        && crate::domain::join_tags(&a.tags) == crate::domain::join_tags(&b.tags)
}

/// How an imported label met the stored one for its combination.
pub(super) enum Merge {
    New,
    Newer,
    Unchanged,
    Older,
}

/// An instant from a stored or imported timestamp (RFC 3339).
fn instant(t: &str) -> Option<chrono::DateTime<chrono::FixedOffset>> {
    chrono::DateTime::parse_from_rfc3339(t.trim()).ok()
}

/// Imports one label without losing a newer one: the label with the later
/// `createdAt` wins, and its own timestamp is kept (not the import's). A label
/// without a timestamp (`created_at` empty) never replaces a stored one; when
/// it is new it is stamped now.
pub(super) fn merge_label_tx(tx: &super::db::Tx<'_>, l: &Label) -> Result<Merge> {
    let stored: Option<(String, String, String, String)> = tx
        .query_row(
            "SELECT value, note, created_at, tags FROM labels
             WHERE item_id=?1 AND classification_id=?2 AND perspective_id=?3 AND persona_id=?4 AND who=?5 AND scale=?6",
            params![
                l.key.item_id,
                l.key.classification_id,
                l.key.perspective_id,
                l.persona_id,
                l.who,
                l.value.scale().as_str()
            ],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    let Some((value, note, created_at, tags)) = stored else {
        if l.created_at.is_empty() {
            let stamped = Label {
                created_at: super::now(),
                ..l.clone()
            };
            upsert_label_tx(tx, &stamped, EventKind::Import)?;
        } else {
            upsert_label_tx(tx, l, EventKind::Import)?;
        }
        return Ok(Merge::New);
    };
    if value == l.value.as_text() && note == l.note && tags == crate::domain::join_tags(&l.tags) {
        return Ok(Merge::Unchanged);
    }
    let newer = match (instant(&l.created_at), instant(&created_at)) {
        (Some(file), Some(store)) => file > store,
        // A stored timestamp that does not parse loses to a file's that does.
        (Some(_), None) => true,
        (None, _) => false,
    };
    if !newer {
        return Ok(Merge::Older);
    }
    upsert_label_tx(tx, l, EventKind::Import)?;
    Ok(Merge::Newer)
}

impl Store {
    /// Saves a label durably; when this returns Ok the label survives a crash
    /// or power loss. The same person labelling the same combination on the
    /// same scale again replaces their earlier answer.
    pub fn upsert_label(&mut self, l: &Label) -> Result<()> {
        self.durably(|store| {
            let tx = store.immediate()?;
            // The very label the store holds (a replay of a write that was
            // committed but never answered: the connection lost at the
            // commit, a workbench killed before it cleared its recovery
            // file) adds nothing, not even a history event: stored once.
            let slot = super::label_history::Slot::of(l);
            if super::label_history::current_tx(&tx, &slot)?.is_some_and(|c| same_label(&c, l)) {
                return Ok(());
            }
            upsert_label_tx(&tx, l, EventKind::Set)?;
            tx.commit()?;
            Ok(())
        })
    }

    /// Updates only the note of an existing label.
    pub fn set_label_note(
        &mut self,
        key: &ComboKey,
        persona: &str,
        who: &str,
        scale: Scale,
        note: &str,
    ) -> Result<bool> {
        // As durable as a label (a person's words).
        self.durably(|store| store.set_label_note_tx(key, persona, who, scale, note))
    }

    fn set_label_note_tx(
        &mut self,
        key: &ComboKey,
        persona: &str,
        who: &str,
        scale: Scale,
        note: &str,
    ) -> Result<bool> {
        let tx = self.immediate()?;
        let n = tx.execute(
            "UPDATE labels SET note = ?1 WHERE item_id=?2 AND classification_id=?3 AND perspective_id=?4 AND persona_id=?5 AND who=?6 AND scale=?7",
            params![note, key.item_id, key.classification_id, key.perspective_id, persona, who, scale.as_str()],
        )?;
        if n > 0 {
            let slot = super::label_history::Slot {
                key: key.clone(),
                persona_id: persona.to_string(),
                who: who.to_string(),
                scale,
            };
            super::label_history::record_tx(&tx, &slot, EventKind::Note)?;
        }
        tx.commit()?;
        Ok(n > 0)
    }

    pub fn labels_for_item(&self, item_id: &str) -> Result<Vec<Label>> {
        let mut out = Vec::new();
        self.query_labels("WHERE item_id = ?1 ORDER BY id", params![item_id], |l| {
            out.push(l)
        })?;
        Ok(out)
    }

    /// Streams every label to `f`.
    pub fn for_each_label(&self, f: impl FnMut(Label)) -> Result<()> {
        self.query_labels("ORDER BY id", [], f)
    }

    /// The labels that carry a tag: the report counts them without reading
    /// every label again.
    pub fn for_each_tagged_label(&self, f: impl FnMut(Label)) -> Result<()> {
        self.query_labels("WHERE tags != '' ORDER BY id", [], f)
    }

    pub fn labelled_item_ids(&self) -> Result<HashSet<String>> {
        let mut stmt = self.conn.prepare("SELECT DISTINCT item_id FROM labels")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect::<super::Result<HashSet<_>>>()
    }

    fn query_labels(
        &self,
        tail: &str,
        p: impl super::db::Params,
        mut f: impl FnMut(Label),
    ) -> Result<()> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT item_id, classification_id, perspective_id, persona_id, who, scale, value, note, replaced_judge_value, created_at, blind, tags
             FROM labels {tail}"
        ))?;
        let mut rows = stmt.query(p)?;
        while let Some(r) = rows.next()? {
            let scale: String = r.get(5)?;
            let scale = Scale::parse_name(&scale)
                .ok_or_else(|| StoreError::Data(format!("unknown scale '{scale}' in a label")))?;
            let value: String = r.get(6)?;
            let replaced: Option<String> = r.get(8)?;
            f(Label {
                key: ComboKey::new(
                    &r.get::<_, String>(0)?,
                    &r.get::<_, String>(1)?,
                    &r.get::<_, String>(2)?,
                ),
                persona_id: r.get(3)?,
                who: r.get(4)?,
                value: scale
                    .parse(&value)
                    .map_err(|e| StoreError::Data(format!("label value: {e}")))?,
                note: r.get(7)?,
                replaced_judge_value: replaced.and_then(|t| scale.parse(&t).ok()),
                created_at: r.get(9)?,
                blind: r.get(10)?,
                tags: crate::domain::split_tags(&r.get::<_, String>(11)?),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod blind_tests {
    use super::*;
    use crate::domain::Value;

    #[test]
    fn the_blind_flag_and_the_replaced_value_round_trip() {
        crate::store::testing::each_backend(|s| {
            let mut l = Label {
                key: ComboKey::new("k-1", "urgency", "classification"),
                persona_id: "p".into(),
                value: Value::Likert(2),
                note: String::new(),
                who: "ann".into(),
                created_at: crate::store::now(),
                replaced_judge_value: None,
                blind: true,
                tags: Vec::new(),
            };
            s.upsert_label(&l).unwrap();
            let got = s.labels_for_item("k-1").unwrap();
            assert_eq!(got, vec![l.clone()]);
            // Relabelled with the judge in view: no longer blind, and the
            // replaced judge value is kept from now on.
            l.value = Value::Likert(3);
            l.blind = false;
            l.replaced_judge_value = Some(Value::Likert(5));
            s.upsert_label(&l).unwrap();
            let got = s.labels_for_item("k-1").unwrap();
            assert_eq!(got.len(), 1);
            assert!(!got[0].blind);
            assert_eq!(got[0].replaced_judge_value, Some(Value::Likert(5)));
        });
    }
}
