//! The OpenAI Files and Batches API, as far as a batch run needs it: upload
//! a request file (`POST /files`, multipart, `purpose=batch`), create a batch
//! (`POST /batches`), find one whose create answer never came (`GET
//! /batches`), read its status (`GET /batches/{id}`), download a file (`GET
//! /files/{id}/content`, streamed to disk) and cancel (`POST
//! /batches/{id}/cancel`).
//!
//! Every answer is untrusted: a body past its cap is not read, a redirect
//! to another origin is not followed (the request file, and the key, stay
//! with the server they were meant for), and a failure says whether waiting
//! may fix it ([`ApiFault::Passing`]) or not.

mod patience;
mod state;

pub use patience::{Patience, words};
pub use state::BatchState;

use super::{ProviderConfig, ProviderError};
use serde_json::{Value, json};
use state::malformed;
use std::io::Write;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The chat-completions path every line of a batch file posts to.
pub const ENDPOINT: &str = "/v1/chat/completions";

/// How long a cancel may take before the batch is left as it is.
pub const CANCEL_WITHIN: Duration = Duration::from_secs(5);

/// Why a call of the Batch API failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ApiFault {
    /// A 5xx, a 429, a dropped connection or a timeout: waiting may fix it.
    #[error("{0}")]
    Passing(String),
    /// Anything else: a refusal, a redirect to another origin, an answer
    /// past its cap or unreadable, or a passing fault that lasted.
    #[error("{0}")]
    Lasting(String),
    /// The run was interrupted during the call.
    #[error("cancelled")]
    Cancelled,
}

/// The largest answers read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Limits {
    /// A batch's status, a file's id, an error: small JSON.
    pub status_bytes: usize,
    /// A list of batches (a page of at most 100).
    pub list_bytes: usize,
    /// An output or error file, written to disk as it comes.
    pub download_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            status_bytes: 1 << 20,
            list_bytes: 8 << 20,
            download_bytes: 4 << 30,
        }
    }
}

/// Largest error body read (the message keeps far less).
const MAX_ERROR_BODY: usize = 64 * 1024;

/// A client of one server's Files and Batches API.
pub struct BatchClient {
    http: reqwest::Client,
    /// `…/v1`, no trailing slash.
    root: String,
    key: Option<super::Secret>,
    /// Every credential of the run, redacted from what comes back.
    secrets: super::Secrets,
    limits: Limits,
    patience: Patience,
    /// Cancelled: every call but [`BatchClient::cancel`] ends at once.
    stop: CancellationToken,
}

impl BatchClient {
    pub fn new(cfg: &ProviderConfig) -> Result<BatchClient, ProviderError> {
        let endpoint = super::client::endpoint_url(&cfg.base_url)?;
        let root = endpoint
            .as_str()
            .trim_end_matches("/chat/completions")
            .trim_end_matches('/')
            .to_string();
        let mut b = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .timeout(Duration::from_secs(600))
            // Same-origin 307/308 only: a redirect elsewhere would carry
            // the request file and the key to another server.
            .redirect(super::transport::redirect_policy())
            .user_agent(concat!("jury/", env!("CARGO_PKG_VERSION")));
        if super::url::is_loopback(&endpoint) {
            b = b.no_proxy();
        }
        let http = b
            .build()
            .map_err(|e| ProviderError::Config(format!("cannot set up HTTP: {e}")))?;
        Ok(BatchClient {
            http,
            root,
            key: cfg.sent_key().cloned(),
            secrets: super::Secrets::of(cfg),
            limits: Limits::default(),
            patience: Patience::default(),
            stop: CancellationToken::new(),
        })
    }

    pub fn with_limits(mut self, limits: Limits) -> BatchClient {
        self.limits = limits;
        self
    }

    pub fn with_patience(mut self, patience: Patience) -> BatchClient {
        self.patience = patience;
        self
    }

    /// Calls end (as [`ApiFault::Cancelled`]) once `stop` is cancelled.
    pub fn with_stop(mut self, stop: CancellationToken) -> BatchClient {
        self.stop = stop;
        self
    }

    pub fn patience(&self) -> Patience {
        self.patience
    }

    fn with_key(&self, r: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.key {
            Some(k) => r.bearer_auth(k.expose()),
            None => r,
        }
    }

    fn text(&self, what: &str, detail: &str) -> String {
        super::errtext::redact(&format!("{what}: {detail}"), &self.secrets)
    }

