//! The migration to typed run records (schema step `RUN_RECORDS`): each run
//! stored before it kept its settings as a JSON blob (`runs.params`) and, if
//! it was a batch run, the command line that made it (`batch_jobs.argv`).
//! They are read here, once, into the run's [`RunRecord`]; nothing else
//! reads either again. A run that cannot be converted (its judge's settings
//! missing or unreadable) keeps its params as they were and says why in
//! `record_note`: the store still opens, and the run still lists.

use super::db::{Tx as Transaction, params};
use crate::domain::{
    BatchSettings, BatchWay, Mode, PersonaRef, PromptsUsed, Protocol, RECORD_VERSION, RunRecord,
};
use crate::protocol::JudgeSpec;
use crate::protocol::proposition::Settings as ClaimSettings;
use crate::protocol::rubric::Dimension;
use serde_json::Value;
use std::path::PathBuf;

/// One run row as the old schema held it.
pub(super) struct OldRun {
    pub protocol: String,
    pub mode: Option<u8>,
    pub persona_id: String,
    pub perspective_ids: String,
    pub model: String,
    pub prompt_hash: String,
    pub params: String,
    /// The first batch part's kind (`api`/`file`) and command line, for a batch run.
    pub batch: Option<(String, String)>,
}

/// Converts every run's old settings into its record, then drops the
/// command lines.
pub(super) fn convert(tx: &Transaction<'_>) -> super::Result<()> {
    let runs: Vec<(i64, OldRun)> = {
        let mut stmt = tx.prepare(
            "SELECT r.id, r.protocol, r.mode, r.persona_id, r.perspective_ids, r.model, r.prompt_hash, r.params,
               (SELECT b.kind FROM batch_jobs b WHERE b.run_id = r.id ORDER BY b.part LIMIT 1),
               (SELECT b.argv FROM batch_jobs b WHERE b.run_id = r.id ORDER BY b.part LIMIT 1)
             FROM runs r ORDER BY r.id",
        )?;
        let rows = stmt.query_map([], |r| {
            let kind: Option<String> = r.get(8)?;
            let argv: Option<String> = r.get(9)?;
            Ok((
                r.get(0)?,
                OldRun {
                    protocol: r.get(1)?,
                    mode: r.get(2)?,
                    persona_id: r.get(3)?,
                    perspective_ids: r.get(4)?,
                    model: r.get(5)?,
                    prompt_hash: r.get(6)?,
                    params: r.get(7)?,
                    batch: kind.map(|k| (k, argv.unwrap_or_default())),
                },
            ))
        })?;
        rows.collect::<super::Result<_>>()?
    };
    for (id, old) in runs {
        match record_of(&old) {
            Ok(record) => {
                let json = serde_json::to_string(&record).unwrap_or_default();
                tx.execute(
                    "UPDATE runs SET record = ?2, params = '{}' WHERE id = ?1",
                    params![id, json],
                )?;
            }
            Err(why) => {
                tx.execute(
                    "UPDATE runs SET record_note = ?2 WHERE id = ?1",
                    params![
                        id,
                        format!("recorded before runs had records, and not converted: {why}")
                    ],
                )?;
            }
        }
    }
    tx.execute_batch("ALTER TABLE batch_jobs DROP COLUMN argv;")
}

