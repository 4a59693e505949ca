//! `jury export --format wide|wide-jsonl`: one row per item, classification,
//! perspective and persona, with the classifier's value, each judge
//! configuration's standing verdict (and its confidence when known) and each
//! person's label and note in columns of their own — the shape a spreadsheet or
//! pandas wants. Tag columns only for the labels that carry tags; each mark
//! with its note. The standing verdicts and labels are the ones the report
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
    /// Per label column: the note on that label, when it has one.
    notes: HashMap<usize, String>,
    /// Per marking person: their "come back later" mark (never a label)
    /// and its note (empty when it has none).
    marks: HashMap<usize, (crate::domain::MarkKind, String)>,
}

/// Who gets a column: each judge configuration, each person on each scale
/// they labelled on (a Likert and an AGREE label get a column each), and
/// each person who marked a row.
struct Columns<'a> {
    judges: Vec<&'a str>,
    people: Vec<(&'a str, &'a str)>,
    /// The label columns (indexes into `people`) some label of which
    /// carries a tag: a tag column no one used is only noise.
    tagged: Vec<usize>,
    markers: Vec<String>,
    /// The standing adjudications by row (value, who), when the store
    /// holds any: then an `adjudicated` and an `adjudicated_by` column.
    adjudicated: Option<Adjudicated>,
}

/// The standing adjudication of each row: its value and who gave it.
type Adjudicated = HashMap<RowKey, (Value, String)>;

impl Columns<'_> {
    /// A person's column name: `alice`, or `alice:likert` when alice
    /// labelled on two scales. The name is escaped ([`part`]).
    fn slot(&self, who: &str, scale: &str) -> String {
        if self.people.iter().filter(|(w, _)| *w == who).count() == 1 {
            part(who)
        } else {
            format!("{}:{scale}", part(who))
        }
    }

    fn names(&self) -> Vec<String> {
        let mut columns: Vec<String> = KEY_COLUMNS.iter().map(|c| c.to_string()).collect();
        for j in &self.judges {
            let j = part(j);
            columns.push(format!("judge:{j}"));
            columns.push(format!("judge:{j}:confidence"));
        }
        // The reference label where people's disagreement was adjudicated.
        if self.adjudicated.is_some() {
            columns.push("adjudicated".into());
            columns.push("adjudicated_by".into());
        }
        // Each label column followed by its note column; the tags after.
        for (who, scale) in &self.people {
            let slot = self.slot(who, scale);
            columns.push(format!("label:{slot}"));
            columns.push(format!("note:{slot}"));
        }
        for &p in &self.tagged {
            let (who, scale) = self.people[p];
            columns.push(format!("tags:{}", self.slot(who, scale)));
        }
        // Each mark followed by its note, as a label by its note.
        for who in &self.markers {
            let who = part(who);
            columns.push(format!("mark:{who}"));
            columns.push(format!("mark_note:{who}"));
        }
        columns
    }
}

/// A name inside a column name, with `\` and `:` escaped (`\\`, `\:`):
/// `:` separates a column's parts, so a person named `alice:likert` (a
/// store from before such names were refused) or a model named
/// `m:confidence` cannot take another column's name.
fn part(name: &str) -> String {
    if !name.contains([':', '\\']) {
        return name.to_string();
    }
    name.replace('\\', "\\\\").replace(':', "\\:")
}

fn key_of(persona: &str, k: &crate::domain::ComboKey) -> RowKey {
    (
        k.item_id.clone(),
        k.classification_id.clone(),
        k.perspective_id.clone(),
        persona.to_string(),
    )
}