    /// Sends `r`; a 2xx answer's head, or why not.
    async fn respond(
        &self,
        r: reqwest::RequestBuilder,
        what: &str,
        stop: &CancellationToken,
    ) -> Result<reqwest::Response, ApiFault> {
        let sent = self.with_key(r).send();
        let resp = tokio::select! {
            _ = stop.cancelled() => return Err(ApiFault::Cancelled),
            r = sent => r,
        }
        .map_err(|e| ApiFault::Passing(self.text(what, &super::transport::transport_text(&e))))?;
        let status = resp.status();
        if status.is_redirection() {
            let to = resp
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(super::url::shown)
                .unwrap_or_else(|| "(no Location)".into());
            let to = super::errtext::clean(&to, &self.secrets);
            return Err(ApiFault::Lasting(self.text(
                what,
                &format!(
                    "the server redirected (HTTP {}) to {to}; jury does not follow a Batch API call to another origin",
                    status.as_u16()
                ),
            )));
        }
        if !status.is_success() {
            let code = status.as_u16();
            let body = self
                .read_capped(resp, MAX_ERROR_BODY, what, stop)
                .await
                .unwrap_or_default();
            let text = super::errtext::body_message(&body, None, &self.secrets);
            let msg = self.text(what, &format!("HTTP {code}: {text}"));
            return Err(if code == 429 || code == 408 || code >= 500 {
                ApiFault::Passing(msg)
            } else {
                ApiFault::Lasting(msg)
            });
        }
        Ok(resp)
    }

