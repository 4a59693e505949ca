//! Adjudications: the reference label of a combination people disagree on.
//! One append-only table: a slot's (combination, persona, scale) standing
//! adjudication is its newest row, and an undo is one more row (the earlier
//! adjudication restored, or `value` NULL: retracted), so history keeps
//! every change. Plain SQL that SQLite and PostgreSQL both accept.

use super::db::params;
use super::{Result, Store, StoreError};
use crate::domain::{Adjudication, AdjudicationIndex, AdjudicationSlot, ComboKey, Dispute, Scale};

/// Why an adjudication changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdjudicationKind {
    /// Given by an adjudicator (workbench or `jury adjudicate`).
    Set,
    /// An undo: the earlier adjudication back, or none.
    Undo,
}

impl AdjudicationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            AdjudicationKind::Set => "set",
            AdjudicationKind::Undo => "undo",
        }
    }
}

/// One row of a slot's history. `value` `None`: the adjudication was retracted.
#[derive(Debug, Clone, PartialEq)]
pub struct AdjudicationEvent {
    pub key: ComboKey,
    pub persona_id: String,
    pub scale: Scale,
    pub value: Option<crate::domain::Value>,
    pub note: String,
    pub who: String,
    pub created_at: String,
    pub kind: String,
}

/// The newest row of each slot (SQL both engines accept: no window
/// function, no `INSERT OR`).
const STANDING: &str = "SELECT a.item_id, a.classification_id, a.perspective_id, a.persona_id, a.scale, a.value, a.note, a.who, a.created_at
     FROM adjudications a
     WHERE a.id = (SELECT MAX(b.id) FROM adjudications b
                   WHERE b.item_id = a.item_id AND b.classification_id = a.classification_id
                     AND b.perspective_id = a.perspective_id AND b.persona_id = a.persona_id
                     AND b.scale = a.scale)
       AND a.value IS NOT NULL";

fn insert_tx(
    tx: &super::db::Tx<'_>,
    slot: &AdjudicationSlot,
    value: Option<crate::domain::Value>,
    note: &str,
    who: &str,
    at: &str,
    kind: AdjudicationKind,
) -> Result<()> {
    let (key, persona, scale) = slot;
    tx.execute(
        "INSERT INTO adjudications (item_id, classification_id, perspective_id, persona_id, scale, value, note, who, created_at, kind)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            key.item_id,
            key.classification_id,
            key.perspective_id,
            persona,
            scale.as_str(),
            value.map(|v| v.as_text()),
            note,
            who,
            at,
            kind.as_str()
        ],
    )?;
    Ok(())
}

fn scale_of(name: &str) -> Result<Scale> {
    Scale::parse_name(name)
        .ok_or_else(|| StoreError::Data(format!("unknown scale '{name}' in an adjudication")))
}

impl Store {
    /// Saves an adjudication durably (as a label is saved): the slot's
    /// reference label from now on, replacing any earlier one (which stays
    /// in the history).
    pub fn adjudicate(&mut self, a: &Adjudication) -> Result<()> {
        self.durably(|store| {
            let tx = store.immediate()?;
            insert_tx(
                &tx,
                &a.slot(),
                Some(a.value),
                &a.note,
                &a.who,
                &a.created_at,
                AdjudicationKind::Set,
            )?;
            tx.commit()?;
            Ok(())
        })
    }

    /// Undoes an adjudication: `restore` (the one before, stamped `at`) or,
    /// with none, a retraction. Refused when the slot's standing
    /// adjudication is no longer `undoes` (someone adjudicated since).
    pub fn undo_adjudication(
        &mut self,
        undoes: &Adjudication,
        restore: Option<&Adjudication>,
        at: &str,
    ) -> Result<()> {
        self.durably(|store| {
            let slot = undoes.slot();
            let current = store.standing_adjudication(&slot)?;
            let still = current
                .as_ref()
                .is_some_and(|c| c.value == undoes.value && c.created_at == undoes.created_at);
            if !still {
                return Err(StoreError::Data(format!(
                    "the adjudication of {} · {} changed since (now {}): not undone",
                    slot.0.item_id,
                    slot.0.classification_id,
                    current.map_or("none".to_string(), |c| c.value.as_text())
                )));
            }
            let tx = store.immediate()?;
            match restore {
                Some(r) => insert_tx(
                    &tx,
                    &slot,
                    Some(r.value),
                    &r.note,
                    &r.who,
                    at,
                    AdjudicationKind::Undo,
                )?,
                None => insert_tx(
                    &tx,
                    &slot,
                    None,
                    "",
                    &undoes.who,
                    at,
                    AdjudicationKind::Undo,
                )?,
            }
            tx.commit()?;
            Ok(())
        })
    }

