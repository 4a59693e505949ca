//! The OpenAI Files and Batches API on the test server: upload (multipart,
//! `purpose=batch`), create, a status that moves on with each look
//! (validating, in_progress, finalizing, completed; or expired, or
//! cancelling then cancelled), output and error files, and cancel. Each
//! line is answered by the same responder as a chat request, not streamed.
//! [`BatchApi::set_faults`] makes it a hostile server ([`Faults`]): creates
//! whose answer never leaves, failing polls and downloads, redirects,
//! oversized bodies, duplicate and malformed answer lines, a `completed`
//! batch that does not add up, a cancel that hangs.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use jury::testserver::{BatchApi, BatchScript, TestServer};
//! let api = BatchApi::new(BatchScript::default(), |r| {
//!     jury::testserver::demo_judge::reply(r, std::time::Duration::ZERO)
//! });
//! let a = api.clone();
//! let server = TestServer::start(move |req| a.reply(req)).await?;
//! # Ok(()) }
//! ```

mod faults;

use super::reply::{Step, render};
use super::{RecordedRequest, Reply};
use faults::tail_line;
pub use faults::{Call, Failure, Faults, Tail};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// How the server's batches go.
#[derive(Debug, Clone, Default)]
pub struct BatchScript {
    /// Looks at a batch that answer `in_progress` before it finalizes.
    pub polls_in_progress: usize,
    /// The batch expires with only this many lines answered (the rest go
    /// to the error file as `batch_expired`).
    pub expire_after: Option<usize>,
    /// Only the first batch created follows `expire_after`; later ones complete.
    pub expire_first_only: bool,
}

type Responder = dyn Fn(&RecordedRequest) -> Reply + Send + Sync;

struct Batch {
    input: String,
    status: String,
    looks: usize,
    output: Option<String>,
    error: Option<String>,
    counts: (u64, u64, u64),
    expire: Option<usize>,
    input_file_id: String,
    metadata: Value,
}

