//! The batch file format (the OpenAI Batch API's, which vLLM's `run-batch`
//! reads too): one request a line, `{custom_id, method, url, body}`; answers
//! one a line, `{id, custom_id, response: {status_code, body}, error}`.

use crate::provider::batch::ENDPOINT;
use crate::provider::{ChatCall, ProviderConfig, ToolMode};
use serde_json::{Value, json};

/// Most lines one batch file may hold (the Batch API's limit).
pub const MAX_LINES: usize = 50_000;
/// Most bytes one batch file may hold (the Batch API's 200 MB).
pub const MAX_BYTES: usize = 200 * 1000 * 1000;

/// `jury-<run id>-<request index>`: which run, and which of its requests.
pub fn custom_id(run_id: i64, idx: u32) -> String {
    format!("jury-{run_id}-{idx}")
}

/// The run and request a custom id names, when it is one of jury's.
pub fn parse_custom_id(id: &str) -> Option<(i64, u32)> {
    let rest = id.strip_prefix("jury-")?;
    let (run, idx) = rest.split_once('-')?;
    Some((run.parse().ok()?, idx.parse().ok()?))
}

/// One request line: the body a streamed run would send, not streamed.
pub fn request_line(
    cfg: &ProviderConfig,
    mode: ToolMode,
    call: &ChatCall,
    run_id: i64,
    idx: u32,
) -> String {
    let mut cfg = cfg.clone();
    cfg.stream = false;
    let body = crate::provider::request_body(&cfg, call, mode);
    json!({
        "custom_id": custom_id(run_id, idx),
        "method": "POST",
        "url": ENDPOINT,
        "body": body,
    })
    .to_string()
}

/// Lines cut into files of at most [`MAX_LINES`] lines and `max_bytes`
/// bytes; returns each line's part (from 1) and the files' texts.
pub fn split(lines: &[String], max_bytes: usize) -> (Vec<u32>, Vec<String>) {
    let mut parts = Vec::with_capacity(lines.len());
    let mut files: Vec<String> = vec![String::new()];
    let mut count = 0;
    for l in lines {
        let cur = files.last().map_or(0, String::len);
        if count > 0 && (count >= MAX_LINES || cur + l.len() + 1 > max_bytes) {
            files.push(String::new());
            count = 0;
        }
        if let Some(f) = files.last_mut() {
            f.push_str(l);
            f.push('\n');
        }
        count += 1;
        parts.push(files.len() as u32);
    }
    (parts, files)
}

/// The files a part is written to: `requests.jsonl`, `requests-2.jsonl`, …
pub fn part_path(out: &std::path::Path, part: u32) -> std::path::PathBuf {
    if part <= 1 {
        return out.to_path_buf();
    }
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match out.extension() {
        Some(ext) => format!("{stem}-{part}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{part}"),
    };
    out.with_file_name(name)
}

/// One answer line as read.
#[derive(Debug, Clone)]
pub struct AnswerLine {
    pub run_id: i64,
    pub idx: u32,
    /// `Ok(body)`: a 2xx answer's body; `Err((status, message))` otherwise.
    pub answer: Result<Value, (u16, String)>,
}

/// The answer lines of `text` that name a jury request; the others (blank,
/// unreadable, foreign custom ids) are counted in the second value.
pub fn read_answers(text: &str) -> (Vec<AnswerLine>, usize) {
    let mut out = Vec::new();
    let mut skipped = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match answer_line(line) {
            Some(a) => out.push(a),
            None => skipped += 1,
        }
    }
    (out, skipped)
}

/// One line of an answer file, when it names a jury request.
pub fn answer_line(line: &str) -> Option<AnswerLine> {
    let v = serde_json::from_str::<Value>(line).ok()?;
    let (run_id, idx) = v
        .get("custom_id")
        .and_then(Value::as_str)
        .and_then(parse_custom_id)?;
    Some(AnswerLine {
        run_id,
        idx,
        answer: answer_of(&v),
    })
}

/// The longest answer line read: twice the largest streamed answer read
/// ([`crate::provider::DEFAULT_MAX_ANSWER_BYTES`], 8 MB), for the line's
/// own JSON around it; a longer one is skipped without being held.
pub const MAX_LINE: usize = 2 * crate::provider::DEFAULT_MAX_ANSWER_BYTES;

/// The answer lines of a file, read one at a time: memory holds one line,
/// never the file.
pub struct AnswerLines<R> {
    r: R,
    buf: Vec<u8>,
    /// Lines that were not jury's answers (blank ones aside), or too long.
    pub skipped: usize,
}

