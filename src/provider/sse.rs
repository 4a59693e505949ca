//! An incremental Server-Sent Events parser (WHATWG HTML §9.2 "event stream
//! interpretation").
//!
//! Feed it byte chunks split anywhere — inside a UTF-8 character, between the
//! `\r` and `\n` of a CRLF pair — and it hands back complete events. Lines end
//! with `\n`, `\r\n` or a lone `\r`; lines starting with `:` are comments;
//! several `data:` lines in one event are joined with `\n`; a blank line
//! dispatches the event. A UTF-8 byte-order mark at the very start is skipped.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field, if any (chat-completions streams leave it unset).
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The `id:` field, if any.
    pub id: Option<String>,
}

impl SseEvent {
    /// The OpenAI end-of-stream marker `data: [DONE]`.
    pub fn is_done(&self) -> bool {
        self.data.trim() == "[DONE]"
    }
}

/// Longest line kept in memory; longer lines are cut (a misbehaving server
/// must not exhaust memory). 16 MiB is far beyond any real chunk.
const MAX_LINE: usize = 16 * 1024 * 1024;

#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of the line being read (no terminator).
    line: Vec<u8>,
    /// The previous chunk ended with `\r`: a `\n` at the start of the next
    /// chunk belongs to the same CRLF terminator.
    skip_lf: bool,
    /// Still at the start of the stream (a BOM may follow).
    at_start: bool,
    started: bool,
    data: String,
    has_data: bool,
    event: Option<String>,
    id: Option<String>,
}

impl SseParser {
    pub fn new() -> Self {
        SseParser {
            at_start: true,
            ..Default::default()
        }
    }