    /// The slot's standing adjudication, if any.
    pub fn standing_adjudication(&self, slot: &AdjudicationSlot) -> Result<Option<Adjudication>> {
        let (key, persona, scale) = slot;
        let mut out = None;
        self.query_adjudications(
            "AND a.item_id = ?1 AND a.classification_id = ?2 AND a.perspective_id = ?3 AND a.persona_id = ?4 AND a.scale = ?5",
            params![
                key.item_id,
                key.classification_id,
                key.perspective_id,
                persona,
                scale.as_str()
            ],
            |a| out = Some(a),
        )?;
        Ok(out)
    }

    /// Every standing adjudication, by combination.
    pub fn adjudications(&self) -> Result<Vec<Adjudication>> {
        let mut out = Vec::new();
        self.query_adjudications("", [], |a| out.push(a))?;
        out.sort_by(|a, b| (&a.key, &a.persona_id).cmp(&(&b.key, &b.persona_id)));
        Ok(out)
    }

    /// The standing adjudications of one item.
    pub fn adjudications_for_item(&self, item_id: &str) -> Result<Vec<Adjudication>> {
        let mut out = Vec::new();
        self.query_adjudications("AND a.item_id = ?1", params![item_id], |a| out.push(a))?;
        Ok(out)
    }

    /// The standing adjudications by slot: what the readings look up.
    pub fn adjudication_index(&self) -> Result<AdjudicationIndex> {
        let mut out = AdjudicationIndex::default();
        self.query_adjudications("", [], |a| {
            out.insert(a.slot(), a.value);
        })?;
        Ok(out)
    }

    /// The adjudication queue: combinations two or more people labelled
    /// and disagree on, with no adjudication yet; on an assigned item, two
    /// or more of the people assigned (see [`crate::domain::disputes`]).
    pub fn adjudication_queue(&self) -> Result<Vec<Dispute>> {
        let done: std::collections::HashSet<AdjudicationSlot> =
            self.adjudication_index()?.into_keys().collect();
        let mut labels = Vec::new();
        self.for_each_label(|l| labels.push(l))?;
        Ok(crate::domain::disputes(
            labels,
            &done,
            &self.assigned_people()?,
        ))
    }