    /// The body of `resp`, read as it comes and refused past `cap` bytes.
    async fn read_capped(
        &self,
        mut resp: reqwest::Response,
        cap: usize,
        what: &str,
        stop: &CancellationToken,
    ) -> Result<Vec<u8>, ApiFault> {
        let too_large = || {
            ApiFault::Lasting(self.text(
                what,
                &format!("the answer is larger than {cap} bytes; it was not read"),
            ))
        };
        if resp.content_length().is_some_and(|n| n > cap as u64) {
            return Err(too_large());
        }
        let mut body = Vec::new();
        loop {
            let chunk = tokio::select! {
                _ = stop.cancelled() => return Err(ApiFault::Cancelled),
                c = resp.chunk() => c,
            }
            .map_err(|e| {
                ApiFault::Passing(self.text(what, &super::transport::transport_text(&e)))
            })?;
            let Some(chunk) = chunk else {
                return Ok(body);
            };
            if body.len() + chunk.len() > cap {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
    }

    async fn json_capped(
        &self,
        r: reqwest::RequestBuilder,
        what: &str,
        cap: usize,
    ) -> Result<Value, ApiFault> {
        let resp = self.respond(r, what, &self.stop).await?;
        let body = self.read_capped(resp, cap, what, &self.stop).await?;
        serde_json::from_slice(&body).map_err(|_| {
            ApiFault::Lasting(self.text(
                what,
                &format!(
                    "the answer was not JSON: {}",
                    crate::sanitize::one_line(
                        &super::errtext::redact(&String::from_utf8_lossy(&body), &self.secrets),
                        200
                    )
                ),
            ))
        })
    }

    async fn json(&self, r: reqwest::RequestBuilder, what: &str) -> Result<Value, ApiFault> {
        self.json_capped(r, what, self.limits.status_bytes).await
    }

    fn state(&self, v: &Value) -> Result<BatchState, ApiFault> {
        BatchState::from_json(v, &self.secrets)
            .map_err(|e| ApiFault::Lasting(self.text("the batch", &e.to_string())))
    }

    /// Uploads `bytes` as `name` for a batch; returns the file's id.
    pub async fn upload(&self, name: &str, bytes: &[u8]) -> Result<String, ApiFault> {
        let boundary = format!("jury-{:016x}", rand_u64());
        let mut body = Vec::with_capacity(bytes.len() + 512);
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"purpose\"\r\n\r\nbatch\r\n\
                 --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
                 Content-Type: application/jsonl\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let r = self
            .http
            .post(format!("{}/files", self.root))
            .header(
                "content-type",
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(body);
        let v = self.json(r, "uploading the batch file").await?;
        let lasting = |e: ProviderError| ApiFault::Lasting(e.to_string());
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| lasting(malformed("the uploaded file has no id", &v, &self.secrets)))?;
        super::batch_ids::checked_id("file id", id, &self.secrets).map_err(lasting)
    }

    /// Creates a batch of the uploaded `input_file_id`, `tag` (jury's run and
    /// part) in its metadata for whoever lists the account's batches.
    pub async fn create(&self, input_file_id: &str, tag: &str) -> Result<BatchState, ApiFault> {
        let r = self
            .http
            .post(format!("{}/batches", self.root))
            .json(&json!({
                "input_file_id": input_file_id,
                "endpoint": ENDPOINT,
                "completion_window": "24h",
                "metadata": {"jury_run": tag},
            }));
        self.state(&self.json(r, "creating the batch").await?)
    }

    /// The batch created from `input_file_id`, when there is one: a create
    /// whose answer never came may have made it. Pages through the
    /// account's batches (newest first) for at most `pages` pages of 100.
    pub async fn find(
        &self,
        input_file_id: &str,
        pages: usize,
    ) -> Result<Option<BatchState>, ApiFault> {
        let mut after: Option<String> = None;
        for _ in 0..pages {
            let mut r = self
                .http
                .get(format!("{}/batches", self.root))
                .query(&[("limit", "100")]);
            if let Some(a) = &after {
                r = r.query(&[("after", a.as_str())]);
            }
            let v = self
                .json_capped(r, "listing the batches", self.limits.list_bytes)
                .await?;
            let data = v.get("data").and_then(Value::as_array);
            for b in data.into_iter().flatten() {
                if b.get("input_file_id").and_then(Value::as_str) == Some(input_file_id) {
                    return self.state(b).map(Some);
                }
            }
            let more = v.get("has_more").and_then(Value::as_bool) == Some(true);
            after = data
                .and_then(|d| d.last())
                .and_then(|b| b.get("id"))
                .and_then(Value::as_str)
                .map(str::to_string);
            if !more || after.is_none() {
                break;
            }
        }
        Ok(None)
    }

    pub async fn get(&self, batch_id: &str) -> Result<BatchState, ApiFault> {
        let r = self.http.get(format!("{}/batches/{batch_id}", self.root));
        self.state(&self.json(r, "reading the batch's status").await?)
    }

    /// Asks the server to cancel; given up after [`CANCEL_WITHIN`] (the
    /// batch is then left as it is). Not stopped by the client's stop: it
    /// is what an interrupted run does last.
    pub async fn cancel(&self, batch_id: &str) -> Result<BatchState, ApiFault> {
        let r = self
            .http
            .post(format!("{}/batches/{batch_id}/cancel", self.root))
            .timeout(CANCEL_WITHIN);
        let what = "cancelling the batch";
        let asked = async {
            let never = CancellationToken::new();
            let resp = self.respond(r, what, &never).await?;
            let body = self
                .read_capped(resp, self.limits.status_bytes, what, &never)
                .await?;
            serde_json::from_slice::<Value>(&body)
                .map_err(|_| ApiFault::Lasting(self.text(what, "the answer was not JSON")))
        };
        match tokio::time::timeout(CANCEL_WITHIN, asked).await {
            Ok(v) => self.state(&v?),
            Err(_) => Err(ApiFault::Passing(
                self.text(what, &format!("no answer within {}", words(CANCEL_WITHIN))),
            )),
        }
    }

    /// Writes file `file_id`'s content to `to` as it comes (never held
    /// whole in memory); refused past [`Limits::download_bytes`]. Returns
    /// the bytes written.
    pub async fn download_to(&self, file_id: &str, to: &std::path::Path) -> Result<u64, ApiFault> {
        let what = "downloading the batch's answers";
        let r = self
            .http
            .get(format!("{}/files/{file_id}/content", self.root));
        let mut resp = self.respond(r, what, &self.stop).await?;
        let cap = self.limits.download_bytes;
        let too_large = || {
            ApiFault::Lasting(self.text(
                what,
                &format!("the file is larger than {cap} bytes; it was not read"),
            ))
        };
        if resp.content_length().is_some_and(|n| n > cap) {
            return Err(too_large());
        }
        let disk = |e: std::io::Error| {
            ApiFault::Lasting(self.text(what, &format!("cannot write {}: {e}", to.display())))
        };
        let mut out = std::io::BufWriter::new(std::fs::File::create(to).map_err(disk)?);
        let mut written = 0u64;
        loop {
            let chunk = tokio::select! {
                _ = self.stop.cancelled() => return Err(ApiFault::Cancelled),
                c = resp.chunk() => c,
            }
            .map_err(|e| {
                ApiFault::Passing(self.text(what, &super::transport::transport_text(&e)))
            })?;
            let Some(chunk) = chunk else { break };
            written += chunk.len() as u64;
            if written > cap {
                return Err(too_large());
            }
            out.write_all(&chunk).map_err(disk)?;
        }
        out.flush().map_err(disk)?;
        Ok(written)
    }

    /// `call`, held through passing failures as [`Patience::hold`] says.
    pub async fn patiently<T, F, Fut>(
        &self,
        call: F,
        on_retry: impl FnMut(&str, Duration),
    ) -> Result<T, ApiFault>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = Result<T, ApiFault>>,
    {
        self.patience.hold(&self.stop, call, on_retry).await
    }
}

fn rand_u64() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    crate::rng::splitmix64(t ^ u64::from(std::process::id()))
}
