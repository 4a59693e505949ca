//! Shared helpers for the integration tests: a private workspace (tempdir +
//! SQLite store + an empty config location), the `jury` binary as a process,
//! the in-process fake OpenAI server on its own runtime, generated items, and
//! the sample data judged through `jury run` (`sample_run.rs`).
#![allow(dead_code)]

use jury::domain::Mode;
use jury::engine::{EngineConfig, EngineEvent, RunOutcome, RunRequest, spawn_run};
use jury::prompt::PromptSet;
use jury::provider::ProviderConfig;
use jury::store::Store;
use jury::testserver::{RecordedRequest, Reply, TestServer};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::time::Duration;

pub mod provider;
mod sample_run;
// Each test crate uses a part of the helpers (as with `dead_code` above).
#[allow(unused_imports)]
pub use sample_run::*;

/// The repository's `sample-data/` directory.
pub fn sample_data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("sample-data")
}

/// The binary, built only with the `tui` feature; the test files that run it
/// are gated on the feature, the core's tests never call it.
#[cfg(feature = "tui")]
const JURY_BIN: &str = env!("CARGO_BIN_EXE_jury");
#[cfg(not(feature = "tui"))]
const JURY_BIN: &str = "the jury binary needs the tui feature";

/// One test's workspace: its own store and no config or key from the developer.
pub struct Workspace {
    pub dir: tempfile::TempDir,
    pub db: PathBuf,
    /// With `JURY_TEST_STORE=postgres`: the PostgreSQL database that is this
    /// workspace's store (dropped with it), so the same command-line tests
    /// run against the PostgreSQL backend.
    #[cfg(feature = "postgres")]
    pub pg: Option<jury::store::testing::TestDatabase>,
}

impl Workspace {
    pub fn new() -> Workspace {
        let dir = tempfile::tempdir().expect("tempdir");
        #[cfg_attr(not(feature = "postgres"), allow(unused_mut))]
        let mut db = dir.path().join("jury.db");
        #[cfg(feature = "postgres")]
        let pg = if std::env::var("JURY_TEST_STORE").is_ok_and(|v| v == "postgres") {
            let pg = jury::store::testing::TestDatabase::create()
                .expect("JURY_TEST_STORE=postgres needs JURY_TEST_POSTGRES_URL");
            db = PathBuf::from(&pg.url);
            Some(pg)
        } else {
            None
        };
        Workspace {
            dir,
            db,
            #[cfg(feature = "postgres")]
            pg,
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(name);
        std::fs::write(&p, bytes).expect("write file");
        p
    }

    /// `jury` with this workspace's store, a config path that does not exist,
    /// no key and no endpoint unless a test sets them.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(JURY_BIN);
        c.env("JURY_DB", &self.db)
            .env("JURY_CONFIG", self.dir.path().join("no-such-config.toml"))
            .env("XDG_CONFIG_HOME", self.dir.path().join("xdg-config"))
            .env("XDG_DATA_HOME", self.dir.path().join("xdg-data"))
            .env("JURY_USER", "tester")
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .env_remove("JURY_MODEL")
            .env_remove("JURY_THEME")
            .env_remove("JURY_DEBUG");
        c
    }

    pub fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().expect("spawn jury")
    }

    /// Runs with an endpoint configured.
    pub fn run_with(&self, base_url: &str, args: &[&str]) -> Output {
        self.cmd()
            .env("OPENAI_BASE_URL", base_url)
            .args(args)
            .output()
            .expect("spawn jury")
    }

    /// Runs and asserts exit 0; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_success(&out, args);
        String::from_utf8(out.stdout).expect("utf-8 stdout")
    }

    pub fn import_sample(&self) {
        let dir = sample_data();
        self.ok(&["import", dir.to_str().expect("utf-8 path")]);
    }

    /// `export --format jsonl` as parsed rows.
    pub fn export_rows(&self) -> Vec<Value> {
        jsonl(&self.ok(&["export", "--format", "jsonl"]))
    }

    pub fn store(&self) -> jury::store::Store {
        jury::store::Store::open(&self.db).expect("open store")
    }
}

