//! Parsing one streamed answer: SSE framing, the chat-completion chunks and
//! their tool-call fragments, then validating the assembled mode 2 answer.
//!
//! The answer is the shape jury asks for in mode 2 (10 entries, a sentence of
//! evaluation text each, ~2.3 KB of arguments) streamed as OpenAI does: one
//! `chat.completion.chunk` per ~24 characters of arguments (~100 events,
//! ~26 KB on the wire), then a finish chunk, a usage chunk and `[DONE]`. It
//! arrives in three ways: one event per network read, 1400-byte reads (one
//! TCP segment), and all at once.
//! Measured 2026-11-23 (2 cores): 152–179 µs per answer (~200 MB/s) in
//! all three ways; ~1.6 µs per chunk.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jury::domain::{ComboKey, Mode};
use jury::protocol::Unit;
use jury::provider::accumulate::Accumulator;
use jury::provider::sse::SseParser;
use serde_json::json;
use std::hint::black_box;

const ENTRIES: usize = 10;
const FRAGMENT: usize = 24;

fn units() -> Vec<Unit> {
    (0..ENTRIES)
        .map(|i| Unit {
            key: ComboKey::new(&format!("b-{i:07}"), "urgency", "classification"),
            asked_selection: "urgent".into(),
        })
        .collect()
}

fn arguments() -> String {
    let items: Vec<_> = units()
        .iter()
        .map(|u| {
            json!({
                "id": {"itemId": u.key.item_id, "perspectiveId": "classification", "classificationId": "urgency"},
                "evaluatedSelection": "urgent",
                "evaluationLikert": 4,
                "evaluationText": "Speaking as Kenton: a stock-out with a 2pm deadline from a key account is urgent, so \"urgent\" is right.",
            })
        })
        .collect();
    json!({ "resultItems": items }).to_string()
}

/// The whole streamed body, and where each event ends.
fn stream() -> (Vec<u8>, Vec<usize>) {
    let envelope = |delta: serde_json::Value, finish: serde_json::Value| {
        json!({"id": "chatcmpl-9x", "object": "chat.completion.chunk", "created": 1_763_900_000,
               "model": "gpt-4o-mini-2024-07-18", "system_fingerprint": "fp_0ba0d124f1",
               "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}]})
    };
    let mut events = vec![
        envelope(json!({"role": "assistant", "content": null}), json!(null)),
        envelope(
            json!({"tool_calls": [{"index": 0, "id": "call_Qx1", "type": "function",
                                   "function": {"name": "get_evaluations", "arguments": ""}}]}),
            json!(null),
        ),
    ];
    let args: Vec<char> = arguments().chars().collect();
    for piece in args.chunks(FRAGMENT) {
        let text: String = piece.iter().collect();
        events.push(envelope(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": text}}]}),
            json!(null),
        ));
    }
    events.push(envelope(json!({}), json!("tool_calls")));
    events.push(json!({"id": "chatcmpl-9x", "object": "chat.completion.chunk", "created": 1_763_900_000,
                       "model": "gpt-4o-mini-2024-07-18", "choices": [],
                       "usage": {"prompt_tokens": 4812, "completion_tokens": 640, "total_tokens": 5452}}));
    let mut body = Vec::new();
    let mut ends = Vec::new();
    for e in events {
        body.extend_from_slice(format!("data: {e}\n\n").as_bytes());
        ends.push(body.len());
    }
    body.extend_from_slice(b"data: [DONE]\n\n");
    ends.push(body.len());
    (body, ends)
}

/// Feeds `pieces` through the parser and accumulator and validates the answer.
fn parse<'a>(pieces: impl Iterator<Item = &'a [u8]>, units: &[Unit]) -> usize {
    let mut sse = SseParser::new();
    let mut acc = Accumulator::new();
    let mut done = false;
    for piece in pieces {
        for ev in sse.feed(piece) {
            if ev.is_done() {
                done = true;
                continue;
            }
            acc.push_data(&ev.data).expect("chunk");
        }
    }
    let completion = acc.finish(done).expect("complete answer");
    let outcome = jury::protocol::awag::parse::validate(Mode::Two, units, completion.answer_text());
    assert!(outcome.missing.is_empty(), "every entry answered");
    outcome.verdicts.len()
}

fn bench(c: &mut Criterion) {
    let (body, ends) = stream();
    let units = units();
    let mut g = c.benchmark_group("stream_parse_mode2_answer");
    g.throughput(Throughput::Bytes(body.len() as u64));
    g.bench_function("one_event_per_read", |b| {
        b.iter(|| {
            let mut start = 0;
            let pieces = ends.iter().map(|&end| {
                let p = &body[start..end];
                start = end;
                p
            });
            black_box(parse(pieces, &units))
        })
    });
    g.bench_function("1400_byte_reads", |b| {
        b.iter(|| black_box(parse(body.chunks(1400), &units)))
    });
    g.bench_function("whole_answer", |b| {
        b.iter(|| black_box(parse(std::iter::once(body.as_slice()), &units)))
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
