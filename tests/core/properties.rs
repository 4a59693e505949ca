//! Property tests with a small seeded generator (no extra dependency): every
//! case is reproducible from its printed seed. `JURY_PROPTEST_CASES` raises
//! the number of cases for a longer local soak.
//!
//! - arbitrary splits of a valid SSE stream reassemble to the same frames and Completion;
//! - arbitrary bytes into the SSE parser, the accumulator, `parse_prefix` and
//!   every importer never panic;
//! - every prefix of a valid tool-arguments document parses with `parse_prefix`.

use jury::provider::accumulate::Accumulator;
use jury::provider::partial_json::parse_prefix;
use jury::provider::sse::SseParser;
use jury::provider::{Completion, StreamFrame};
use jury::rng::SplitMix64;
use serde_json::{Value, json};

/// jury's splitmix64, with the draws the generators below need.
struct Rng(SplitMix64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed))
    }
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }
    fn below(&mut self, n: usize) -> usize {
        self.0.below(n as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// The generator's draws, pinned: a printed seed must replay the same case.
#[test]
fn the_generator_draws_are_pinned() {
    let mut rng = Rng::new(0x5eed_0000);
    assert_eq!(
        [rng.next(), rng.next(), rng.next()],
        [
            0x1cc1_52e4_7d17_4d3c,
            0x7f9b_63db_efc7_1284,
            0xd048_e398_e6ed_eb3e
        ]
    );
}

fn cases(default: usize) -> usize {
    std::env::var("JURY_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs `f` for each seed; a panic names the seed to replay.
fn for_seeds(name: &str, n: usize, f: impl Fn(&mut Rng) + std::panic::RefUnwindSafe) {
    for seed in 0..n as u64 {
        let r = std::panic::catch_unwind(|| f(&mut Rng::new(seed ^ 0x5eed_0000)));
        if let Err(e) = r {
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            panic!("{name}: failed for seed {seed}: {msg}");
        }
    }
}

const PIECES: &[&str] = &[
    "a",
    "é",
    "漢",
    "😀",
    "\"",
    "\\",
    "\\\"",
    "\n",
    "\r\n",
    " ",
    "{",
    "}",
    "[",
    "]",
    ":",
    ",",
    "0",
    "-1.5e3",
    "true",
    "null",
    "\u{1b}[2J",
    "\u{202e}",
    "\u{0301}",
    "data: ",
    "[DONE]",
    "<<<",
];

fn random_text(rng: &mut Rng, max: usize) -> String {
    let n = rng.below(max + 1);
    (0..n).map(|_| *rng.pick(PIECES)).collect()
}

fn random_bytes(rng: &mut Rng, max: usize) -> Vec<u8> {
    let n = rng.below(max + 1);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        if rng.chance(40) {
            out.extend_from_slice(rng.pick(PIECES).as_bytes());
        } else {
            out.push(rng.next() as u8);
        }
    }
    out
}

/// A random JSON value of bounded depth with awkward strings and numbers.
fn random_json(rng: &mut Rng, depth: usize) -> Value {
    let leaf = depth == 0 || rng.chance(35);
    if leaf {
        return match rng.below(7) {
            0 => Value::Null,
            1 => json!(rng.chance(50)),
            2 => json!(rng.next() as i64),
            3 => json!(f64::from_bits(rng.next()))
                .as_f64()
                .map_or(json!(1.5), |f| json!(f)),
            4 => json!(rng.below(10)),
            _ => json!(random_text(rng, 12)),
        };
    }
    const KEYS: &[&str] = &[
        "itemId",
        "id",
        "title",
        "summary",
        "text",
        "sent",
        "source",
        "tags",
        "classifications",
        "name",
        "desc",
        "available",
        "selected",
        "definition",
        "perspectiveId",
        "perspectiveText",
        "value",
        "classificationId",
        "who",
        "note",
        "type",
        "originator",
        "personaId",
        "scale",
    ];
    if rng.chance(30) {
        let n = rng.below(4);
        Value::Array((0..n).map(|_| random_json(rng, depth - 1)).collect())
    } else {
        let n = rng.below(7);
        let mut m = serde_json::Map::new();
        for _ in 0..n {
            let k = if rng.chance(85) {
                rng.pick(KEYS).to_string()
            } else {
                random_text(rng, 4)
            };
            m.insert(k, random_json(rng, depth - 1));
        }
        Value::Object(m)
    }
}

/// A valid streamed answer: content, two tool calls with awkward arguments,
/// a finish reason, usage, `[DONE]`; with comments and CRLF sprinkled in.
fn valid_stream(rng: &mut Rng) -> (Vec<u8>, Vec<String>) {
    let args: Vec<String> = (0..2)
        .map(|i| json!({"i": i, "text": random_text(rng, 30), "n": rng.below(6)}).to_string())
        .collect();
    let eol = if rng.chance(50) { "\r\n" } else { "\n" };
    let mut s = String::new();
    s.push_str(&format!(": keep-alive{eol}{eol}"));
    let content = random_text(rng, 10);
    let chunk = |delta: Value| json!({"id": "x", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]});
    s.push_str(&format!(
        "data: {}{eol}{eol}",
        chunk(json!({"role": "assistant", "content": content}))
    ));
    for (i, a) in args.iter().enumerate() {
        let cut = a
            .char_indices()
            .map(|(p, _)| p)
            .nth(rng.below(a.chars().count()))
            .unwrap_or(0);
        let (x, y) = a.split_at(cut);
        let first = chunk(
            json!({"tool_calls": [{"index": i, "id": format!("call_{i}"), "type": "function", "function": {"name": "get_evaluations", "arguments": x}}]}),
        );
        // Multi-line data: the JSON split over two data: lines.
        let text = first.to_string();
        let at = text.find(",\"choices\"").unwrap_or(0);
        s.push_str(&format!(
            "data: {}{eol}data: {}{eol}{eol}",
            &text[..at],
            &text[at..]
        ));
        s.push_str(&format!(
            "data: {}{eol}{eol}",
            chunk(json!({"tool_calls": [{"index": i, "function": {"arguments": y}}]}))
        ));
    }
    s.push_str(&format!(
        "data: {}{eol}{eol}",
        json!({"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    ));
    s.push_str(&format!(
        "data: {}{eol}{eol}",
        json!({"id": "x", "choices": [], "usage": {"prompt_tokens": 7, "completion_tokens": 9}})
    ));
    s.push_str(&format!("data: [DONE]{eol}{eol}"));
    (s.into_bytes(), args)
}

/// Feeds `bytes` in the given pieces; frames and the completion.
fn reassemble(pieces: &[&[u8]]) -> (Vec<StreamFrame>, Result<Completion, String>) {
    let mut p = SseParser::new();
    let mut acc = Accumulator::new();
    let mut frames = Vec::new();
    let mut done = false;
    let mut handle = |ev: jury::provider::sse::SseEvent, acc: &mut Accumulator, done: &mut bool| {
        if ev.is_done() {
            *done = true;
        } else if !ev.data.trim().is_empty() {
            frames.extend(acc.push_data(&ev.data).expect("valid chunk"));
        }
    };
    for piece in pieces {
        for ev in p.feed(piece) {
            handle(ev, &mut acc, &mut done);
        }
    }
    if let Some(ev) = p.finish() {
        handle(ev, &mut acc, &mut done);
    }
    (frames, acc.finish(done).map_err(|e| e.to_string()))
}

/// Concatenated fragments per tool call and content, from frames.
fn frame_texts(frames: &[StreamFrame]) -> (String, Vec<String>) {
    let mut content = String::new();
    let mut calls: Vec<String> = Vec::new();
    for f in frames {
        match f {
            StreamFrame::Content(c) => content.push_str(c),
            StreamFrame::ToolArgs {
                index, fragment, ..
            } => {
                if calls.len() <= *index {
                    calls.resize(index + 1, String::new());
                }
                calls[*index].push_str(fragment);
            }
            StreamFrame::Retrying { .. } => panic!("no retry in a parser"),
        }
    }
    (content, calls)
}

#[test]
fn property_sse_arbitrary_splits_reassemble_identically() {
    for_seeds("sse splits", cases(300), |rng| {
        let (bytes, args) = valid_stream(rng);
        let (whole_frames, whole) = reassemble(&[&bytes]);
        let whole = whole.expect("the whole stream completes");
        assert_eq!(whole.tool_calls.len(), 2);
        assert_eq!(whole.tool_calls[0].arguments, args[0]);
        assert_eq!(whole.tool_calls[1].arguments, args[1]);
        assert_eq!(whole.usage.map(|u| u.completion_tokens), Some(9));
        let whole_texts = frame_texts(&whole_frames);
        // Random cut points, including inside UTF-8 characters and CRLF pairs.
        let n = 1 + rng.below(12);
        let mut cuts: Vec<usize> = (0..n).map(|_| rng.below(bytes.len() + 1)).collect();
        if rng.chance(20) {
            cuts = (0..=bytes.len()).collect(); // byte by byte
        }
        cuts.sort_unstable();
        let mut pieces: Vec<&[u8]> = Vec::new();
        let mut last = 0;
        for c in cuts {
            pieces.push(&bytes[last..c]);
            last = c;
        }
        pieces.push(&bytes[last..]);
        let (frames, split) = reassemble(&pieces);
        let split = split.expect("the split stream completes");
        assert_eq!(split, whole);
        assert_eq!(frame_texts(&frames), whole_texts);
    });
}

#[test]
fn property_arbitrary_bytes_never_panic_parser_accumulator_prefix() {
    for_seeds("arbitrary bytes", cases(2000), |rng| {
        let bytes = random_bytes(rng, 400);
        let mut p = SseParser::new();
        let mut acc = Accumulator::new();
        let cut = rng.below(bytes.len() + 1);
        let mut evs = p.feed(&bytes[..cut]);
        evs.extend(p.feed(&bytes[cut..]));
        evs.extend(p.finish());
        for ev in evs {
            let _ = acc.push_data(&ev.data);
            let _ = ev.is_done();
        }
        let _ = acc.partial_text();
        let _ = acc.finish(rng.chance(50));
        // Arbitrary text and arbitrary JSON values into the accumulator and parse_prefix.
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_prefix(&text);
        let mut acc = Accumulator::new();
        let v = random_json(rng, 5);
        let _ = acc.push_chunk(&v);
        let _ = acc.push_chunk(
            &json!({"choices": [{"index": 0, "delta": v.clone(), "finish_reason": v}]}),
        );
        let _ = acc.finish(true);
        let _ = jury::provider::accumulate::parse_response(&random_json(rng, 5));
        let _ = jury::provider::client::extract_json(&text);
        let _ = jury::sanitize::for_display(&text, 50);
        let _ = jury::sanitize::one_line(&text, 7);
    });
}

#[test]
fn property_every_prefix_of_tool_arguments_parses() {
    for_seeds("prefixes", cases(60), |rng| {
        let doc = json!({"resultItems": (0..1 + rng.below(3)).map(|i| json!({
            "id": {"itemId": format!("it-{i}"), "perspectiveId": "p", "classificationId": random_text(rng, 3)},
            "evaluatedSelection": "none",
            "evaluationLikert": rng.below(5) + 1,
            "evaluationText": random_text(rng, 25),
            "extra": random_json(rng, 3),
        })).collect::<Vec<_>>()});
        let text = if rng.chance(50) {
            serde_json::to_string_pretty(&doc).expect("json")
        } else {
            doc.to_string()
        };
        let mut last_ok = None;
        for (i, _) in text
            .char_indices()
            .chain(std::iter::once((text.len(), ' ')))
        {
            if let Some(v) = parse_prefix(&text[..i]) {
                last_ok = Some(v);
            }
        }
        // As serde_json reads it (without `float_roundtrip` a float may differ
        // from `doc` in its last digit, for both parsers alike).
        let full: Value = serde_json::from_str(&text).expect("valid");
        assert_eq!(last_ok, Some(full), "the whole document parses to itself");
        // Every prefix that is an object so far keeps what is complete.
        let half = text
            .char_indices()
            .nth(text.chars().count() / 2)
            .map_or(0, |(i, _)| i);
        if let Some(v) = parse_prefix(&text[..half]) {
            assert!(v.is_object(), "{v}");
        }
    });
}

#[test]
fn property_importers_never_panic() {
    // Records: arbitrary JSON values.
    for_seeds("record", cases(3000), |rng| {
        let v = random_json(rng, 6);
        let _ = jury::import::record(&v, "prop");
        // And near-valid items: a valid item with one field replaced.
        let mut item = json!({
            "itemId": "a", "sent": "2026-01-01T00:00:00Z", "title": "t", "summary": "s",
            "source": {"type": "email", "originator": "o", "channel": "c"}, "tags": ["x"],
            "classifications": [{"name": "c", "desc": "d", "available": ["x", "y"], "selected": "x"}]
        });
        let keys = [
            "itemId",
            "sent",
            "title",
            "summary",
            "source",
            "tags",
            "classifications",
        ];
        let k = *rng.pick(&keys);
        item[k] = random_json(rng, 3);
        let _ = jury::import::record(&item, "prop");
        item["classifications"] = json!([random_json(rng, 3)]);
        let _ = jury::import::record(&item, "prop");
    });
    // Files: arbitrary bytes under each extension, through the whole import.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = jury::store::Store::open_in_memory().expect("store");
    for_seeds("file import", cases(150), |rng| {
        let ext = *rng.pick(&["json", "jsonl", "txt"]);
        let path = dir.path().join(format!("f-{}.{ext}", rng.next() % 1000));
        let bytes = if rng.chance(50) {
            random_bytes(rng, 600)
        } else {
            // Mostly valid JSON documents, sometimes one record per line.
            let vals: Vec<Value> = (0..1 + rng.below(4)).map(|_| random_json(rng, 5)).collect();
            if ext == "jsonl" {
                vals.iter()
                    .map(|v| format!("{v}\n"))
                    .collect::<String>()
                    .into_bytes()
            } else {
                Value::Array(vals).to_string().into_bytes()
            }
        };
        std::fs::write(&path, &bytes).expect("write");
        let mut s = jury::store::Store::open_in_memory().expect("store");
        let _ =
            jury::import::import_paths(&mut s, std::slice::from_ref(&path), rng.chance(50), "prop");
    });
    let _ = jury::import::import_sample(&mut store, "prop").expect("the sample still imports");
}
