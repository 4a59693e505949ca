//! Verdicts from elsewhere: the verdict rows `jury export` writes (`kind:
//! "verdict"`), or any row naming its `judge`, from JSON lines or CSV. Each
//! source (its judge name, and the run it came from when the rows say) is
//! stored as its own run, so reports, rankings, estimates and trust treat
//! it as one of jury's own judge configurations.
//!
//! Rows are read with the file, checked once every file is read (an item
//! may come later, as a CSV export writes its items last), and written in
//! the import's one transaction: a bad row refuses the whole import (or is
//! skipped under `--skip-invalid`). A file whose bytes were imported before
//! adds nothing.

use super::fields::{FieldError, id, kind, pick, text};
use super::{Batch, ImportError, Location, RecordError};
use crate::domain::{
    ComboKey, Confidence, ConfidenceSource, Mode, PersonaRef, Protocol, RequestPosition, RunSpec,
    Scale, Value, Verdict,
};
use crate::store::ImportOrigin;
use serde_json::{Map, Value as Json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The prompt hash an imported run gets when its rows name none: its
/// prompts are not jury's to know.
pub const IMPORTED_PROMPTS: &str = "imported";

/// One verdict row, read but not yet checked against the store.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedVerdict {
    pub key: ComboKey,
    pub persona_id: String,
    pub protocol: Protocol,
    pub mode: Option<Mode>,
    /// The source: `judge`, else `model`.
    pub judge: String,
    /// `run_id` of the row (a jury export's run), if any.
    pub source_run: Option<i64>,
    pub prompt_hash: Option<String>,
    pub value: Value,
    pub text: String,
    pub confidence: Option<Confidence>,
    pub evaluated_selection: Option<String>,
    pub created_at: Option<String>,
    /// Where the item stood in its request (`position` of `request_items`),
    /// as jury's export writes it: the position-bias figures read it.
    pub position: Option<RequestPosition>,
    /// The server a jury export says answered (a verdict moving between
    /// stores keeps it).
    pub server: Option<String>,
    /// The row as read (kept as the verdict's raw answer).
    pub raw: String,
}

/// What a row of an import is, by its `kind` (jury's export rows) or a
/// `judge` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    Verdict,
    /// A failure or mark row of jury's export: runs and people made them;
    /// an import does not.
    LeftOut,
    /// Anything else: an item, label, persona...
    Other,
}

pub fn row_kind(obj: &Map<String, Json>) -> RowKind {
    match obj.get("kind").and_then(Json::as_str) {
        Some("verdict") => RowKind::Verdict,
        Some("failure" | "mark") => RowKind::LeftOut,
        _ if obj.contains_key("judge") && !obj.contains_key("classifications") => RowKind::Verdict,
        _ => RowKind::Other,
    }
}