pub fn assert_success(out: &Output, what: &[&str]) {
    assert!(
        out.status.success(),
        "jury {what:?} exited {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

pub fn jsonl(s: &str) -> Vec<Value> {
    s.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

/// A fake OpenAI server on its own multi-thread runtime, for tests that run
/// the binary as a process (the runtime lives as long as this value).
pub struct ServerRt {
    pub server: TestServer,
    _rt: tokio::runtime::Runtime,
}

impl ServerRt {
    pub fn start<F>(responder: F) -> ServerRt
    where
        F: Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let server = rt
            .block_on(TestServer::start(responder))
            .expect("start server");
        ServerRt { server, _rt: rt }
    }

    /// The deterministic demo judge, answering at once.
    pub fn demo() -> ServerRt {
        Self::start(|r| jury::testserver::demo_judge::reply(r, std::time::Duration::ZERO))
    }

    pub fn url(&self) -> String {
        self.server.base_url()
    }

    /// Chat-completion requests received (GETs excluded).
    pub fn completions(&self) -> Vec<RecordedRequest> {
        self.server
            .requests()
            .into_iter()
            .filter(|r| r.method == "POST")
            .collect()
    }
}

pub const CLASSES: &[(&str, &[&str])] = &[
    ("urgency", &["urgent", "not"]),
    ("work-pers", &["work", "personal"]),
    ("work-logistics", &["logistics", "not"]),
];

/// One generated item in the S8.1.3 item shape with `ncls` classifications.
pub fn item_json(i: usize, ncls: usize) -> Value {
    let classifications: Vec<Value> = CLASSES
        .iter()
        .cycle()
        .take(ncls)
        .enumerate()
        .map(|(k, (name, avail))| {
            let name = if k < CLASSES.len() {
                name.to_string()
            } else {
                format!("{name}-{k}")
            };
            json!({
                "name": name,
                "desc": format!("Is this item about {name}?"),
                "available": avail,
                "selected": avail[(i + k) % avail.len()],
            })
        })
        .collect();
    json!({
        "itemId": format!("g-{i:06}"),
        "sent": 1_710_777_356.11 + i as f64,
        "title": format!("Generated item {i}: project meeting moved"),
        "summary": format!("Item {i}. The client meeting about the sprint report moves to room 4 tomorrow; please confirm today. Ünïcode ✓."),
        "source": {"type": "email", "originator": format!("sender{}@example.com", i % 17), "channel": "work-mail"},
        "tags": ["inbox:tester", "generated"],
        "classifications": classifications,
    })
}

/// `n` generated items as JSONL.
pub fn items_jsonl(n: usize, ncls: usize) -> String {
    let mut s = String::with_capacity(n * 900);
    for i in 0..n {
        s.push_str(&item_json(i, ncls).to_string());
        s.push('\n');
    }
    s
}

pub fn persona_json() -> Value {
    json!({"id": "tester", "name": "Tess", "definition": {
        "type": "TestPersona", "age": 40, "gender": "Female",
        "does": "I run projects for a logistics company.",
        "feelThinkBelieve": "Deadlines matter.", "technologyExperience": "High",
        "problems": "Too much mail.", "needs": "Triage.", "existingSolutions": "Filters."
    }})
}

pub fn perspective_json() -> Value {
    json!({"id": "classification", "name": "Classification", "text": "Is the item classified correctly?"})
}

/// A workspace holding `n` generated items, one persona (`tester`) and one
/// perspective (`classification`), imported through the CLI.
pub fn generated_workspace(n: usize, ncls: usize) -> Workspace {
    let ws = Workspace::new();
    let items = ws.write("items.jsonl", items_jsonl(n, ncls));
    let personas = ws.write("personas.json", json!([persona_json()]).to_string());
    let persp = ws.write("perspectives.json", json!([perspective_json()]).to_string());
    ws.ok(&[
        "import",
        personas.to_str().expect("path"),
        persp.to_str().expect("path"),
        items.to_str().expect("path"),
    ]);
    ws
}

/// The demo judge's correct tool-call arguments for this request.
pub fn correct_args(req: &RecordedRequest) -> String {
    match jury::testserver::demo_judge::reply(req, std::time::Duration::ZERO) {
        Reply::ToolCall { arguments, .. } => arguments,
        // Asked for a response format: the same JSON, in the content.
        Reply::Content { text, .. } => text,
        other => panic!("the demo judge did not answer with a tool call: {other:?}"),
    }
}

/// The `(item, classification, perspective)` keys a Mode 2/3 request asks for.
pub fn asked_keys(req: &RecordedRequest) -> Vec<jury::domain::ComboKey> {
    let msg = req.last_user_message().expect("a user message");
    let json = jury::protocol::awag::request::undelimit(&msg)
        .expect("the last user message is the request between the boundary markers");
    let body: Value = serde_json::from_str(json).expect("the request JSON");
    body["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|e| {
            let id = &e["id"];
            jury::domain::ComboKey::new(
                id["itemId"].as_str().expect("itemId"),
                id["classificationId"].as_str().expect("classificationId"),
                id["perspectiveId"].as_str().expect("perspectiveId"),
            )
        })
        .collect()
}

/// A store in a tempdir holding `n` generated items (`ncls` classifications
/// each), persona `tester` and perspective `classification`.
pub fn store_with(n: usize, ncls: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("jury.db");
    let items = dir.path().join("items.jsonl");
    std::fs::write(&items, items_jsonl(n, ncls)).unwrap();
    let meta = dir.path().join("meta.json");
    std::fs::write(
        &meta,
        json!([persona_json(), perspective_json()]).to_string(),
    )
    .unwrap();
    let mut store = Store::open(&db).unwrap();
    let report = jury::import::import_paths(&mut store, &[meta, items], false, "tester").unwrap();
    assert_eq!(report.items, n);
    (dir, db)
}

pub fn config(db: &Path, base_url: String) -> EngineConfig {
    let mut provider = ProviderConfig::new(base_url, "test-model");
    provider.backoff_base = Duration::from_millis(1);
    provider.backoff_cap = Duration::from_millis(5);
    EngineConfig {
        db_path: db.to_path_buf(),
        provider,
        prompts: Arc::new(PromptSet::embedded()),
    }
}

pub fn request(mode: Mode, batch: usize, concurrency: usize) -> RunRequest {
    let mut r = RunRequest::new(mode, "tester", vec!["classification".into()]);
    r.batch_size = batch;
    r.concurrency = concurrency;
    r
}

/// Runs to the end, collecting every event.
pub async fn run(cfg: EngineConfig, req: RunRequest) -> (RunOutcome, Vec<EngineEvent>) {
    let mut h = spawn_run(cfg, req);
    let mut events = Vec::new();
    while let Some(e) = h.events.recv().await {
        events.push(e);
    }
    let outcome = h
        .join
        .await
        .expect("the run panicked")
        .expect("the run failed to start");
    (outcome, events)
}

/// A store of `n` generated items with alice's AGREE/DISAGREE label on
/// each (the classifier right on 7 in 10) and two mode-3 judges, `a-model`
/// (wrong on every fourth) and `z-model` (wrong on every ninth), their
/// verdicts inserted in another order than the items' ids.
pub fn judged_by_two(n: usize) -> (tempfile::TempDir, PathBuf) {
    use jury::domain::{Agreement, ComboKey, Label, Protocol, RunSpec, Value, Verdict};
    let (dir, db) = store_with(n, 1);
    let agree = |right: bool| {
        Value::Agreement(if right {
            Agreement::Agree
        } else {
            Agreement::Disagree
        })
    };
    let mut s = Store::open(&db).expect("store");
    let key = |i: usize| ComboKey::new(&format!("g-{i:06}"), "urgency", "classification");
    for i in 0..n {
        s.upsert_label(&Label {
            key: key(i),
            persona_id: "tester".into(),
            value: agree(i % 10 < 7),
            note: String::new(),
            who: "alice".into(),
            created_at: jury::store::now(),
            replaced_judge_value: None,
            blind: false,
            tags: Vec::new(),
        })
        .expect("label");
    }
    for (model, wrong_every) in [("a-model", 4), ("z-model", 9)] {
        let spec = RunSpec {
            protocol: Protocol::Awag,
            mode: Some(Mode::Three),
            persona_id: "tester".into(),
            perspective_ids: vec!["classification".into()],
            model: model.into(),
            prompt_hash: "h".into(),
            record: None,
        };
        let run = s.create_run(&spec, n as u64).expect("run");
        // Judged in another order than the items' ids (as a batch answers).
        let vs: Vec<Verdict> = (0..n)
            .map(|j| j * 7 % n)
            .map(|i| Verdict {
                run_id: run,
                key: key(i),
                persona_id: "tester".into(),
                protocol: Protocol::Awag,
                mode: Some(Mode::Three),
                model: model.into(),
                value: agree((i % 10 < 7) ^ (i % wrong_every == 1)),
                text: "ok".into(),
                evaluated_selection: None,
                selection_mismatch: false,
                latency_ms: 1,
                tokens: 1,
                raw: String::new(),
                created_at: jury::store::now(),
                position: None,
                confidence: None,
                server: None,
            })
            .collect();
        s.insert_verdicts(&vs).expect("verdicts");
    }
    (dir, db)
}
