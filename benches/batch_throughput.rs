//! Batch throughput against a server with a fixed 200 ms latency.
//!
//! `cargo bench --bench batch_throughput` runs the release `jury run --mode 2
//! --concurrency 16` over 400 imported items (3 classifications each, batch
//! size 10: 120 requests) five times and prints the median wall time, start-up
//! included, and its ratio to the ideal ceil(requests / 16) × 0.2 s. Answers
//! stream as ~100 SSE events of 24 characters of arguments (BENCH_CHUNK),
//! sent in one write each (BENCH_SPLIT_WRITES=1: one write per event); the
//! 200 ms count from each request's arrival. Per run it prints where the time
//! beyond the ideal went: start-up, the first round's spread, the exit, and
//! CPU of jury and of this in-process server (which shares the two cores);
//! over all runs, how late the server answered and how long jury took from an
//! answer's last byte to the request that took its slot.
//! Measured 2026-11-23 on the 2-core machine, alternating binaries under this
//! harness: this code 1.031–1.039 (five series, 12:50–13:45), the session-3
//! binary 1.046–1.050; jury's CPU 1.2–1.5 ms per request (was 1.7–2.0).

#[path = "common/mod.rs"]
mod common;

use jury::testserver::{Reply, TestServer, demo_judge};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const ITEMS: usize = 400;
const CLASSIFICATIONS: usize = 3;
const BATCH: usize = 10;
const CONCURRENCY: usize = 16;
const LATENCY: Duration = Duration::from_millis(200);
const RUNS: usize = 5;
/// Characters per streamed argument fragment (the demo judge's own choice).
const CHUNK: usize = 24;

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let items = dir.path().join("items.jsonl");
    common::write_items(&items, ITEMS);
    let meta = common::write_meta(dir.path());
    let st = common::jury_in(dir.path())
        .arg("import")
        .arg(&meta)
        .arg(&items)
        .stdout(Stdio::null())
        .status()
        .expect("import");
    assert!(st.success(), "import failed");

    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    // The demo judge's answer, streamed in fragments of CHUNK characters
    // (BENCH_CHUNK overrides; 0 sends the arguments in one fragment).
    let chunk: usize = std::env::var("BENCH_CHUNK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(CHUNK);
    // By default each answer's SSE events leave in one write, as from a remote
    // server whose answer is complete after 200 ms; BENCH_SPLIT_WRITES=1 writes
    // and flushes every event separately (then this in-process server spends
    // the shared two cores on ~3 000 small writes per round of 16 answers).
    let split_writes = std::env::var_os("BENCH_SPLIT_WRITES").is_some();
    // Arrival times, to split the overhead into start-up, request gaps and tail.
    let arrivals = Arc::new(Mutex::new(Vec::<(usize, Instant)>::new()));
    let log = arrivals.clone();
    let server = rt
        .block_on(TestServer::start(move |r| {
            if let Ok(mut l) = log.lock() {
                l.push((r.seq, Instant::now()));
            }
            let answer = demo_judge::reply(r, Duration::ZERO).reshaped(chunk, |a| a);
            if split_writes {
                answer.delayed(LATENCY)
            } else {
                Reply::Coalesced(Box::new(answer)).delayed(LATENCY)
            }
        }))
        .expect("server");

    let requests = (ITEMS * CLASSIFICATIONS).div_ceil(BATCH);
    let ideal = LATENCY * requests.div_ceil(CONCURRENCY) as u32;
    let mut times = Vec::new();
    let (mut cpu_jury, mut cpu_server) = (Vec::new(), Vec::new());
    let (mut server_lateness, mut client_turnaround) = (Vec::new(), Vec::new());
    for i in 0..RUNS {
        let before = server.request_count();
        arrivals.lock().expect("lock").clear();
        let t0 = Instant::now();
        let mut cmd = common::jury_in(dir.path());
        cmd.env("OPENAI_BASE_URL", server.base_url())
            .args([
                "run",
                "--mode",
                "2",
                "--persona",
                "bench",
                "--perspective",
                "classification",
            ])
            .args([
                "--concurrency",
                &CONCURRENCY.to_string(),
                "--batch-size",
                &BATCH.to_string(),
                "--json",
            ])
            .stdout(Stdio::null());
        let server_cpu0 = common::own_cpu();
        let m = common::run_measured_cpu(&mut cmd);
        // This process is the fake server (plus a little bench bookkeeping):
        // its CPU shares the two cores with jury's.
        let server_cpu = common::own_cpu() - server_cpu0;
        let (wall, code) = (m.wall, m.code);
        assert_eq!(code, 0, "jury run failed");
        let sent = server.request_count() - before;
        assert_eq!(sent, requests, "unexpected request count");
        let arrived = arrivals.lock().expect("lock").clone();
        let answered: Vec<(usize, Instant)> = server
            .answer_times()
            .into_iter()
            .filter(|(seq, _)| *seq >= before)
            .collect();
        let (server_late, turnaround) = split_gaps(&arrived, &answered);
        server_lateness.extend(server_late);
        client_turnaround.extend(turnaround);
        let a: Vec<Instant> = arrived.iter().map(|(_, t)| *t).collect();
        let ms = |t: Instant| t.duration_since(t0).as_secs_f64() * 1000.0;
        let first = a.first().map(|t| ms(*t)).unwrap_or(0.0);
        // The first round's requests leave one after another; their spread
        // carries through every later round.
        let spread = a.get(CONCURRENCY - 1).map(|t| ms(*t)).unwrap_or(first) - first;
        let last = a.last().map(|t| ms(*t)).unwrap_or(0.0);
        // Where the last request would arrive with zero overhead per round.
        let ideal_last =
            first + ((requests - 1) / CONCURRENCY) as f64 * LATENCY.as_secs_f64() * 1000.0;
        println!(
            "run {}: {:.3} s ({sent} requests); first request at {first:.0} ms (the {CONCURRENCY}th {spread:.1} ms later), last at {last:.0} ms (zero-overhead {ideal_last:.0} ms), exit {:.0} ms after the last answer; CPU jury {:.0} ms, server {:.0} ms",
            i + 1,
            wall.as_secs_f64(),
            wall.as_secs_f64() * 1000.0 - last - LATENCY.as_secs_f64() * 1000.0,
            m.cpu.as_secs_f64() * 1000.0,
            server_cpu.as_secs_f64() * 1000.0
        );
        cpu_jury.push(m.cpu);
        cpu_server.push(server_cpu);
        times.push(wall);
    }
    let med = common::median(times);
    println!(
        "batch_throughput: {ITEMS} items × {CLASSIFICATIONS} = {} combinations, {requests} requests, concurrency {CONCURRENCY}, latency {} ms",
        ITEMS * CLASSIFICATIONS,
        LATENCY.as_millis()
    );
    println!(
        "median wall {:.3} s; ideal {:.3} s; ratio {:.3} (target ≤ 1.05)",
        med.as_secs_f64(),
        ideal.as_secs_f64(),
        med.as_secs_f64() / ideal.as_secs_f64()
    );
    println!(
        "median CPU: jury {:.0} ms ({:.2} ms per request), fake server {:.0} ms",
        common::median(cpu_jury.clone()).as_secs_f64() * 1000.0,
        common::median(cpu_jury).as_secs_f64() * 1000.0 / requests as f64,
        common::median(cpu_server).as_secs_f64() * 1000.0
    );
    let q = |v: &mut Vec<f64>, p: f64| {
        v.sort_by(f64::total_cmp);
        v.get(((v.len() as f64 - 1.0) * p).round() as usize)
            .copied()
            .unwrap_or(f64::NAN)
    };
    println!(
        "per request: server answers {:.2} ms late (median; p90 {:.2}) after its 200 ms; jury turns an answer into the next request in {:.2} ms (median; p90 {:.2}, max {:.2})",
        q(&mut server_lateness, 0.5),
        q(&mut server_lateness, 0.9),
        q(&mut client_turnaround, 0.5),
        q(&mut client_turnaround, 0.9),
        q(&mut client_turnaround, 1.0),
    );
}

/// From `(seq, time)` of arrivals and of answers sent: how late each answer
/// left after its 200 ms (the server's share), and the time from an answer's
/// last byte to the arrival of the request that took its slot (jury's share:
/// reading, parsing, storing, building and sending; slots are matched first
/// answered, first refilled).
fn split_gaps(arrived: &[(usize, Instant)], answered: &[(usize, Instant)]) -> (Vec<f64>, Vec<f64>) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let by_seq: std::collections::HashMap<usize, Instant> = arrived.iter().copied().collect();
    let late = answered
        .iter()
        .filter_map(|(seq, sent)| {
            let at = by_seq.get(seq)?;
            Some(ms(sent.saturating_duration_since(*at)) - ms(LATENCY))
        })
        .collect();
    let mut sent: Vec<Instant> = answered.iter().map(|(_, t)| *t).collect();
    sent.sort();
    let mut came: Vec<Instant> = arrived.iter().map(|(_, t)| *t).collect();
    came.sort();
    let turn = sent
        .iter()
        .zip(came.iter().skip(CONCURRENCY))
        .map(|(s, c)| ms(c.saturating_duration_since(*s)))
        .collect();
    (late, turn)
}