/// Reads one verdict row (field names as jury's export writes them; the
/// camelCase spellings too).
pub fn verdict(obj: &Map<String, Json>) -> Result<ImportedVerdict, FieldError> {
    let item_id = id(obj, &["item_id", "itemId"])?;
    let classification_id = id(obj, &["classification_id", "classificationId"])?;
    let perspective_id = id(obj, &["perspective_id", "perspectiveId"])?;
    let persona_id = id(obj, &["persona_id", "personaId"])?;
    let mut judge = text(obj, &["judge"])?;
    if judge.trim().is_empty() {
        judge = text(obj, &["model"])?;
    }
    if judge.trim().is_empty() {
        return Err(FieldError::new(
            "judge",
            "is missing: name the judge (the tool or model) this verdict came from",
        ));
    }
    let protocol = match pick(obj, &["protocol"]) {
        None => Protocol::of_perspective(&perspective_id),
        Some((_, Json::String(s))) if s.trim().is_empty() => {
            Protocol::of_perspective(&perspective_id)
        }
        Some((k, Json::String(s))) => s.parse().map_err(|e: String| FieldError::new(k, e))?,
        Some((k, other)) => {
            return Err(FieldError::new(
                k,
                format!("must be a string, found {}", kind(other)),
            ));
        }
    };
    let mode = match pick(obj, &["mode"]) {
        None => None,
        Some((_, Json::String(s))) if s.trim().is_empty() => None,
        Some((k, v)) => {
            let n = match v {
                Json::Number(n) => n.to_string(),
                Json::String(s) => s.clone(),
                other => other.to_string(),
            };
            Some(n.parse::<Mode>().map_err(|e| FieldError::new(k, e))?)
        }
    };
    if mode.is_some() && protocol != Protocol::Awag {
        return Err(FieldError::new(
            "mode",
            format!("only AwAg verdicts have a mode; this one is {protocol}"),
        ));
    }
    let (vk, raw_value) =
        pick(obj, &["value"]).ok_or_else(|| FieldError::new("value", "is missing"))?;
    let scale = match pick(obj, &["scale"]) {
        Some((_, Json::String(s))) if s.trim().is_empty() => super::infer_scale(raw_value),
        Some((k, Json::String(s))) => Scale::parse_name(s.trim())
            .ok_or_else(|| FieldError::new(k, format!("unknown scale '{s}'")))?,
        Some((k, other)) => {
            return Err(FieldError::new(
                k,
                format!("must be a string, found {}", kind(other)),
            ));
        }
        None => super::infer_scale(raw_value),
    };
    let value = scale
        .from_json(raw_value)
        .map_err(|e| FieldError::new(vk, e.to_string()))?;
    if let Some(m) = mode
        && m.scale() != scale
    {
        return Err(FieldError::new(
            vk,
            format!(
                "'{}' is on the {} scale; a mode {m} verdict is on the {} scale",
                value.as_text(),
                scale.as_str(),
                m.scale().as_str()
            ),
        ));
    }
    // An AwAg verdict without a mode takes the mode whose scale it is on
    // (AGREE/DISAGREE: 3; Likert: 2, one entry per item and
    // classification), so the workbench shows it among that mode's verdicts.
    let mode = match (mode, protocol) {
        (None, Protocol::Awag) => match scale {
            Scale::Agreement => Some(Mode::Three),
            Scale::Likert => Some(Mode::Two),
            _ => None,
        },
        (m, _) => m,
    };
    let source_run = match pick(obj, &["run_id", "runId"]) {
        None => None,
        Some((_, Json::String(s))) if s.trim().is_empty() => None,
        Some((k, v)) => Some(
            match v {
                Json::Number(n) => n.as_i64(),
                Json::String(s) => s.trim().parse::<i64>().ok(),
                _ => None,
            }
            .ok_or_else(|| FieldError::new(k, format!("must be a whole number, found {v}")))?,
        ),
    };
    let whole = |name: &str| -> Result<Option<u32>, FieldError> {
        match pick(obj, &[name]) {
            None => Ok(None),
            Some((_, Json::String(s))) if s.trim().is_empty() => Ok(None),
            Some((k, v)) => match v {
                Json::Number(n) => n.as_u64().and_then(|n| u32::try_from(n).ok()),
                Json::String(s) => s.trim().parse::<u32>().ok(),
                _ => None,
            }
            .map(Some)
            .ok_or_else(|| FieldError::new(k, format!("must be a whole number ≥ 0, found {v}"))),
        }
    };
    let position = match (whole("position")?, whole("request_items")?) {
        (Some(index), Some(items)) if index < items => Some(RequestPosition { index, items }),
        (None, None) => None,
        _ => {
            return Err(FieldError::new(
                "position",
                "needs request_items beside it, and must be below it",
            ));
        }
    };
    let optional = |names: &[&str]| -> Result<Option<String>, FieldError> {
        let t = text(obj, names)?;
        Ok((!t.is_empty()).then_some(t))
    };
    Ok(ImportedVerdict {
        key: ComboKey {
            item_id,
            classification_id,
            perspective_id,
        },
        persona_id,
        protocol,
        mode,
        judge: judge.trim().to_string(),
        source_run,
        prompt_hash: optional(&["prompt_hash", "promptHash"])?,
        value,
        text: text(obj, &["text", "explanation"])?,
        confidence: confidence(obj)?,
        evaluated_selection: optional(&["evaluated_selection", "evaluatedSelection"])?,
        created_at: optional(&["created_at", "createdAt"])?,
        position,
        server: optional(&["server"])?,
        raw: Json::Object(obj.clone()).to_string(),
    })
}

