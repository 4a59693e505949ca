//! The OpenAI Files and Batches API, as far as a batch run needs it: upload
//! a request file (`POST /files`, multipart, `purpose=batch`), create a batch
//! (`POST /batches`), read its status (`GET /batches/{id}`), download a file
//! (`GET /files/{id}/content`) and cancel (`POST /batches/{id}/cancel`).

use super::{ProviderConfig, ProviderError};
use serde_json::{Value, json};
use std::time::Duration;

/// The chat-completions path every line of a batch file posts to.
pub const ENDPOINT: &str = "/v1/chat/completions";

/// A batch as the server describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchState {
    pub id: String,
    pub status: String,
    pub output_file_id: Option<String>,
    pub error_file_id: Option<String>,
    /// `(completed, failed, total)` from `request_counts`.
    pub counts: (u64, u64, u64),
}

impl BatchState {
    /// The batch `v` describes; its ids and status are untrusted text,
    /// checked against the run's `secrets` ([`super::batch_ids`]).
    fn from_json(v: &Value, secrets: &super::Secrets) -> Result<BatchState, ProviderError> {
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("the batch has no id", v, secrets))?;
        let s = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
        let n = |k: &str| v["request_counts"][k].as_u64().unwrap_or(0);
        let file = |k: &str| {
            s(k).map(|f| super::batch_ids::checked_id("file id", &f, secrets))
                .transpose()
        };
        Ok(BatchState {
            id: super::batch_ids::checked_id("batch id", id, secrets)?,
            status: super::batch_ids::checked_status(
                &s("status").unwrap_or_else(|| "unknown".into()),
                secrets,
            ),
            output_file_id: file("output_file_id")?,
            error_file_id: file("error_file_id")?,
            counts: (n("completed"), n("failed"), n("total")),
        })
    }

    /// No further change will come (what was answered can be read).
    pub fn is_over(&self) -> bool {
        matches!(
            self.status.as_str(),
            "completed" | "failed" | "expired" | "cancelled"
        )
    }

    /// `request_counts` as stored with the run.
    pub fn counts_json(&self) -> String {
        let (completed, failed, total) = self.counts;
        json!({"completed": completed, "failed": failed, "total": total}).to_string()
    }
}

fn malformed(what: &str, v: &Value, secrets: &super::Secrets) -> ProviderError {
    ProviderError::Config(format!(
        "{what}: {}",
        crate::sanitize::one_line(&super::errtext::redact(&v.to_string(), secrets), 200)
    ))
}

/// A client of one server's Files and Batches API.
pub struct BatchClient {
    http: reqwest::Client,
    /// `…/v1`, no trailing slash.
    root: String,
    key: Option<super::Secret>,
    /// Every credential of the run, redacted from what comes back.
    secrets: super::Secrets,
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
        })
    }

    fn with_key(&self, r: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match &self.key {
            Some(k) => r.bearer_auth(k.expose()),
            None => r,
        }
    }

    async fn send(&self, r: reqwest::RequestBuilder, what: &str) -> Result<Vec<u8>, ProviderError> {
        let resp = self
            .with_key(r)
            .send()
            .await
            .map_err(|e| self.fault(what, &super::transport::transport_text(&e)))?;
        let status = resp.status().as_u16();
        let body = resp
            .bytes()
            .await
            .map_err(|e| self.fault(what, &super::transport::transport_text(&e)))?;
        if !(200..300).contains(&status) {
            let text = super::errtext::body_message(&body, None, &self.secrets);
            return Err(self.fault(what, &format!("HTTP {status}: {text}")));
        }
        Ok(body.to_vec())
    }

    fn fault(&self, what: &str, detail: &str) -> ProviderError {
        let text = super::errtext::redact(&format!("{what}: {detail}"), &self.secrets);
        ProviderError::Config(text)
    }

    async fn json(&self, r: reqwest::RequestBuilder, what: &str) -> Result<Value, ProviderError> {
        let body = self.send(r, what).await?;
        serde_json::from_slice(&body).map_err(|_| {
            self.fault(
                what,
                &format!(
                    "the answer was not JSON: {}",
                    crate::sanitize::one_line(
                        &super::errtext::redact(&String::from_utf8_lossy(&body), &self.secrets),
                        200
                    )
                ),
            )
        })
    }

    /// Uploads `bytes` as `name` for a batch; returns the file's id.
    pub async fn upload(&self, name: &str, bytes: Vec<u8>) -> Result<String, ProviderError> {
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
        body.extend_from_slice(&bytes);
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
        let id = v
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| malformed("the uploaded file has no id", &v, &self.secrets))?;
        super::batch_ids::checked_id("file id", id, &self.secrets)
    }

    /// Creates a batch of the uploaded `input_file_id`.
    pub async fn create(&self, input_file_id: &str) -> Result<BatchState, ProviderError> {
        let r = self
            .http
            .post(format!("{}/batches", self.root))
            .json(&json!({
                "input_file_id": input_file_id,
                "endpoint": ENDPOINT,
                "completion_window": "24h",
            }));
        BatchState::from_json(&self.json(r, "creating the batch").await?, &self.secrets)
    }

    pub async fn get(&self, batch_id: &str) -> Result<BatchState, ProviderError> {
        let r = self.http.get(format!("{}/batches/{batch_id}", self.root));
        BatchState::from_json(
            &self.json(r, "reading the batch's status").await?,
            &self.secrets,
        )
    }

    pub async fn cancel(&self, batch_id: &str) -> Result<BatchState, ProviderError> {
        let r = self
            .http
            .post(format!("{}/batches/{batch_id}/cancel", self.root));
        BatchState::from_json(&self.json(r, "cancelling the batch").await?, &self.secrets)
    }

    /// A file's content.
    pub async fn download(&self, file_id: &str) -> Result<Vec<u8>, ProviderError> {
        let r = self
            .http
            .get(format!("{}/files/{file_id}/content", self.root));
        self.send(r, "downloading the batch's answers").await
    }
}

fn rand_u64() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    crate::rng::splitmix64(t ^ u64::from(std::process::id()))
}
