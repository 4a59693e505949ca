//! `jury export --format wide|wide-jsonl`: one row per item, classification,
//! perspective and persona, with the classifier's value, each judge
//! configuration's standing verdict (and its confidence when known) and each
//! person's label and note in columns of their own — the shape a spreadsheet or
//! pandas wants. The standing verdicts and labels are the ones the report
//! reads ([`crate::report::pairs`]), so the two never disagree.

use super::ExportError;
use crate::domain::Value;
use crate::report::pairs::Builder;
use crate::store::Store;
use serde_json::{Map, Value as Json};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Write;

/// The columns every row starts with.
pub const KEY_COLUMNS: [&str; 5] = [
    "item_id",
    "classification_id",
    "perspective_id",
    "persona_id",
    "classifier",
];

type RowKey = (String, String, String, String);

#[derive(Default)]
struct Row {
    /// Per judge column: the value and its confidence.
    judges: HashMap<usize, (Value, Option<f64>)>,
    /// Per label column: the person's value.
    labels: HashMap<usize, Value>,
    /// Per marking person: their "come back later" mark (never a label).
    marks: HashMap<usize, crate::domain::MarkKind>,
    /// Per label column: the note on that label, when it has one.
    notes: HashMap<usize, String>,
}

/// Writes the wide table: CSV with a header (`csv`), else one JSON object
/// per line with the same keys (null where a judge or person said nothing).
pub fn write_wide(store: &Store, csv: bool, out: &mut dyn Write) -> Result<(), ExportError> {
    let readings = Builder::read(store)?.finish_readings_with_confidence();
    let judges: Vec<&str> = readings
        .verdicts
        .iter()
        .map(|(judge, ..)| &**judge)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    // A person's labels on two scales (a Likert and an AGREE) get a column each.
    let people: BTreeSet<(&str, &str)> = readings
        .labels
        .iter()
        .map(|(_, _, who, v)| (&**who, v.scale().as_str()))
        .collect();
    let people: Vec<(&str, &str)> = people.into_iter().collect();
    let one_scale = |who: &str| people.iter().filter(|(w, _)| *w == who).count() == 1;
    let judge_at: HashMap<&str, usize> = judges.iter().enumerate().map(|(i, j)| (*j, i)).collect();
    let person_at: HashMap<(&str, &str), usize> =
        people.iter().enumerate().map(|(i, p)| (*p, i)).collect();

    let key_of = |persona: &str, k: &crate::domain::ComboKey| -> RowKey {
        (
            k.item_id.clone(),
            k.classification_id.clone(),
            k.perspective_id.clone(),
            persona.to_string(),
        )
    };
    let mut rows: BTreeMap<RowKey, Row> = BTreeMap::new();
    for (i, (judge, persona, key, value)) in readings.verdicts.iter().enumerate() {
        let confidence = readings
            .confidences
            .get(i)
            .and_then(Option::as_ref)
            .filter(|c| c.value == *value)
            .map(|c| c.confidence.value);
        rows.entry(key_of(persona, key))
            .or_default()
            .judges
            .insert(judge_at[&**judge], (*value, confidence));
    }
    for (persona, key, who, value) in &readings.labels {
        rows.entry(key_of(persona, key))
            .or_default()
            .labels
            .insert(person_at[&(&**who, value.scale().as_str())], *value);
    }
    // A label's tags, by the label's place (one label per place).
    let mut tags: HashMap<(RowKey, String, &'static str), Vec<String>> = HashMap::new();
    store.for_each_label(|l| {
        if !l.tags.is_empty() {
            let at = (
                key_of(&l.persona_id, &l.key),
                l.who.clone(),
                l.value.scale().as_str(),
            );
            tags.insert(at, l.tags);
        }
    })?;
    // Marks get a column per person who marked, and a row of their own when
    // nothing else is known of the combination.
    let marks = store.current_marks()?;
    let markers: Vec<String> = marks
        .iter()
        .map(|m| m.who.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    for m in &marks {
        let at = markers.iter().position(|w| *w == m.who).unwrap_or(0);
        rows.entry(key_of(&m.persona_id, &m.key))
            .or_default()
            .marks
            .insert(at, m.mark);
    }
    // Each standing label's note: the labels table holds one label per
    // combination, persona, person and scale, as the label columns do.
    store.for_each_label(|l| {
        let Some(&p) = person_at.get(&(l.who.as_str(), l.value.scale().as_str())) else {
            return;
        };
        if let Some(row) = rows.get_mut(&key_of(&l.persona_id, &l.key))
            && row.labels.contains_key(&p)
            && !l.note.is_empty()
        {
            row.notes.insert(p, l.note);
        }
    })?;
    // The classifier's choice per (item, classification).
    let mut classifier: HashMap<(String, String), Option<String>> = HashMap::new();
    let wanted: BTreeSet<&str> = rows.keys().map(|k| k.0.as_str()).collect();
    store.for_each_item(|item| {
        if wanted.contains(item.id.as_str()) {
            for c in &item.classifications {
                classifier.insert((item.id.clone(), c.id.clone()), c.selected.clone());
            }
        }
        true
    })?;

    let mut columns: Vec<String> = KEY_COLUMNS.iter().map(|c| c.to_string()).collect();
    for j in &judges {
        columns.push(format!("judge:{j}"));
        columns.push(format!("judge:{j}:confidence"));
    }
    // Each label column followed by its note column.
    for (who, scale) in &people {
        let slot = if one_scale(who) {
            who.to_string()
        } else {
            format!("{who}:{scale}")
        };
        columns.push(format!("label:{slot}"));
        columns.push(format!("note:{slot}"));
    }
    for (who, scale) in &people {
        columns.push(if one_scale(who) {
            format!("tags:{who}")
        } else {
            format!("tags:{who}:{scale}")
        });
    }
    for who in &markers {
        columns.push(format!("mark:{who}"));
    }
    if csv {
        let header: Vec<String> = columns
            .iter()
            .map(|c| crate::report::csv::cell(&Json::String(c.clone())))
            .collect();
        writeln!(out, "{}", header.join(","))?;
    }
    for ((item, cls, persp, persona), row) in &rows {
        let mut cells: Vec<Json> = vec![
            Json::String(item.clone()),
            Json::String(cls.clone()),
            Json::String(persp.clone()),
            Json::String(persona.clone()),
            classifier
                .get(&(item.clone(), cls.clone()))
                .cloned()
                .flatten()
                .map_or(Json::Null, Json::String),
        ];
        for j in 0..judges.len() {
            let (value, confidence) = row
                .judges
                .get(&j)
                .map_or((Json::Null, None), |(v, c)| (v.to_json(), *c));
            cells.push(value);
            cells.push(confidence.map_or(Json::Null, Json::from));
        }
        for p in 0..people.len() {
            cells.push(row.labels.get(&p).map_or(Json::Null, |v| v.to_json()));
            cells.push(
                row.notes
                    .get(&p)
                    .map_or(Json::Null, |n| Json::String(n.clone())),
            );
        }
        for (who, scale) in &people {
            let at = (
                (item.clone(), cls.clone(), persp.clone(), persona.clone()),
                who.to_string(),
                *scale,
            );
            // Sorted and comma-joined: one cell a spreadsheet filters on.
            cells.push(
                tags.get(&at)
                    .map_or(Json::Null, |t| Json::String(crate::domain::join_tags(t))),
            );
        }
        for m in 0..markers.len() {
            cells.push(
                row.marks
                    .get(&m)
                    .map_or(Json::Null, |k| Json::String(k.as_str().into())),
            );
        }
        if csv {
            let line: Vec<String> = cells.iter().map(crate::report::csv::cell).collect();
            writeln!(out, "{}", line.join(","))?;
        } else {
            let obj: Map<String, Json> = columns.iter().cloned().zip(cells).collect();
            writeln!(out, "{}", Json::Object(obj))?;
        }
    }
    Ok(())
}