    /// Feed the next bytes; returns the events completed by them.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        let mut rest = bytes;
        if self.at_start {
            // Collect up to three bytes to decide about a BOM.
            const BOM: &[u8] = b"\xEF\xBB\xBF";
            while !rest.is_empty() && self.line.len() < 3 && !self.started {
                let b = rest[0];
                if BOM[self.line.len()] == b {
                    self.line.push(b);
                    rest = &rest[1..];
                } else {
                    self.started = true;
                }
            }
            if self.line.len() == 3 {
                self.line.clear();
                self.started = true;
            }
            if !self.started {
                return out; // need more bytes to decide
            }
            self.at_start = false;
        }
        // Whole runs of line bytes are copied at once, up to the next
        // terminator (a stream is mostly long `data:` lines).
        while !rest.is_empty() {
            if self.skip_lf {
                self.skip_lf = false;
                if rest[0] == b'\n' {
                    rest = &rest[1..];
                    continue;
                }
            }
            match memchr::memchr2(b'\n', b'\r', rest) {
                Some(i) => {
                    self.keep(&rest[..i]);
                    self.end_line(&mut out);
                    self.skip_lf = rest[i] == b'\r';
                    rest = &rest[i + 1..];
                }
                None => {
                    self.keep(rest);
                    break;
                }
            }
        }
        out
    }

    /// Appends to the current line, up to [`MAX_LINE`].
    fn keep(&mut self, bytes: &[u8]) {
        let room = MAX_LINE.saturating_sub(self.line.len());
        self.line.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }

    /// The stream ended. Per the spec an unterminated event is discarded; we
    /// are lenient and process a last unterminated line and dispatch what was
    /// collected, so `data: [DONE]` without a final blank line still counts.
    /// A cut-off JSON chunk then simply fails to parse downstream.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let mut out = Vec::new();
        if self.at_start && !self.line.is_empty() {
            // Fewer than three bytes that looked like a BOM prefix: real data.
            self.at_start = false;
        }
        if !self.line.is_empty() {
            self.end_line(&mut out);
        }
        if let Some(ev) = out.pop() {
            return Some(ev);
        }
        self.dispatch()
    }

    fn end_line(&mut self, out: &mut Vec<SseEvent>) {
        // The line buffer is handed back afterwards, so its capacity is reused.
        let mut line = std::mem::take(&mut self.line);
        self.process_line(&line, out);
        line.clear();
        self.line = line;
    }

    fn process_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) {
        if line.is_empty() {
            if let Some(ev) = self.dispatch() {
                out.push(ev);
            }
            return;
        }
        // `from_utf8` validates ASCII a word at a time; the lossy walk is for
        // the rare line that is not UTF-8.
        let text = match std::str::from_utf8(line) {
            Ok(t) => std::borrow::Cow::Borrowed(t),
            Err(_) => String::from_utf8_lossy(line),
        };
        if text.starts_with(':') {
            return; // comment
        }
        let (field, value) = match text.find(':') {
            Some(i) => {
                let v = &text[i + 1..];
                (&text[..i], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (&text[..], ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_string()),
            "id" if !value.contains('\0') => self.id = Some(value.to_string()),
            _ => {} // `retry` and unknown fields: ignored
        }
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = self.event.take();
        if !self.has_data {
            return None;
        }
        self.has_data = false;
        Some(SseEvent {
            event,
            data: std::mem::take(&mut self.data),
            id: self.id.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(p.feed(c));
        }
        out.extend(p.finish());
        out
    }

    fn datas(evs: &[SseEvent]) -> Vec<&str> {
        evs.iter().map(|e| e.data.as_str()).collect()
    }

    #[test]
    fn basic_lf() {
        let evs = all(&[b"data: {\"a\":1}\n\ndata: [DONE]\n\n"]);
        assert_eq!(datas(&evs), vec!["{\"a\":1}", "[DONE]"]);
        assert!(evs[1].is_done());
    }

    #[test]
    fn crlf_and_cr_line_ends() {
        let evs = all(&[b"data: a\r\n\r\ndata: b\r\rdata: c\n\n"]);
        assert_eq!(datas(&evs), vec!["a", "b", "c"]);
    }

    #[test]
    fn comments_skipped_and_multiline_data_joined() {
        let evs = all(&[b": keep-alive\n\ndata: line1\ndata:line2\n: mid comment\ndata\n\n"]);
        assert_eq!(datas(&evs), vec!["line1\nline2\n"]);
    }

    #[test]
    fn event_and_id_fields() {
        let evs = all(&[b"event: error\nid: 7\ndata: x\n\nevent: lonely\n\ndata: y\n\n"]);
        assert_eq!(evs[0].event.as_deref(), Some("error"));
        assert_eq!(evs[0].id.as_deref(), Some("7"));
        // An event without data is not dispatched and its type does not leak.
        assert_eq!(evs[1].event, None);
        assert_eq!(evs[1].data, "y");
        assert_eq!(evs[1].id.as_deref(), Some("7"));
    }

    #[test]
    fn bom_skipped_and_unterminated_tail() {
        let evs = all(&[b"\xEF\xBB", b"\xBFdata: a\n\ndata: [DONE]"]);
        assert_eq!(datas(&evs), vec!["a", "[DONE]"]);
    }

    #[test]
    fn no_space_after_colon_and_extra_spaces_kept() {
        let evs = all(&[b"data:x\n\ndata:  y\n\n"]);
        assert_eq!(datas(&evs), vec!["x", " y"]);
    }

    #[test]
    fn every_split_point_gives_same_events() {
        let stream =
            ": keep-alive\r\n\r\ndata: {\"c\":\"h\u{e9}llo \u{1F600} \u{4e16}\u{754c}\"}\r\n\r\n\
                      data: part1\ndata: part2\n\ndata: r\r\rdata: [DONE]\r\n\r\n"
                .as_bytes();
        let whole = all(&[stream]);
        assert_eq!(whole.len(), 4);
        assert_eq!(
            whole[0].data,
            "{\"c\":\"h\u{e9}llo \u{1F600} \u{4e16}\u{754c}\"}"
        );
        assert_eq!(whole[1].data, "part1\npart2");
        for i in 0..=stream.len() {
            let got = all(&[&stream[..i], &stream[i..]]);
            assert_eq!(got, whole, "split at {i}");
            for j in i..=stream.len() {
                let got = all(&[&stream[..i], &stream[i..j], &stream[j..]]);
                assert_eq!(got, whole, "split at {i},{j}");
            }
        }
        // One byte at a time.
        let mut p = SseParser::new();
        let mut got = Vec::new();
        for b in stream {
            got.extend(p.feed(std::slice::from_ref(b)));
        }
        got.extend(p.finish());
        assert_eq!(got, whole);
    }

    #[test]
    fn short_stream_that_starts_like_bom() {
        let evs = all(&[b"\xEF"]);
        assert!(evs.is_empty());
        let evs = all(&[b"d", b"ata: a\n\n"]);
        assert_eq!(datas(&evs), vec!["a"]);
    }
}