/// `confidence` (a probability in [0, 1]) with its `confidence_source`: a
/// source jury knows is kept, any other is `imported`.
fn confidence(obj: &Map<String, Json>) -> Result<Option<Confidence>, FieldError> {
    let number = |names: &[&str]| -> Result<Option<f64>, FieldError> {
        match pick(obj, names) {
            None => Ok(None),
            Some((_, Json::String(s))) if s.trim().is_empty() => Ok(None),
            Some((k, v)) => {
                let x = match v {
                    Json::Number(n) => n.as_f64(),
                    Json::String(s) => s.trim().parse::<f64>().ok(),
                    _ => None,
                };
                x.filter(|x| x.is_finite())
                    .map(Some)
                    .ok_or_else(|| FieldError::new(k, format!("must be a number, found {v}")))
            }
        }
    };
    let Some(value) = number(&["confidence"])? else {
        return Ok(None);
    };
    if !(0.0..=1.0).contains(&value) {
        return Err(FieldError::new(
            "confidence",
            format!("must be a probability from 0 to 1, found {value}"),
        ));
    }
    let source = text(obj, &["confidence_source", "confidenceSource"])?;
    Ok(Some(Confidence {
        value,
        source: ConfidenceSource::parse(source.trim()).unwrap_or(ConfidenceSource::Imported),
        expected_score: number(&["expected_score", "expectedScore"])?,
    }))
}

/// A checked verdict row waiting for the end of the import.
pub(super) struct Pending {
    pub v: ImportedVerdict,
    pub file: PathBuf,
    pub at: Location,
}

/// What importing verdicts did, per source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportedSource {
    pub judge: String,
    pub file: PathBuf,
    /// The run made for it.
    pub run_id: i64,
    pub verdicts: usize,
}

/// The verdicts of an import, by what happened to them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerdictImport {
    pub sources: Vec<ImportedSource>,
    /// Files whose bytes an earlier import already brought in: their
    /// verdicts were not added again (with the runs that hold them).
    pub already: Vec<(PathBuf, Vec<i64>)>,
    /// Rows of jury's export that runs or people made (failures, marks).
    pub left_out: usize,
}

impl VerdictImport {
    pub fn verdicts(&self) -> usize {
        self.sources.iter().map(|s| s.verdicts).sum()
    }
}

