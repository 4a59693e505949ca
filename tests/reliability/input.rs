//! docs/reliability.md rows 21–26 (bad input, the terminal, the key): escape
//! sequences and invisible characters from items and judges never reach the
//! terminal raw; huge items are cut for display; bad files are refused with
//! file, line and field; instructions inside content stay delimited and
//! flagged; the API key never leaks.
#![cfg(feature = "tui")]

use jury::domain::{ComboKey, Failure, FailureKind, RunSpec};
use jury::import::{ImportError, import_paths};
use jury::provider::{ProviderConfig, Secret};
use jury::sanitize::{for_display, has_hidden_controls, looks_like_instructions, one_line};
use jury::store::Store;
use jury::testserver::{RecordedRequest, Reply, TestServer};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod bad_files;
mod instructions;
mod key;
mod terminal;

fn jury(db: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_jury"));
    c.arg("--db").arg(db);
    c.env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("JURY_MODEL")
        .env("JURY_CONFIG", db.with_extension("no-config.toml"))
        .env("JURY_USER", "tester");
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn base_store(dir: &Path) -> PathBuf {
    let db = dir.join("jury.db");
    let data = dir.join("base");
    std::fs::create_dir_all(&data).expect("mkdir");
    std::fs::write(
        data.join("personas.json"),
        json!([{"id": "pa", "name": "Pat", "definition": {"type": "Persona", "does": "reads mail"}}]).to_string(),
    )
    .expect("write");
    std::fs::write(
        data.join("perspectives.json"),
        json!([{"id": "classification", "name": "Classification", "text": "Is it right?"}])
            .to_string(),
    )
    .expect("write");
    let mut store = Store::open(&db).expect("store");
    import_paths(&mut store, &[data], false, "tester").expect("import");
    db
}

fn item(id: &str, title: &str, summary: &str) -> Value {
    json!({
        "itemId": id, "sent": "2026-03-16T07:12:00Z", "title": title, "summary": summary,
        "source": {"type": "email", "originator": "a@b.c", "channel": "mail"}, "tags": ["inbox:pa"],
        "classifications": [{"name": "c1", "desc": "Work?", "available": ["work", "not"], "selected": "work"}]
    })
}

fn import_items(db: &Path, items: &[Value]) {
    let f = db.with_file_name("more-items.jsonl");
    let body: String = items.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(&f, body).expect("write");
    let mut store = Store::open(db).expect("store");
    import_paths(&mut store, &[f], false, "tester").expect("import");
}
