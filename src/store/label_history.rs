//! Label history: `labels` holds each person's current answer per
//! combination, persona and scale; `label_events` keeps every change to it,
//! append-only. Undo is one more event (the earlier answer restored, or the
//! label retracted), so the history itself never loses a row.

use super::db::params;
use super::{Result, Store, StoreError};
use crate::domain::{ComboKey, Label, Scale, Value};

/// Why a label changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// Given by a person (workbench or `jury label`).
    Set,
    /// Its note edited.
    Note,
    /// Brought in by `jury import`.
    Import,
    /// An undo: the earlier answer back, or the label retracted.
    Undo,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::Set => "set",
            EventKind::Note => "note",
            EventKind::Import => "import",
            EventKind::Undo => "undo",
        }
    }

    pub fn parse(s: &str) -> Option<EventKind> {
        [
            EventKind::Set,
            EventKind::Note,
            EventKind::Import,
            EventKind::Undo,
        ]
        .into_iter()
        .find(|k| k.as_str() == s)
    }
}

impl PartialEq<&str> for EventKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

// The column holds the kind's name, as the store always wrote it.
impl rusqlite::types::FromSql for EventKind {
    fn column_result(v: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        let s = v.as_str()?;
        EventKind::parse(s).ok_or_else(|| {
            rusqlite::types::FromSqlError::Other(format!("unknown label event kind '{s}'").into())
        })
    }
}

/// Where a label lives: one per combination, persona, person and scale.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Slot {
    pub key: ComboKey,
    pub persona_id: String,
    pub who: String,
    pub scale: Scale,
}

impl Slot {
    pub fn of(l: &Label) -> Slot {
        Slot {
            key: l.key.clone(),
            persona_id: l.persona_id.clone(),
            who: l.who.clone(),
            scale: l.value.scale(),
        }
    }
}

/// One change in a label's history.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelEvent {
    pub slot: Slot,
    /// `None`: the label was retracted.
    pub value: Option<Value>,
    pub note: String,
    pub replaced_judge_value: Option<Value>,
    pub created_at: String,
    pub blind: bool,
    /// The label's tags after the change.
    pub tags: Vec<String>,
    pub kind: EventKind,
}

/// Undoes one change: `restore` is the label as it was before (written back
/// as the current answer), or `None` when there was none (the label is
/// retracted: it leaves `labels`, its history stays).
#[derive(Debug, Clone, PartialEq)]
pub struct LabelUndo {
    pub slot: Slot,
    pub restore: Option<Label>,
    /// The label the change being undone left. The undo happens only while
    /// it is still the current one (same value, same time): a label given
    /// since, from another process or `jury label`, is never reverted.
    pub undoes: Box<Label>,
    /// When the undo happened.
    pub at: String,
}

const WHERE_SLOT: &str = "item_id=?1 AND classification_id=?2 AND perspective_id=?3 AND persona_id=?4 AND who=?5 AND scale=?6";

/// Appends the slot's current row to its history.
pub(super) fn record_tx(tx: &super::db::Tx<'_>, s: &Slot, kind: EventKind) -> Result<()> {
    tx.execute(
        &format!(
            "INSERT INTO label_events (item_id, classification_id, perspective_id, persona_id, who, scale, value, note, replaced_judge_value, created_at, blind, tags, kind)
             SELECT item_id, classification_id, perspective_id, persona_id, who, scale, value, note, replaced_judge_value, created_at, blind, tags, ?7
             FROM labels WHERE {WHERE_SLOT}"
        ),
        params![
            s.key.item_id,
            s.key.classification_id,
            s.key.perspective_id,
            s.persona_id,
            s.who,
            s.scale.as_str(),
            kind.as_str()
        ],
    )?;
    Ok(())
}

impl Store {
    /// Undoes a label change durably (as [`Store::upsert_label`] saves one).
    pub fn undo_label(&mut self, u: &LabelUndo) -> Result<()> {
        self.durably(|store| {
            let tx = store.immediate()?;
            let current = current_tx(&tx, &u.slot)?;
            let still = current
                .as_ref()
                .is_some_and(|c| c.value == u.undoes.value && c.created_at == u.undoes.created_at);
            if !still {
                return Err(StoreError::LabelChanged {
                    current: current.map(Box::new),
                });
            }
            match &u.restore {
                Some(l) => {
                    let back = Label {
                        created_at: u.at.clone(),
                        ..l.clone()
                    };
                    super::labels::upsert_label_tx(&tx, &back, EventKind::Undo)?;
                }
                None => retract_tx(&tx, &u.slot, &u.at)?,
            }
            tx.commit()?;
            Ok(())
        })
    }