/// Checks every pending verdict against the store (as labels are checked)
/// and writes each source as a run. Called before the import commits.
pub(super) fn finish_verdicts(
    batch: &mut Batch<'_>,
    skip_invalid: bool,
) -> Result<(), ImportError> {
    let pending = std::mem::take(&mut batch.verdicts);
    if pending.is_empty() {
        return Ok(());
    }
    let personas = batch.tx.persona_ids()?;
    let perspectives = batch.tx.perspective_ids()?;
    let mut offered_of: HashMap<String, Option<HashSet<String>>> = HashMap::new();
    // Per file: its SHA-256, and whether an earlier import brought it in.
    let mut files: BTreeMap<PathBuf, (String, Vec<i64>)> = BTreeMap::new();
    // One run per (file, judge, protocol, mode, persona, prompts, source run).
    type Source = (
        PathBuf,
        String,
        Protocol,
        Option<Mode>,
        String,
        String,
        Option<i64>,
    );
    let mut sources: BTreeMap<Source, Vec<ImportedVerdict>> = BTreeMap::new();
    let mut seen: HashMap<(Source, ComboKey), Location> = HashMap::new();
    for Pending { v, file, at } in pending {
        if !files.contains_key(&file) {
            let sha = sha256_of(&file)?;
            let runs = batch.tx.runs_imported_from(&sha)?;
            files.insert(file.clone(), (sha, runs));
        }
        if !offered_of.contains_key(&v.key.item_id) {
            let offered = super::labels::offered_by(&batch.tx, &v.key.item_id)?;
            offered_of.insert(v.key.item_id.clone(), offered);
        }
        let source: Source = (
            file.clone(),
            v.judge.clone(),
            v.protocol,
            v.mode,
            v.persona_id.clone(),
            v.prompt_hash
                .clone()
                .unwrap_or_else(|| IMPORTED_PROMPTS.to_string()),
            v.source_run,
        );
        let problem = problem(
            &v,
            offered_of[&v.key.item_id].as_ref(),
            &personas,
            &perspectives,
        )
        .or_else(|| {
            seen.get(&(source.clone(), v.key.clone())).map(|first| {
                (
                    "item_id",
                    format!(
                        "judge '{}' has a verdict on this item, classification and perspective already ({first})",
                        v.judge
                    ),
                )
            })
        });
        match problem {
            None => {
                seen.insert((source.clone(), v.key.clone()), at);
                sources.entry(source).or_default().push(v);
            }
            Some((field, message)) => {
                batch.skip_or_refuse(
                    skip_invalid,
                    RecordError {
                        file,
                        at,
                        field: field.into(),
                        message,
                    },
                )?;
            }
        }
    }
    for ((file, judge, protocol, mode, persona, prompt_hash, source_run), vs) in sources {
        let (sha, earlier) = &files[&file];
        if !earlier.is_empty() {
            if !batch.verdict_import.already.iter().any(|(f, _)| *f == file) {
                batch
                    .verdict_import
                    .already
                    .push((file.clone(), earlier.clone()));
            }
            continue;
        }
        let mut perspective_ids: Vec<String> =
            vs.iter().map(|v| v.key.perspective_id.clone()).collect();
        perspective_ids.sort();
        perspective_ids.dedup();
        let spec = RunSpec {
            protocol,
            mode,
            persona_id: persona.clone(),
            perspective_ids,
            model: judge.clone(),
            prompt_hash,
            record: None,
        };
        let origin = ImportOrigin {
            judge: judge.clone(),
            file: file.display().to_string(),
            sha256: sha.clone(),
            source_run_id: source_run,
        };
        let run_id = batch
            .tx
            .create_imported_run(&spec, &origin, vs.len() as u64)?;
        let now = crate::store::now();
        let rows: Vec<Verdict> = vs
            .into_iter()
            .map(|v| Verdict {
                run_id,
                key: v.key,
                persona_id: v.persona_id,
                protocol: v.protocol,
                mode: v.mode,
                model: judge.clone(),
                value: v.value,
                text: v.text,
                selection_mismatch: false,
                evaluated_selection: v.evaluated_selection,
                latency_ms: 0,
                tokens: 0,
                raw: v.raw,
                created_at: v.created_at.unwrap_or_else(|| now.clone()),
                position: v.position,
                confidence: v.confidence,
                // The server a jury export named, if any; where the
                // verdict came from is the run's origin, not a server.
                server: v.server,
            })
            .collect();
        let written = batch.tx.insert_imported_verdicts(&rows)?;
        batch.verdict_import.sources.push(ImportedSource {
            judge,
            file,
            run_id,
            verdicts: written,
        });
    }
    Ok(())
}