/// The record an old run row stands for, or why there is none.
pub(super) fn record_of(old: &OldRun) -> Result<RunRecord, String> {
    let params: Value = serde_json::from_str(&old.params)
        .map_err(|e| format!("its settings do not read as JSON ({e})"))?;
    let argv: Vec<String> = match &old.batch {
        Some((_, argv)) => serde_json::from_str(argv).unwrap_or_default(),
        None => Vec::new(),
    };
    let flags = Flags(&argv);
    let judge = judge_of(old, &params["options"])?;
    let defaults = crate::engine::RunRequest::for_spec(judge.clone());
    let num = |key: &str| params.get(key).and_then(Value::as_u64);
    let mut missing = Vec::new();
    let structured = match flags.value("--structured") {
        Some("auto") => None,
        Some(m) => crate::provider::ToolMode::parse(m),
        None => {
            missing.push("structured path");
            None
        }
    };
    let confidence = match flags.value("--confidence") {
        Some("logprobs") => crate::config::ConfidenceChoice::Logprobs,
        Some("repeats") => crate::config::ConfidenceChoice::Repeats,
        _ => crate::config::ConfidenceChoice::Off,
    };
    if flags.value("--confidence").is_none() {
        missing.push("confidence");
    }
    let servers: Vec<String> = flags
        .values("--base-url")
        .into_iter()
        .map(|u| crate::provider::server_label(u.rsplit_once('#').map_or(u, |(url, _)| url)))
        .collect();
    if servers.is_empty() {
        missing.push("servers");
    }
    let batch = old.batch.as_ref().map(|(kind, _)| BatchSettings {
        way: if kind == "file" {
            BatchWay::File
        } else {
            BatchWay::Api
        },
        poll_secs: flags
            .value("--batch-poll")
            .and_then(|s| s.parse().ok())
            .unwrap_or(30),
        on_interrupt: flags
            .value("--batch-on-interrupt")
            .and_then(crate::engine::OnInterrupt::parse)
            .unwrap_or_default(),
        retry: match flags.value("--batch-retry") {
            Some("direct") => crate::engine::Retry::Direct,
            _ => crate::engine::Retry::Batch,
        },
    });
    Ok(RunRecord {
        version: RECORD_VERSION,
        model: old.model.clone(),
        prompts: PromptsUsed {
            dir: prompts_dir(&flags, &params),
            hash: old.prompt_hash.clone(),
        },
        structured,
        confidence,
        temperature: params.get("temperature").and_then(Value::as_f64),
        batch_size: num("batch_size").map_or(defaults.batch_size, |n| n as usize),
        concurrency: num("concurrency").map_or(defaults.concurrency, |n| n as usize),
        max_attempts: num("max_attempts").map_or(defaults.max_attempts, |n| n as u32),
        items: num("items").unwrap_or(0) as usize,
        shuffle_seed: num("shuffle_seed"),
        batch,
        servers,
        converted: Some(if missing.is_empty() {
            "converted from the settings recorded before runs had records".into()
        } else {
            format!(
                "converted from the settings recorded before runs had records; not recorded then: {}",
                missing.join(", ")
            )
        }),
        judge,
    })
}

/// The judge an old run asked: its columns, and for rubric and proposition
/// runs the settings under `params.options`.
fn judge_of(old: &OldRun, options: &Value) -> Result<JudgeSpec, String> {
    let protocol: Protocol = old.protocol.parse()?;
    let persona = PersonaRef::from_id(&old.persona_id);
    match protocol {
        Protocol::Awag => {
            let mode = old
                .mode
                .and_then(Mode::from_number)
                .ok_or("an awag run without a mode")?;
            let perspectives: Vec<String> = serde_json::from_str(&old.perspective_ids)
                .map_err(|e| format!("its perspectives do not read ({e})"))?;
            JudgeSpec::awag(mode, &old.persona_id, perspectives).map_err(|e| e.to_string())
        }
        Protocol::Rubric => {
            let dimensions: Vec<Dimension> =
                serde_json::from_value(options.get("dimensions").cloned().unwrap_or(Value::Null))
                    .map_err(|e| format!("its rubric dimensions do not read ({e})"))?;
            JudgeSpec::rubric(dimensions, false, persona).map_err(|e| e.to_string())
        }
        Protocol::Proposition => {
            let settings: ClaimSettings = serde_json::from_value(options.clone())
                .map_err(|e| format!("its claim's settings do not read ({e})"))?;
            JudgeSpec::proposition(settings, persona).map_err(|e| e.to_string())
        }
        Protocol::Guideline => Ok(JudgeSpec::guideline(persona)),
    }
}

/// The prompt folder: `--prompts` as given, else the one the run's settings
/// name (`options.prompts_dir`, or where the AwAg elements came from).
fn prompts_dir(flags: &Flags<'_>, params: &Value) -> Option<PathBuf> {
    if let Some(dir) = flags.value("--prompts") {
        return Some(PathBuf::from(dir));
    }
    let named = params["options"]["prompts_dir"]
        .as_str()
        .or_else(|| params["prompts"].as_str().filter(|p| *p != "embedded"));
    named.map(PathBuf::from)
}

/// A recorded command line, read for the few values a record keeps (`--x v`
/// or `--x=v`; the last one given counts, as clap takes it).
struct Flags<'a>(&'a [String]);