/// Writes the wide table: CSV with a header (`csv`), else one JSON object
/// per line with the same keys (null where a judge or person said nothing).
pub fn write_wide(store: &Store, csv: bool, out: &mut dyn Write) -> Result<(), ExportError> {
    let readings = Builder::read(store)?.finish_readings_with_confidence();
    let marks = store.current_marks()?;
    let people: BTreeSet<(&str, &str)> = readings
        .labels
        .iter()
        .map(|(_, _, who, v)| (&**who, v.scale().as_str()))
        .collect();
    let mut cols = Columns {
        judges: readings
            .verdicts
            .iter()
            .map(|(judge, ..)| &**judge)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        people: people.into_iter().collect(),
        tagged: Vec::new(),
        markers: marks
            .iter()
            .map(|m| m.who.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect(),
        adjudicated: adjudicated_by_row(store)?,
    };
    let mut rows = standing(&readings, &cols);
    // A row for every adjudication, even one whose labels were retracted since.
    for key in cols.adjudicated.iter().flat_map(|a| a.keys()) {
        rows.entry(key.clone()).or_default();
    }
    let tags = labels_and_marks(store, &cols, &marks, &mut rows)?;
    cols.tagged = tags
        .values()
        .flat_map(|t| t.keys().copied())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let classifier = classifier_choices(store, &rows)?;

    let columns = cols.names();
    if csv {
        let header: Vec<String> = columns
            .iter()
            .map(|c| crate::report::csv::cell(&Json::String(c.clone())))
            .collect();
        writeln!(out, "{}", header.join(","))?;
    }
    for (key, row) in &rows {
        let cells = cells_of(key, row, &cols, &classifier, &tags);
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

/// The standing adjudications by row; `None` when there is none (the
/// columns appear once a store holds one). Two on different scales for one
/// row: the Likert or AGREE one (scale order), said by the value itself.
fn adjudicated_by_row(store: &Store) -> Result<Option<Adjudicated>, ExportError> {
    let all = store.adjudications()?;
    if all.is_empty() {
        return Ok(None);
    }
    let mut out = HashMap::new();
    for a in all {
        out.entry(key_of(&a.persona_id, &a.key))
            .or_insert((a.value, a.who));
    }
    Ok(Some(out))
}

/// The rows of the standing verdicts (with their confidence when it is of
/// the same value) and labels.
fn standing(
    readings: &crate::report::pairs::Readings,
    cols: &Columns<'_>,
) -> BTreeMap<RowKey, Row> {
    let judge_at: HashMap<&str, usize> = cols
        .judges
        .iter()
        .enumerate()
        .map(|(i, j)| (*j, i))
        .collect();
    let person_at: HashMap<(&str, &str), usize> = cols
        .people
        .iter()
        .enumerate()
        .map(|(i, p)| (*p, i))
        .collect();
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
    rows
}

/// The tags of the standing labels that carry any, by row and label column
/// (few labels have tags: a map of their own keeps every row small).
type Tags = HashMap<RowKey, HashMap<usize, Vec<String>>>;

/// Each standing label's note, and its tags (returned), in one pass (the
/// labels table holds one label per combination, persona, person and scale,
/// as the label columns do); and each current mark, with a row of its own
/// when nothing else is known of the combination.
fn labels_and_marks(
    store: &Store,
    cols: &Columns<'_>,
    marks: &[crate::domain::RowMark],
    rows: &mut BTreeMap<RowKey, Row>,
) -> Result<Tags, ExportError> {
    let mut tags = Tags::new();
    let person_at: HashMap<(&str, &str), usize> = cols
        .people
        .iter()
        .enumerate()
        .map(|(i, p)| (*p, i))
        .collect();
    store.for_each_label(|l| {
        let Some(&p) = person_at.get(&(l.who.as_str(), l.value.scale().as_str())) else {
            return;
        };
        let key = key_of(&l.persona_id, &l.key);
        let Some(row) = rows.get_mut(&key) else {
            return;
        };
        if !row.labels.contains_key(&p) {
            return;
        }
        if !l.note.is_empty() {
            row.notes.insert(p, l.note);
        }
        if !l.tags.is_empty() {
            tags.entry(key).or_default().insert(p, l.tags);
        }
    })?;
    for m in marks {
        let at = cols.markers.iter().position(|w| *w == m.who).unwrap_or(0);
        rows.entry(key_of(&m.persona_id, &m.key))
            .or_default()
            .marks
            .insert(at, (m.mark, m.note.clone()));
    }
    Ok(tags)
}

/// The classifier's choice per (item, classification) of the rows' items.
fn classifier_choices(
    store: &Store,
    rows: &BTreeMap<RowKey, Row>,
) -> Result<HashMap<(String, String), Option<String>>, ExportError> {
    let mut classifier = HashMap::new();
    let wanted: BTreeSet<&str> = rows.keys().map(|k| k.0.as_str()).collect();
    store.for_each_item(|item| {
        if wanted.contains(item.id.as_str()) {
            for c in &item.classifications {
                classifier.insert((item.id.clone(), c.id.clone()), c.selected.clone());
            }
        }
        true
    })?;
    Ok(classifier)
}

/// One row's cells, in the order of [`Columns::names`].
fn cells_of(
    key: &RowKey,
    row: &Row,
    cols: &Columns<'_>,
    classifier: &HashMap<(String, String), Option<String>>,
    tags: &Tags,
) -> Vec<Json> {
    let (item, cls, persp, persona) = key;
    let text = |s: Option<&String>| s.map_or(Json::Null, |s| Json::String(s.clone()));
    let mut cells: Vec<Json> = vec![
        Json::String(item.clone()),
        Json::String(cls.clone()),
        Json::String(persp.clone()),
        Json::String(persona.clone()),
        text(
            classifier
                .get(&(item.clone(), cls.clone()))
                .and_then(Option::as_ref),
        ),
    ];
    for j in 0..cols.judges.len() {
        let (value, confidence) = row
            .judges
            .get(&j)
            .map_or((Json::Null, None), |(v, c)| (v.to_json(), *c));
        cells.push(value);
        cells.push(confidence.map_or(Json::Null, Json::from));
    }
    if let Some(adjudicated) = &cols.adjudicated {
        let (value, who) = adjudicated
            .get(key)
            .map_or((Json::Null, Json::Null), |(v, w)| {
                (v.to_json(), Json::String(w.clone()))
            });
        cells.push(value);
        cells.push(who);
    }
    for p in 0..cols.people.len() {
        cells.push(row.labels.get(&p).map_or(Json::Null, |v| v.to_json()));
        cells.push(text(row.notes.get(&p)));
    }
    let row_tags = tags.get(key);
    for p in &cols.tagged {
        // Sorted and comma-joined: one cell a spreadsheet filters on.
        cells.push(
            row_tags
                .and_then(|t| t.get(p))
                .map_or(Json::Null, |t| Json::String(crate::domain::join_tags(t))),
        );
    }
    for m in 0..cols.markers.len() {
        let (mark, note) = row
            .marks
            .get(&m)
            .map_or((Json::Null, Json::Null), |(k, n)| {
                let note = (!n.is_empty()).then(|| Json::String(n.clone()));
                (Json::String(k.as_str().into()), note.unwrap_or(Json::Null))
            });
        cells.push(mark);
        cells.push(note);
    }
    cells
}