    /// Every change to the labels of one combination (every persona, person
    /// and scale), newest first.
    pub fn label_history(&self, key: &ComboKey) -> Result<Vec<LabelEvent>> {
        let mut stmt = self.conn.prepare(
            "SELECT persona_id, who, scale, value, note, replaced_judge_value, created_at, blind, kind, tags
             FROM label_events WHERE item_id=?1 AND classification_id=?2 AND perspective_id=?3
             ORDER BY id DESC",
        )?;
        let mut rows = stmt.query(params![
            key.item_id,
            key.classification_id,
            key.perspective_id
        ])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let scale_name: String = r.get(2)?;
            let scale = Scale::parse_name(&scale_name).ok_or_else(|| {
                StoreError::Data(format!("unknown scale '{scale_name}' in a label event"))
            })?;
            let value: Option<String> = r.get(3)?;
            let replaced: Option<String> = r.get(5)?;
            out.push(LabelEvent {
                slot: Slot {
                    key: key.clone(),
                    persona_id: r.get(0)?,
                    who: r.get(1)?,
                    scale,
                },
                value: value.and_then(|t| scale.parse(&t).ok()),
                note: r.get(4)?,
                replaced_judge_value: replaced.and_then(|t| scale.parse(&t).ok()),
                created_at: r.get(6)?,
                blind: r.get(7)?,
                kind: r.get(8)?,
                tags: crate::domain::split_tags(&r.get::<_, String>(9)?),
            });
        }
        Ok(out)
    }
}

/// The slot's current label, if it has one.
pub(super) fn current_tx(tx: &super::db::Tx<'_>, s: &Slot) -> Result<Option<Label>> {
    use super::db::OptionalExtension;
    let row = tx
        .query_row(
            &format!(
                "SELECT value, note, replaced_judge_value, created_at, blind, tags FROM labels WHERE {WHERE_SLOT}"
            ),
            params![
                s.key.item_id,
                s.key.classification_id,
                s.key.perspective_id,
                s.persona_id,
                s.who,
                s.scale.as_str()
            ],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, Option<String>>(2)?,
                    r.get::<_, String>(3)?,
                    r.get::<_, bool>(4)?,
                    r.get::<_, String>(5)?,
                ))
            },
        )
        .optional()?;
    let Some((value, note, replaced, created_at, blind, tags)) = row else {
        return Ok(None);
    };
    let value = s
        .scale
        .parse(&value)
        .map_err(|e| StoreError::Data(format!("a stored label's value '{value}': {e}")))?;
    Ok(Some(Label {
        key: s.key.clone(),
        persona_id: s.persona_id.clone(),
        value,
        note,
        who: s.who.clone(),
        created_at,
        replaced_judge_value: replaced.and_then(|t| s.scale.parse(&t).ok()),
        blind,
        tags: crate::domain::split_tags(&tags),
    }))
}

/// The label leaves the current answers; its history gains the retraction.
fn retract_tx(tx: &super::db::Tx<'_>, s: &Slot, at: &str) -> Result<()> {
    let p = params![
        s.key.item_id,
        s.key.classification_id,
        s.key.perspective_id,
        s.persona_id,
        s.who,
        s.scale.as_str()
    ];
    tx.execute(&format!("DELETE FROM labels WHERE {WHERE_SLOT}"), p)?;
    tx.execute(
        "INSERT INTO label_events (item_id, classification_id, perspective_id, persona_id, who, scale, value, note, replaced_judge_value, created_at, blind, kind)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, NULL, '', NULL, ?7, 0, ?8)",
        params![
            s.key.item_id,
            s.key.classification_id,
            s.key.perspective_id,
            s.persona_id,
            s.who,
            s.scale.as_str(),
            at,
            EventKind::Undo.as_str()
        ],
    )?;
    Ok(())
}