impl Flags<'_> {
    fn values(&self, flag: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut args = self.0.iter();
        while let Some(a) = args.next() {
            if a == flag {
                if let Some(v) = args.next() {
                    out.push(v.as_str());
                }
            } else if let Some(v) = a.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
                out.push(v);
            }
        }
        out
    }

    fn value(&self, flag: &str) -> Option<&str> {
        self.values(flag).pop()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    /// A store of the schema before records, holding `rows` (SQL), opened
    /// by today's jury.
    fn migrated(rows: &str) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("old.db");
        {
            let conn = rusqlite::Connection::open(&path).expect("open");
            let before = super::super::schema::MIGRATIONS
                .iter()
                .position(|m| *m == super::super::schema::RUN_RECORDS)
                .expect("the records step");
            for sql in &super::super::schema::MIGRATIONS[..before] {
                conn.execute_batch(sql).expect("old schema");
            }
            conn.pragma_update(None, "user_version", before as i64)
                .expect("version");
            conn.execute_batch(rows).expect("old rows");
        }
        let store = Store::open(&path).expect("a store from before records opens");
        (dir, store)
    }

    fn run_row(id: i64, protocol: &str, mode: &str, persona: &str, params: &str) -> String {
        format!(
            "INSERT INTO runs (id, protocol, mode, persona_id, perspective_ids, model, prompt_hash, params, status, created_at)
               VALUES ({id}, '{protocol}', {mode}, '{persona}', '[\"{protocol}\"]', 'm', 'h{id}', '{params}', 'done', '2026-01-01T00:00:00.000Z');"
        )
    }

    /// Rubric dimensions and a claim's settings come from the old
    /// `params.options`; a run whose settings do not read stays listed,
    /// with its old params and a note saying why it has no record.
    #[test]
    fn old_rows_convert_or_say_why_not() {
        let rubric = r#"{"batch_size":1,"options":{"dimensions":[{"name":"clarity","rubric":"Is it clear?"}],"prompts_dir":"/p"}}"#;
        let claim = r#"{"temperature":0.25,"options":{"claim":"It is urgent.","claim_id":"urgent","scoring":"score","double_check":true,"precondition":null,"first_n":null,"last_n":2,"prompts_dir":null}}"#;
        let rows = [
            run_row(1, "rubric", "NULL", "-", rubric),
            run_row(2, "proposition", "NULL", "ana", claim),
            run_row(3, "rubric", "NULL", "-", "{not json"),
            run_row(
                4,
                "proposition",
                "NULL",
                "-",
                r#"{"options":{"claim_id":"x"}}"#,
            ),
        ]
        .concat();
        let (_dir, store) = migrated(&rows);
        let runs = store.runs().expect("runs");
        let by_id = |id: i64| runs.iter().find(|r| r.id == id).expect("listed");

        let r1 = by_id(1).spec.record.as_deref().expect("converted");
        let JudgeSpec::Rubric {
            dimensions,
            persona,
        } = &r1.judge
        else {
            panic!("{r1:?}")
        };
        assert_eq!(dimensions.len(), 1);
        assert_eq!(dimensions[0].rubric, "Is it clear?");
        assert_eq!(persona, &None);
        assert_eq!(r1.prompts.dir.as_deref(), Some(std::path::Path::new("/p")));
        assert_eq!((r1.batch_size, r1.prompts.hash.as_str()), (1, "h1"));
        assert!(
            r1.converted
                .as_deref()
                .is_some_and(|c| c.contains("servers"))
        );

        let r2 = by_id(2).spec.record.as_deref().expect("converted");
        let JudgeSpec::Proposition { settings, persona } = &r2.judge else {
            panic!("{r2:?}")
        };
        assert_eq!(settings.claim_id, "urgent");
        assert_eq!(settings.scoring.as_str(), "score");
        assert!(settings.double_check);
        assert_eq!(settings.last_n, Some(2));
        assert_eq!(persona.as_deref(), Some("ana"));
        assert_eq!(r2.temperature, Some(0.25));

        for id in [3, 4] {
            let r = by_id(id);
            assert!(r.spec.record.is_none(), "{r:?}");
            let note = r.record_note.as_deref().unwrap_or("");
            assert!(note.contains("not converted"), "{note}");
        }
        // Converted once: the old params of converted runs are gone.
        let kept: String = store
            .conn
            .query_row("SELECT params FROM runs WHERE id = 1", [], |r| r.get(0))
            .expect("params");
        assert_eq!(kept, "{}");
    }

    /// The flags a record keeps, read from a recorded command line as clap
    /// read them: `--x v`, `--x=v`, the last one given.
    #[test]
    fn a_recorded_command_line_gives_its_values() {
        let argv: Vec<String> = [
            "run",
            "--claim",
            "--prompts",
            "--structured=tools",
            "--base-url",
            "http://a/v1",
            "--base-url=http://b/v1#4",
            "--structured",
            "json",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let f = Flags(&argv);
        assert_eq!(f.value("--structured"), Some("json"));
        assert_eq!(f.values("--base-url"), ["http://a/v1", "http://b/v1#4"]);
        assert_eq!(f.value("--confidence"), None);
    }
}