    /// Every change to the adjudications of one combination, newest first.
    pub fn adjudication_history(&self, key: &ComboKey) -> Result<Vec<AdjudicationEvent>> {
        let mut stmt = self.conn.prepare(
            "SELECT persona_id, scale, value, note, who, created_at, kind FROM adjudications
             WHERE item_id = ?1 AND classification_id = ?2 AND perspective_id = ?3
             ORDER BY id DESC",
        )?;
        let mut rows = stmt.query(params![
            key.item_id,
            key.classification_id,
            key.perspective_id
        ])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let scale = scale_of(&r.get::<_, String>(1)?)?;
            let value: Option<String> = r.get(2)?;
            out.push(AdjudicationEvent {
                key: key.clone(),
                persona_id: r.get(0)?,
                scale,
                value: value.and_then(|t| scale.parse(&t).ok()),
                note: r.get(3)?,
                who: r.get(4)?,
                created_at: r.get(5)?,
                kind: r.get(6)?,
            });
        }
        Ok(out)
    }

    fn query_adjudications(
        &self,
        and: &str,
        p: impl super::db::Params,
        mut f: impl FnMut(Adjudication),
    ) -> Result<()> {
        let mut stmt = self.conn.prepare(&format!("{STANDING} {and}"))?;
        let mut rows = stmt.query(p)?;
        while let Some(r) = rows.next()? {
            let scale = scale_of(&r.get::<_, String>(4)?)?;
            let value: String = r.get(5)?;
            f(Adjudication {
                key: ComboKey::new(
                    &r.get::<_, String>(0)?,
                    &r.get::<_, String>(1)?,
                    &r.get::<_, String>(2)?,
                ),
                persona_id: r.get(3)?,
                value: scale
                    .parse(&value)
                    .map_err(|e| StoreError::Data(format!("adjudication value: {e}")))?,
                note: r.get(6)?,
                who: r.get(7)?,
                created_at: r.get(8)?,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Label, Value};

    fn label(s: &mut Store, item: &str, who: &str, v: u8) {
        s.upsert_label(&Label {
            key: ComboKey::new(item, "urgency", "classification"),
            persona_id: "p".into(),
            value: Value::Likert(v),
            note: format!("{who} says {v}"),
            who: who.into(),
            created_at: crate::store::now(),
            replaced_judge_value: None,
            blind: false,
            tags: Vec::new(),
        })
        .unwrap();
    }

    fn adj(item: &str, v: u8, who: &str, at: &str) -> Adjudication {
        Adjudication {
            key: ComboKey::new(item, "urgency", "classification"),
            persona_id: "p".into(),
            value: Value::Likert(v),
            note: "settled".into(),
            who: who.into(),
            created_at: at.into(),
        }
    }

    #[test]
    fn an_adjudication_leaves_the_queue_and_stands_with_who_and_when() {
        crate::store::testing::each_backend(|s| {
            label(s, "a", "ann", 5);
            label(s, "a", "bob", 1);
            label(s, "b", "ann", 4);
            label(s, "b", "bob", 5);
            let q = s.adjudication_queue().unwrap();
            assert_eq!(q.len(), 1);
            assert_eq!(q[0].key.item_id, "a");
            assert_eq!(q[0].labels.len(), 2);
            s.adjudicate(&adj("a", 2, "cat", "2026-01-01T00:00:00.000Z"))
                .unwrap();
            assert!(s.adjudication_queue().unwrap().is_empty());
            let all = s.adjudications().unwrap();
            assert_eq!(all.len(), 1);
            assert_eq!(all[0].who, "cat");
            assert_eq!(all[0].value, Value::Likert(2));
            assert_eq!(all[0].note, "settled");
            assert_eq!(all[0].created_at, "2026-01-01T00:00:00.000Z");
            // Labels are untouched: an adjudication is its own kind.
            assert_eq!(s.labels_for_item("a").unwrap().len(), 2);
        });
    }

    #[test]
    fn a_second_adjudication_replaces_the_first_and_history_keeps_both() {
        crate::store::testing::each_backend(|s| {
            let first = adj("a", 2, "cat", "2026-01-01T00:00:00.000Z");
            let second = adj("a", 4, "dan", "2026-01-02T00:00:00.000Z");
            s.adjudicate(&first).unwrap();
            s.adjudicate(&second).unwrap();
            let standing = s.adjudications().unwrap();
            assert_eq!(standing, vec![second.clone()]);
            let h = s.adjudication_history(&first.key).unwrap();
            assert_eq!(h.len(), 2);
            assert_eq!(h[0].value, Some(Value::Likert(4)));
            assert_eq!(h[1].who, "cat");
            // Undo brings the first back, as one more row.
            s.undo_adjudication(&second, Some(&first), "2026-01-03T00:00:00.000Z")
                .unwrap();
            let back = s.standing_adjudication(&first.slot()).unwrap().unwrap();
            assert_eq!(back.value, Value::Likert(2));
            assert_eq!(back.created_at, "2026-01-03T00:00:00.000Z");
            // An undo of what no longer stands is refused.
            assert!(
                s.undo_adjudication(&second, None, "2026-01-04T00:00:00.000Z")
                    .is_err()
            );
            s.undo_adjudication(&back, None, "2026-01-04T00:00:00.000Z")
                .unwrap();
            assert!(s.adjudications().unwrap().is_empty());
            let h = s.adjudication_history(&first.key).unwrap();
            assert_eq!(h.len(), 4);
            assert_eq!(h[0].value, None);
            assert_eq!(h[0].kind, "undo");
        });
    }

    #[test]
    fn a_retracted_adjudication_puts_the_dispute_back_in_the_queue() {
        crate::store::testing::each_backend(|s| {
            label(s, "a", "ann", 5);
            label(s, "a", "bob", 1);
            let a = adj("a", 2, "cat", "2026-01-01T00:00:00.000Z");
            s.adjudicate(&a).unwrap();
            assert!(s.adjudication_queue().unwrap().is_empty());
            s.undo_adjudication(&a, None, "2026-01-02T00:00:00.000Z")
                .unwrap();
            assert_eq!(s.adjudication_queue().unwrap().len(), 1);
        });
    }
}