#[derive(Default)]
struct State {
    files: HashMap<String, String>,
    batches: HashMap<String, Batch>,
    /// Batch ids in the order they were created.
    created: Vec<String>,
    next: usize,
    faults: Faults,
    /// Text put before the ids made, by what they name ([`BatchApi::prefix_ids`]).
    id_prefix: Vec<(&'static str, String)>,
}

impl State {
    fn prefix(&self, of: &str) -> String {
        self.id_prefix
            .iter()
            .find(|(k, _)| *k == of)
            .map_or(String::new(), |(_, p)| p.clone())
    }
}

/// The Files and Batches API; [`BatchApi::reply`] answers every request
/// (those it does not know go to the responder as chat requests).
pub struct BatchApi {
    script: BatchScript,
    responder: Box<Responder>,
    state: Mutex<State>,
}

impl BatchApi {
    pub fn new<F>(script: BatchScript, responder: F) -> Arc<BatchApi>
    where
        F: Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    {
        Arc::new(BatchApi {
            script,
            responder: Box::new(responder),
            state: Mutex::new(State::default()),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Makes the server misbehave as `faults` says (from the next call).
    pub fn set_faults(&self, faults: Faults) {
        self.state().faults = faults;
    }

    /// From now on, put `prefix` before the ids made of `of`: `"file"` (an
    /// upload), `"batch"`, `"output"` (output and error files). A server
    /// that echoes a key in its ids.
    pub fn prefix_ids(&self, of: &'static str, prefix: &str) {
        self.state().id_prefix.push((of, prefix.to_string()));
    }

    /// The ids of the batches created so far, in order.
    pub fn created(&self) -> Vec<String> {
        self.state().created.clone()
    }

    /// The request file batch `id` was created from.
    pub fn input(&self, id: &str) -> Option<String> {
        self.state().batches.get(id).map(|b| b.input.clone())
    }

    /// The text of an uploaded file.
    pub fn file(&self, id: &str) -> Option<String> {
        self.state().files.get(id).cloned()
    }

    /// The reply to any request to the server.
    pub fn reply(&self, req: &RecordedRequest) -> Reply {
        let path = req.path.split('?').next().unwrap_or("");
        let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
        let call = match (req.method.as_str(), parts.as_slice()) {
            ("POST", [_, "files"]) => Call::Upload,
            ("GET", [_, "files", _, "content"]) => Call::Download,
            ("POST", [_, "batches"]) => Call::Create,
            ("GET", [_, "batches"]) => Call::List,
            ("GET", [_, "batches", _]) => Call::Look,
            ("POST", [_, "batches", _, "cancel"]) => Call::Cancel,
            _ => return (self.responder)(req),
        };
        if let Some(r) = self.fault(call) {
            return r;
        }
        let hour = std::time::Duration::from_secs(3600);
        if self.state().faults.stall == Some(call) {
            return Reply::Delay(hour, Box::new(Reply::status(503, "{}")));
        }
        let reply = self.answer_call(call, &parts, req);
        match self.state().faults.slow_answer == Some(call) {
            true => Reply::Delay(hour, Box::new(reply)),
            false => reply,
        }
    }

    fn answer_call(&self, call: Call, parts: &[&str], req: &RecordedRequest) -> Reply {
        match (call, parts) {
            (Call::Upload, _) => self.upload(req),
            (Call::Download, [_, "files", id, "content"]) => match self.file(id) {
                Some(text) => Reply::Status {
                    code: 200,
                    headers: vec![("content-type".into(), "application/jsonl".into())],
                    body: text,
                },
                None => not_found("file"),
            },
            (Call::Create, _) => {
                let made = self.create(req);
                let mut s = self.state();
                if s.faults.drop_create_answers > 0 {
                    s.faults.drop_create_answers -= 1;
                    return Reply::Raw(Vec::new());
                }
                made
            }
            (Call::List, _) => self.list(req),
            (Call::Look, [_, "batches", id]) => self.look(id),
            (Call::Cancel, [_, "batches", id, "cancel"]) => {
                let r = self.cancel(id);
                match self.state().faults.cancel_delay {
                    Some(d) => Reply::Delay(d, Box::new(r)),
                    None => r,
                }
            }
            _ => (self.responder)(req),
        }
    }

    /// The fault that answers `call` instead, when one is due.
    fn fault(&self, call: Call) -> Option<Reply> {
        let mut s = self.state();
        let f = &mut s.faults;
        if let Some((c, to)) = &f.redirect
            && *c == call
        {
            return Some(Reply::Status {
                code: 307,
                headers: vec![("location".into(), to.clone())],
                body: String::new(),
            });
        }
        let due = match call {
            Call::Upload => &mut f.failing_uploads,
            Call::Look => &mut f.failing_looks,
            Call::Download => &mut f.failing_downloads,
            _ => return None,
        };
        if *due == 0 {
            return None;
        }
        *due -= 1;
        Some(match f.failure {
            Failure::Unavailable => Reply::status(503, r#"{"error":{"message":"unavailable"}}"#),
            Failure::TooMany => Reply::status(429, r#"{"error":{"message":"slow down"}}"#),
            Failure::Dropped => Reply::Raw(Vec::new()),
        })
    }

    /// `GET /batches?limit=N&after=ID`: newest first, as the API lists them.
    fn list(&self, req: &RecordedRequest) -> Reply {
        let query = req.path.split_once('?').map(|(_, q)| q).unwrap_or("");
        let param = |k: &str| {
            query
                .split('&')
                .find_map(|p| p.strip_prefix(&format!("{k}=")))
                .map(str::to_string)
        };
        let limit = param("limit")
            .and_then(|l| l.parse::<usize>().ok())
            .unwrap_or(20);
        let after = param("after");
        let s = self.state();
        let mut newest_first: Vec<&String> = s.created.iter().rev().collect();
        if let Some(a) = after {
            let from = newest_first
                .iter()
                .position(|id| **id == a)
                .map_or(0, |i| i + 1);
            newest_first.drain(..from);
        }
        let page: Vec<Value> = newest_first
            .iter()
            .take(limit)
            .map(|id| batch_json(id, &s.batches[*id], 0))
            .collect();
        let has_more = newest_first.len() > limit;
        json_reply(json!({"object": "list", "data": page, "has_more": has_more}))
    }

    fn upload(&self, req: &RecordedRequest) -> Reply {
        let body = match &req.body {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let Some(text) = multipart_file(req.header("content-type").unwrap_or(""), &body) else {
            return bad("the upload has no `file` part");
        };
        if !body.contains("name=\"purpose\"\r\n\r\nbatch") {
            return bad("purpose must be batch");
        }
        let mut s = self.state();
        s.next += 1;
        let id = format!("{}file-{}", s.prefix("file"), s.next);
        s.files.insert(id.clone(), text);
        json_reply(json!({"id": id, "object": "file", "purpose": "batch"}))
    }

    fn create(&self, req: &RecordedRequest) -> Reply {
        let input = req.body["input_file_id"].as_str().unwrap_or("").to_string();
        if req.body["endpoint"] != "/v1/chat/completions" || req.body["completion_window"] != "24h"
        {
            return bad("endpoint must be /v1/chat/completions and completion_window 24h");
        }
        let mut s = self.state();
        let Some(text) = s.files.get(&input).cloned() else {
            return not_found("input file");
        };
        s.next += 1;
        let id = format!("{}batch_{}", s.prefix("batch"), s.next);
        let total = text.lines().filter(|l| !l.trim().is_empty()).count() as u64;
        let expire = if self.script.expire_first_only && !s.created.is_empty() {
            None
        } else {
            self.script.expire_after
        };
        s.created.push(id.clone());
        s.batches.insert(
            id.clone(),
            Batch {
                input: text,
                status: "validating".into(),
                looks: 0,
                output: None,
                error: None,
                counts: (0, 0, total),
                expire,
                input_file_id: input.clone(),
                metadata: req.body["metadata"].clone(),
            },
        );
        let v = batch_json(&id, &s.batches[&id], s.faults.status_padding);
        drop(s);
        json_reply(v)
    }

    fn look(&self, id: &str) -> Reply {
        let mut s = self.state();
        let mut next_file = s.next;
        let faults = s.faults.clone();
        let output_prefix = s.prefix("output");
        let Some(b) = s.batches.get_mut(id) else {
            return not_found("batch");
        };
        b.looks += 1;
        let mut files = Vec::new();
        match b.status.as_str() {
            "validating" => b.status = "in_progress".into(),
            "in_progress" if b.looks > self.script.polls_in_progress + 1 => {
                b.status = "finalizing".into()
            }
            "in_progress" => {
                let total = b.counts.2;
                b.counts.0 = (total * (b.looks as u64 - 1)
                    / (self.script.polls_in_progress as u64 + 1))
                    .min(total);
            }
            "finalizing" => {
                let answered = b.expire.unwrap_or(usize::MAX);
                files = self.answer(b, answered, "batch_expired", &faults);
                b.status = if b.expire.is_some() {
                    "expired"
                } else {
                    "completed"
                }
                .into();
            }
            "cancelling" => {
                files = self.answer(b, 0, "batch_cancelled", &faults);
                b.status = "cancelled".into();
            }
            _ => {}
        }
        let mut made = Vec::new();
        for (which, text) in files {
            next_file += 1;
            let fid = format!("{output_prefix}file-{next_file}");
            match which {
                0 if faults.completed_without_output && b.status == "completed" => {}
                0 => b.output = Some(fid.clone()),
                _ => b.error = Some(fid.clone()),
            }
            made.push((fid, text));
        }
        if faults.counts_off && b.status == "completed" {
            b.counts.0 = b.counts.0.saturating_sub(1);
        }
        s.files.extend(made);
        s.next = next_file;
        let v = batch_json(id, &s.batches[id], faults.status_padding);
        drop(s);
        json_reply(v)
    }

    fn cancel(&self, id: &str) -> Reply {
        let mut s = self.state();
        let Some(b) = s.batches.get_mut(id) else {
            return not_found("batch");
        };
        if !matches!(
            b.status.as_str(),
            "completed" | "expired" | "failed" | "cancelled"
        ) {
            b.status = "cancelling".into();
        }
        let v = batch_json(id, b, 0);
        drop(s);
        json_reply(v)
    }

    /// The output and error files of `b`: its first `answered` lines
    /// answered, the rest errors with `code`.
    fn answer(
        &self,
        b: &mut Batch,
        answered: usize,
        code: &str,
        faults: &Faults,
    ) -> Vec<(u8, String)> {
        let (mut out, mut err) = (String::new(), String::new());
        let (mut ok, mut failed) = (0, 0);
        for (i, line) in b.input.lines().filter(|l| !l.trim().is_empty()).enumerate() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let custom_id = v["custom_id"].clone();
            if i >= answered {
                failed += 1;
                err.push_str(
                    &json!({"id": format!("req_{i}"), "custom_id": custom_id, "response": null,
                        "error": {"code": code, "message": "the batch ended before this request was answered"}})
                    .to_string(),
                );
                err.push('\n');
                continue;
            }
            let (status, body) = answer_line(&*self.responder, &v["body"], i);
            if (200..300).contains(&status) {
                ok += 1;
            } else {
                failed += 1;
            }
            out.push_str(
                &json!({"id": format!("req_{i}"), "custom_id": custom_id,
                    "response": {"status_code": status, "request_id": format!("r{i}"), "body": body},
                    "error": null})
                .to_string(),
            );
            out.push('\n');
            for t in &faults.tail {
                out.push_str(&tail_line(t, &custom_id, i));
                out.push('\n');
            }
        }
        if faults.output_padding > 0 && !out.is_empty() {
            let pad = "x".repeat(faults.output_padding);
            out.push_str(&json!({"custom_id": "not-jury", "pad": pad}).to_string());
            out.push('\n');
        }
        b.counts.0 = ok;
        b.counts.1 = failed;
        let mut files = Vec::new();
        if !out.is_empty() {
            files.push((0, out));
        }
        if !err.is_empty() {
            files.push((1, err));
        }
        files
    }
}

/// The output file for a request file, every line answered by `responder`
/// (what an engine such as vLLM's run-batch writes).
pub fn answer_file<F>(requests: &str, responder: F) -> String
where
    F: Fn(&RecordedRequest) -> Reply,
{
    let mut out = String::new();
    for (i, line) in requests
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
    {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let (status, body) = answer_line(&responder, &v["body"], i);
        out.push_str(
            &json!({"id": format!("req_{i}"), "custom_id": v["custom_id"],
                "response": {"status_code": status, "body": body}, "error": null})
            .to_string(),
        );
        out.push('\n');
    }
    out
}

/// The status and JSON body `responder` answers `body` with, not streamed.
fn answer_line<F>(responder: &F, body: &Value, i: usize) -> (u16, Value)
where
    F: Fn(&RecordedRequest) -> Reply + ?Sized,
{
    let req = RecordedRequest {
        // Even: LF line ends (not that a whole answer has any).
        seq: i * 2,
        method: "POST".into(),
        path: "/v1/chat/completions".into(),
        headers: vec![],
        body: body.clone(),
    };
    let reply = responder(&req);
    let mut bytes = Vec::new();
    for step in render(&reply, &req) {
        match step {
            Step::Write(b) => bytes.extend(b),
            Step::Repeat(b, n) => (0..n).for_each(|_| bytes.extend_from_slice(&b)),
            Step::Sleep(_) | Step::Close => {}
        }
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(500);
    let payload = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(rest)
    } else {
        rest.to_string()
    };
    let body = serde_json::from_str(&payload).unwrap_or(Value::String(payload));
    (status, body)
}

fn dechunk(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || after.len() < n {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}

/// The `file` part of a multipart body.
fn multipart_file(content_type: &str, body: &str) -> Option<String> {
    let boundary = content_type.split("boundary=").nth(1)?.trim_matches('"');
    let delim = format!("--{boundary}");
    body.split(&delim)
        .find(|part| part.contains("name=\"file\""))
        .and_then(|part| part.split_once("\r\n\r\n"))
        .map(|(_, data)| data.strip_suffix("\r\n").unwrap_or(data).to_string())
}

fn batch_json(id: &str, b: &Batch, padding: usize) -> Value {
    let mut v = json!({
        "id": id,
        "object": "batch",
        "endpoint": "/v1/chat/completions",
        "input_file_id": b.input_file_id,
        "status": b.status,
        "output_file_id": b.output,
        "error_file_id": b.error,
        "completion_window": "24h",
        "metadata": b.metadata,
        "request_counts": {"total": b.counts.2, "completed": b.counts.0, "failed": b.counts.1},
    });
    if padding > 0 {
        v["pad"] = Value::String(" ".repeat(padding));
    }
    v
}

fn json_reply(v: Value) -> Reply {
    Reply::status(200, v.to_string())
}

fn bad(msg: &str) -> Reply {
    Reply::status(
        400,
        json!({"error": {"message": msg, "type": "invalid_request_error"}}).to_string(),
    )
}

fn not_found(what: &str) -> Reply {
    Reply::status(
        404,
        json!({"error": {"message": format!("no such {what}"), "type": "invalid_request_error"}})
            .to_string(),
    )
}

#[cfg(test)]
#[path = "batch_tests.rs"]
mod tests;