/// What is wrong with a verdict's combination, persona or scale, if anything.
fn problem(
    v: &ImportedVerdict,
    offered: Option<&HashSet<String>>,
    personas: &HashSet<String>,
    perspectives: &HashSet<String>,
) -> Option<(&'static str, String)> {
    let p = v.key.perspective_id.as_str();
    let own = Protocol::of_perspective(p) != Protocol::Awag;
    // Claim ids and rubric dimensions are defined by runs, not by items.
    let free = matches!(
        Protocol::of_perspective(p),
        Protocol::Proposition | Protocol::Rubric
    );
    match offered {
        None => {
            return Some((
                "item_id",
                format!("no item '{}' in the store or this import", v.key.item_id),
            ));
        }
        Some(c) if !c.contains(&v.key.classification_id) && !free => {
            return Some((
                "classification_id",
                format!(
                    "item '{}' has no classification '{}'",
                    v.key.item_id, v.key.classification_id
                ),
            ));
        }
        _ => {}
    }
    if Protocol::of_perspective(p) != v.protocol {
        return Some((
            "protocol",
            format!(
                "a {} verdict cannot be on perspective '{p}' (that is {}'s)",
                v.protocol,
                Protocol::of_perspective(p)
            ),
        ));
    }
    let persona_ok =
        personas.contains(&v.persona_id) || (own && v.persona_id == PersonaRef::NONE_ID);
    if !persona_ok {
        return Some(("persona_id", format!("no persona '{}'", v.persona_id)));
    }
    if !own && !perspectives.contains(p) {
        return Some(("perspective_id", format!("no perspective '{p}'")));
    }
    let allowed = super::labels::scales_for(p);
    if !allowed.contains(&v.value.scale()) {
        let names: Vec<&str> = allowed.iter().map(|s| s.as_str()).collect();
        return Some((
            "value",
            format!(
                "'{}' is on the {} scale; a verdict on perspective '{p}' is on the {} scale",
                v.value.as_text(),
                v.value.scale().as_str(),
                names.join(" or ")
            ),
        ));
    }
    None
}

/// The SHA-256 of a file's bytes, read in pieces.
fn sha256_of(path: &Path) -> Result<String, ImportError> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let cannot = |e: std::io::Error| ImportError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut f = crate::readfile::open(path).map_err(cannot)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(cannot)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Json) -> Map<String, Json> {
        v.as_object().cloned().expect("object")
    }

    #[test]
    fn an_export_row_reads_as_a_verdict_and_bad_fields_are_named() {
        let row = json!({"kind": "verdict", "run_id": 3, "item_id": "i1", "classification_id": "c",
            "perspective_id": "p", "persona_id": "alice", "protocol": "awag", "mode": 3,
            "model": "m", "value": "AGREE", "scale": "agreement", "text": "ok",
            "confidence": 0.8, "confidence_source": "logprobs"});
        assert_eq!(row_kind(&obj(row.clone())), RowKind::Verdict);
        let v = verdict(&obj(row.clone())).expect("verdict");
        assert_eq!(v.judge, "m");
        assert_eq!(v.source_run, Some(3));
        assert_eq!(v.mode, Some(Mode::Three));
        assert_eq!(
            v.confidence.map(|c| (c.value, c.source)),
            Some((0.8, ConfidenceSource::Logprobs))
        );
        let mut bad = obj(row.clone());
        bad.insert("value".into(), json!(4));
        let e = verdict(&bad).expect_err("Likert 4 in mode 3");
        assert_eq!(e.field, "value");
        let mut bad = obj(row.clone());
        bad.insert("confidence".into(), json!(1.5));
        assert_eq!(verdict(&bad).expect_err("1.5").field, "confidence");
        let mut bad = obj(row);
        bad.remove("model");
        assert_eq!(verdict(&bad).expect_err("no judge").field, "judge");
        // A row of another tool names its judge and no kind.
        let theirs = obj(
            json!({"judge": "inspect", "item_id": "i", "classification_id": "c",
            "perspective_id": "p", "persona_id": "a", "value": "maybe"}),
        );
        assert_eq!(row_kind(&theirs), RowKind::Verdict);
        assert_eq!(verdict(&theirs).expect_err("maybe").field, "value");
        assert_eq!(row_kind(&obj(json!({"kind": "failure"}))), RowKind::LeftOut);
    }
}
