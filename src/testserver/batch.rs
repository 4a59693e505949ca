//! The OpenAI Files and Batches API on the test server: upload (multipart,
//! `purpose=batch`), create, a status that moves on with each look
//! (validating, in_progress, finalizing, completed; or expired, or
//! cancelling then cancelled), output and error files, and cancel. Each
//! line is answered by the same responder as a chat request, not streamed.
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

use super::reply::{Step, render};
use super::{RecordedRequest, Reply};
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
}

#[derive(Default)]
struct State {
    files: HashMap<String, String>,
    batches: HashMap<String, Batch>,
    /// Batch ids in the order they were created.
    created: Vec<String>,
    next: usize,
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
        match (req.method.as_str(), parts.as_slice()) {
            ("POST", [_, "files"]) => self.upload(req),
            ("GET", [_, "files", id, "content"]) => match self.file(id) {
                Some(text) => Reply::Status {
                    code: 200,
                    headers: vec![("content-type".into(), "application/jsonl".into())],
                    body: text,
                },
                None => not_found("file"),
            },
            ("POST", [_, "batches"]) => self.create(req),
            ("GET", [_, "batches", id]) => self.look(id),
            ("POST", [_, "batches", id, "cancel"]) => self.cancel(id),
            _ => (self.responder)(req),
        }
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
            },
        );
        let v = batch_json(&id, &s.batches[&id]);
        drop(s);
        json_reply(v)
    }

    fn look(&self, id: &str) -> Reply {
        let mut s = self.state();
        let mut next_file = s.next;
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
                files = self.answer(b, answered, "batch_expired");
                b.status = if b.expire.is_some() {
                    "expired"
                } else {
                    "completed"
                }
                .into();
            }
            "cancelling" => {
                files = self.answer(b, 0, "batch_cancelled");
                b.status = "cancelled".into();
            }
            _ => {}
        }
        let mut made = Vec::new();
        for (which, text) in files {
            next_file += 1;
            let fid = format!("{output_prefix}file-{next_file}");
            match which {
                0 => b.output = Some(fid.clone()),
                _ => b.error = Some(fid.clone()),
            }
            made.push((fid, text));
        }
        s.files.extend(made);
        s.next = next_file;
        let v = batch_json(id, &s.batches[id]);
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
        let v = batch_json(id, b);
        drop(s);
        json_reply(v)
    }

    /// The output and error files of `b`: its first `answered` lines
    /// answered, the rest errors with `code`.
    fn answer(&self, b: &mut Batch, answered: usize, code: &str) -> Vec<(u8, String)> {
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

fn batch_json(id: &str, b: &Batch) -> Value {
    json!({
        "id": id,
        "object": "batch",
        "endpoint": "/v1/chat/completions",
        "status": b.status,
        "output_file_id": b.output,
        "error_file_id": b.error,
        "completion_window": "24h",
        "request_counts": {"total": b.counts.2, "completed": b.counts.0, "failed": b.counts.1},
    })
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
mod tests {
    use super::*;
    use crate::provider::ProviderConfig;
    use crate::provider::batch::BatchClient;

    fn line(i: usize) -> String {
        json!({"custom_id": format!("jury-1-{i}"), "method": "POST", "url": "/v1/chat/completions",
            "body": {"model": "m", "messages": [{"role": "user", "content": "q"}]}})
        .to_string()
    }

    async fn started(script: BatchScript) -> (super::super::TestServer, BatchClient) {
        let api = BatchApi::new(script, |_| Reply::content("fine"));
        let server = super::super::TestServer::start(move |r| api.reply(r))
            .await
            .expect("start");
        let client =
            BatchClient::new(&ProviderConfig::new(server.base_url(), "m")).expect("client");
        (server, client)
    }

    #[tokio::test]
    async fn a_batch_goes_from_validating_to_completed_with_its_answers() {
        let (_server, client) = started(BatchScript {
            polls_in_progress: 1,
            ..BatchScript::default()
        })
        .await;
        let file = client
            .upload(
                "r.jsonl",
                format!("{}\n{}\n", line(0), line(1)).into_bytes(),
            )
            .await
            .expect("upload");
        let b = client.create(&file).await.expect("create");
        assert_eq!(b.status, "validating");
        let mut seen = vec![b.status.clone()];
        let mut last = b;
        while !last.is_over() {
            last = client.get(&last.id).await.expect("look");
            seen.push(last.status.clone());
        }
        seen.dedup();
        assert_eq!(
            seen,
            ["validating", "in_progress", "finalizing", "completed"]
        );
        assert_eq!(last.counts, (2, 0, 2));
        let out = client
            .download(last.output_file_id.as_deref().expect("an output file"))
            .await
            .expect("download");
        let text = String::from_utf8(out).expect("utf-8");
        let (lines, _) = crate::engine::batch_file::read_answers(&text);
        assert_eq!(lines.len(), 2);
        let body = lines[0].answer.as_ref().expect("answered");
        assert_eq!(body["choices"][0]["message"]["content"], "fine");
    }

    #[tokio::test]
    async fn an_expired_batch_answers_part_and_a_cancelled_one_none() {
        let (_server, client) = started(BatchScript {
            expire_after: Some(1),
            ..BatchScript::default()
        })
        .await;
        let file = client
            .upload(
                "r.jsonl",
                format!("{}\n{}\n", line(0), line(1)).into_bytes(),
            )
            .await
            .expect("upload");
        let mut b = client.create(&file).await.expect("create");
        while !b.is_over() {
            b = client.get(&b.id).await.expect("look");
        }
        assert_eq!(b.status, "expired");
        assert_eq!(b.counts, (1, 1, 2));
        let err = client
            .download(b.error_file_id.as_deref().expect("an error file"))
            .await
            .expect("download");
        assert!(String::from_utf8_lossy(&err).contains("batch_expired"));

        let c = client.create(&file).await.expect("create");
        let c = client.cancel(&c.id).await.expect("cancel");
        assert_eq!(c.status, "cancelling");
        let c = client.get(&c.id).await.expect("look");
        assert_eq!(c.status, "cancelled");
        assert!(c.output_file_id.is_none());
    }
}