impl<R: std::io::BufRead> AnswerLines<R> {
    pub fn new(r: R) -> Self {
        AnswerLines {
            r,
            buf: Vec::new(),
            skipped: 0,
        }
    }

    /// The next line that names a jury request; `None` at the end.
    pub fn next_answer(&mut self) -> std::io::Result<Option<AnswerLine>> {
        use std::io::{BufRead, Read};
        loop {
            self.buf.clear();
            let n = (&mut self.r)
                .take(MAX_LINE as u64 + 1)
                .read_until(b'\n', &mut self.buf)?;
            if n == 0 {
                return Ok(None);
            }
            if self.buf.len() > MAX_LINE && self.buf.last() != Some(&b'\n') {
                // The rest of an overlong line, dropped as it is read.
                self.skipped += 1;
                loop {
                    let chunk = self.r.fill_buf()?;
                    if chunk.is_empty() {
                        break;
                    }
                    match chunk.iter().position(|b| *b == b'\n') {
                        Some(i) => {
                            self.r.consume(i + 1);
                            break;
                        }
                        None => {
                            let all = chunk.len();
                            self.r.consume(all);
                        }
                    }
                }
                continue;
            }
            let line = String::from_utf8_lossy(&self.buf);
            if line.trim().is_empty() {
                continue;
            }
            match answer_line(&line) {
                Some(a) => return Ok(Some(a)),
                None => self.skipped += 1,
            }
        }
    }
}

fn answer_of(v: &Value) -> Result<Value, (u16, String)> {
    let resp = v.get("response").filter(|r| !r.is_null());
    let status = resp
        .and_then(|r| r.get("status_code"))
        .and_then(Value::as_u64)
        .map(|s| s as u16);
    if let Some(e) = v.get("error").filter(|e| !e.is_null()) {
        return Err((status.unwrap_or(500), error_text(e)));
    }
    let Some(resp) = resp else {
        return Err((500, "the line has neither a response nor an error".into()));
    };
    let body = resp.get("body").cloned().unwrap_or(Value::Null);
    match status {
        Some(s) if (200..300).contains(&s) => Ok(body),
        Some(s) => Err((s, error_text(body.get("error").unwrap_or(&body)))),
        None => Err((500, "the response has no status_code".into())),
    }
}

fn error_text(e: &Value) -> String {
    let msg = e
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| e.to_string());
    match e.get("code").and_then(Value::as_str) {
        Some(code) => format!("{code}: {msg}"),
        None => msg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn custom_ids_round_trip() {
        assert_eq!(parse_custom_id(&custom_id(12, 345)), Some((12, 345)));
        assert_eq!(parse_custom_id("request-1"), None);
        assert_eq!(parse_custom_id("jury-x-1"), None);
    }

    #[test]
    fn files_are_cut_by_lines_and_bytes() {
        let lines: Vec<String> = (0..5).map(|i| format!("line{i}")).collect();
        let (parts, files) = split(&lines, 13);
        assert_eq!(parts, vec![1, 1, 2, 2, 3]);
        assert_eq!(files, vec!["line0\nline1\n", "line2\nline3\n", "line4\n"]);
        let out = std::path::Path::new("/tmp/requests.jsonl");
        assert_eq!(part_path(out, 1), out);
        assert_eq!(
            part_path(out, 2),
            std::path::Path::new("/tmp/requests-2.jsonl")
        );
    }

    #[test]
    fn answers_and_errors_are_read() {
        let text = concat!(
            r#"{"id":"r1","custom_id":"jury-3-0","response":{"status_code":200,"body":{"choices":[]}},"error":null}"#,
            "\n",
            r#"{"id":"r2","custom_id":"jury-3-1","response":{"status_code":400,"body":{"error":{"message":"bad"}}},"error":null}"#,
            "\n",
            r#"{"id":"r3","custom_id":"jury-3-2","response":null,"error":{"code":"batch_expired","message":"expired"}}"#,
            "\nnot json\n",
        );
        let (lines, skipped) = read_answers(text);
        assert_eq!(skipped, 1);
        assert_eq!(lines.len(), 3);
        assert!(lines[0].answer.is_ok());
        assert_eq!(lines[1].answer, Err((400, "bad".into())));
        assert_eq!(lines[2].answer, Err((500, "batch_expired: expired".into())));
        // Read one line at a time, the same.
        let mut r = AnswerLines::new(std::io::Cursor::new(text.as_bytes()));
        let mut n = 0;
        while let Some(a) = r.next_answer().expect("read") {
            assert_eq!(a.idx, n);
            n += 1;
        }
        assert_eq!((n, r.skipped), (3, 1));
    }
}
