//! Batch throughput against a server with a fixed 200 ms latency.
//!
//! `cargo bench --bench batch_throughput` runs the release `jury run --mode 2`
//! in these cases (CASES): 16 requests in flight over 400 imported items (3
//! classifications each, batch size 10: 120 requests) and 64 over 2 800
//! items (840 requests); issue 35's, one entry per request over 1 067 items
//! (3 201 requests): 256 and 512 in flight on one server, and 4 × 128 on four
//! demo-judge servers (`--base-url URL#128` each); five times each, and
//! prints the median wall time, start-up included, and its ratio to the
//! ideal ceil(requests / C) × 0.2 s. `BENCH_CASE=100k` runs 100 002
//! combinations at 256 once (BENCH_LONG_RUNS), with answers per second by
//! tenth of the run and jury's peak RSS. After each jury run a bare asyncio
//! client (benches/bare_client.py: keep-alive HTTP/1.1, C in flight, each
//! answer read to its end and nothing else) replays the bodies jury sent
//! against the same servers, and the bench prints jury's pace as a multiple
//! of the client's (BENCH_BARE=0: no client).
//! Answers stream as ~100 SSE events of 24 characters of arguments
//! (BENCH_CHUNK), sent in one write each (BENCH_SPLIT_WRITES=1: one write per
//! event); the 200 ms count from each request's arrival. Per run it prints
//! where the time beyond the ideal went: start-up, the first round's spread,
//! the exit, the connections opened, the load average, and CPU of jury and of
//! this in-process server (which shares the two cores); over all runs, how
//! late the server answered and how long jury (and the client) took from an
//! answer's last byte to the request that took its slot.
//!
//! BENCH_CASE=c256,c512 runs those cases, BENCH_CONCURRENCY=64 those at 64,
//! BENCH_RUNS=1 one iteration, BENCH_JURY=path another jury build (an older
//! commit's), BENCH_SERVER_CONNECTIONS=128 every server at the demo judge's
//! limit, and BENCH_WRAP puts a program in front of jury, e.g. a profile of
//! one run: `BENCH_CONCURRENCY=64 BENCH_RUNS=1 BENCH_BARE=0
//! BENCH_WRAP="valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p"
//! cargo bench --bench batch_throughput`.
//! Measured 2026-11-23 on the 2-core machine, alternating binaries under this
//! harness: this code 1.031–1.039 (five series, 12:50–13:45), the session-3
//! binary 1.046–1.050; jury's CPU 1.2–1.5 ms per request (was 1.7–2.0).

#[path = "common/mod.rs"]
mod common;

use jury::testserver::{RecordedRequest, Reply, TestServer, demo_judge};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One case: `concurrency` requests in flight on each of `servers` test
/// servers (several: `--base-url URL#concurrency` per server), over `items`
/// imported items (three classifications each), `batch` entries per
/// request, `runs` times (None: BENCH_RUNS, else five), each server
/// serving up to `connections` at once.
struct Case {
    name: &'static str,
    concurrency: usize,
    servers: usize,
    items: usize,
    batch: usize,
    runs: Option<usize>,
    /// Connections each server serves at once (a 129th to a demo judge is
    /// answered 503).
    connections: usize,
}

/// 16 in flight over 400 items (120 requests, 8 rounds) and 64 over 2 800
/// (840 requests, 14 rounds), ten entries per request; issue 35's cases, one
/// entry per request over 1 067 items (3 201 combinations): 256 and 512 in
/// flight on one server, 4 × 128 on four, and 100 002 combinations at 256
/// (once by default: BENCH_LONG_RUNS), for throughput over time and memory.
const CASES: &[Case] = &[
    Case {
        name: "c16",
        concurrency: 16,
        servers: 1,
        items: 400,
        batch: 10,
        runs: None,
        connections: DEMO,
    },
    Case {
        name: "c64",
        concurrency: 64,
        servers: 1,
        items: 2800,
        batch: 10,
        runs: None,
        connections: DEMO,
    },
    Case {
        name: "c256",
        concurrency: 256,
        servers: 1,
        items: 1067,
        batch: 1,
        runs: None,
        connections: MANY,
    },
    Case {
        name: "c512",
        concurrency: 512,
        servers: 1,
        items: 1067,
        batch: 1,
        runs: None,
        connections: MANY,
    },
    // Four demo judges, as four `jury demo-judge` processes would serve.
    Case {
        name: "4x128",
        concurrency: 128,
        servers: 4,
        items: 1067,
        batch: 1,
        runs: None,
        connections: DEMO,
    },
    Case {
        name: "100k",
        concurrency: 256,
        servers: 1,
        items: 33_334,
        batch: 1,
        runs: Some(1),
        connections: MANY,
    },
];
const CLASSIFICATIONS: usize = 3;
const LATENCY: Duration = Duration::from_millis(200);
const RUNS: usize = 5;
/// Characters per streamed argument fragment (the demo judge's own choice).
const CHUNK: usize = 24;
/// Connections a demo judge serves at once.
const DEMO: usize = jury::demo_judge::http::MAX_CONNECTIONS;
/// Connections one server of 256 or 512 in flight serves (a vLLM server
/// takes hundreds; the demo judge's 128 would refuse the bare client's
/// 129th connection, and half of jury's, with a 503).
const MANY: usize = 2048;

/// (server, seq) of a request, and when it arrived.
type Arrivals = Arc<Mutex<Vec<((usize, usize), Instant)>>>;

/// The test servers of the bench, all in this process.
struct Farm {
    servers: Vec<TestServer>,
    arrivals: Arrivals,
}

impl Farm {
    fn connection_count(&self) -> usize {
        self.servers.iter().map(TestServer::connection_count).sum()
    }

    fn request_count(&self) -> usize {
        self.servers.iter().map(TestServer::request_count).sum()
    }

    /// Per server, its request count now (a mark to count from).
    fn marks(&self) -> Vec<usize> {
        self.servers.iter().map(TestServer::request_count).collect()
    }

    fn forget(&self) {
        for s in &self.servers {
            s.forget_requests();
        }
        self.arrivals.lock().expect("lock").clear();
    }

    /// Answers since `marks`: ((server, seq), when its last byte left).
    fn answers(&self, marks: &[usize]) -> Vec<((usize, usize), Instant)> {
        self.servers
            .iter()
            .enumerate()
            .flat_map(|(i, s)| {
                let from = marks[i];
                s.answer_times()
                    .into_iter()
                    .filter(move |(seq, _)| *seq >= from)
                    .map(move |(seq, t)| ((i, seq), t))
            })
            .collect()
    }

    fn arrived(&self, marks: &[usize]) -> Vec<((usize, usize), Instant)> {
        let mut a: Vec<_> = self
            .arrivals
            .lock()
            .expect("lock")
            .iter()
            .filter(|((i, seq), _)| *seq >= marks[*i])
            .copied()
            .collect();
        a.sort_by_key(|(_, t)| *t);
        a
    }

    fn requests(&self) -> Vec<RecordedRequest> {
        self.servers.iter().flat_map(TestServer::requests).collect()
    }
}

fn main() {
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
    // BENCH_SERVER_CONNECTIONS=128: every server at the demo judge's own
    // limit (its 129th connection is answered 503).
    let connections: Option<usize> = std::env::var("BENCH_SERVER_CONNECTIONS")
        .ok()
        .and_then(|v| v.parse().ok());
    // Each case's servers, started for it (a case's limit is its own).
    let farm = |case: &Case| {
        let arrivals: Arrivals = Arc::new(Mutex::new(Vec::new()));
        let cap = connections.unwrap_or(case.connections);
        let servers = (0..case.servers)
            .map(|i| {
                let log = arrivals.clone();
                rt.block_on(TestServer::start_serving(0, cap, move |r| {
                    if let Ok(mut l) = log.lock() {
                        l.push(((i, r.seq), Instant::now()));
                    }
                    let answer = demo_judge::reply(r, Duration::ZERO).reshaped(chunk, |a| a);
                    if split_writes {
                        answer.delayed(LATENCY)
                    } else {
                        Reply::Coalesced(Box::new(answer)).delayed(LATENCY)
                    }
                }))
                .expect("server")
            })
            .collect();
        Farm { servers, arrivals }
    };
    // BENCH_CASE=c256 (or a list: c256,c512) runs those cases, else
    // BENCH_CONCURRENCY=64 those at 64 in flight per server; BENCH_RUNS=1 one
    // iteration (with BENCH_WRAP="valgrind --tool=callgrind" a profile of
    // one run). Without either, every case but 100k.
    let names: Option<Vec<String>> = std::env::var("BENCH_CASE")
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    let only: Option<usize> = std::env::var("BENCH_CONCURRENCY")
        .ok()
        .and_then(|v| v.parse().ok());
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(RUNS);
    let long_runs: usize = std::env::var("BENCH_LONG_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    for case in CASES {
        let chosen = match (&names, only) {
            (Some(n), _) => n.iter().any(|n| n == case.name),
            (None, Some(c)) => c == case.concurrency && case.runs.is_none(),
            (None, None) => case.runs.is_none(),
        };
        if chosen {
            let runs = case.runs.map_or(runs, |_| long_runs);
            run_case(&farm(case), case, runs);
        }
    }
}

/// The bare client's command, when python3 is here and BENCH_BARE is not 0.
fn bare_client() -> Option<Command> {
    if std::env::var("BENCH_BARE").is_ok_and(|v| v == "0") {
        return None;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/bare_client.py");
    let ok = Command::new("python3")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    ok.then(|| {
        let mut c = Command::new("python3");
        c.arg(script);
        c
    })
}

/// The jury command, or the program BENCH_WRAP names with jury as its
/// argument (a profiler).
fn jury_command(dir: &Path) -> Command {
    let plain = common::jury_in(dir);
    let Some(wrap) = std::env::var("BENCH_WRAP")
        .ok()
        .filter(|w| !w.trim().is_empty())
    else {
        return plain;
    };
    let mut words = wrap.split_whitespace();
    let mut c = Command::new(words.next().unwrap_or("env"));
    c.args(words).arg(plain.get_program());
    for (k, v) in plain.get_envs() {
        match v {
            Some(v) => c.env(k, v),
            None => c.env_remove(k),
        };
    }
    c
}

fn run_case(farm: &Farm, case: &Case, runs: usize) {
    let Case {
        name,
        concurrency,
        servers,
        items,
        batch,
        ..
    } = *case;
    let dir = tempfile::tempdir().expect("tempdir");
    let items_file = dir.path().join("items.jsonl");
    common::write_items(&items_file, items);
    let meta = common::write_meta(dir.path());
    let st = common::jury_in(dir.path())
        .arg("import")
        .arg(&meta)
        .arg(&items_file)
        .stdout(Stdio::null())
        .status()
        .expect("import");
    assert!(st.success(), "import failed");
    let bodies = dir.path().join("bodies.jsonl");
    let mut bare = bare_client();
    let urls: Vec<String> = farm.servers[..servers]
        .iter()
        .map(TestServer::base_url)
        .collect();
    // In flight over all servers.
    let total_c = concurrency * servers;

    let combinations = items * CLASSIFICATIONS;
    let requests = combinations.div_ceil(batch);
    let ideal = LATENCY * requests.div_ceil(total_c) as u32;
    let mut times = Vec::new();
    let (mut cpu_jury, mut cpu_server, mut rss) = (Vec::new(), Vec::new(), Vec::new());
    let (mut bare_times, mut bare_cpu) = (Vec::new(), Vec::new());
    // From the first request's arrival to the last answer's last byte, as
    // the server saw it: the same span for jury and the client, without
    // either's start-up and exit.
    let (mut spans, mut bare_spans) = (Vec::new(), Vec::new());
    let (mut server_lateness, mut client_turnaround) = (Vec::new(), Vec::new());
    let mut bare_turnaround = Vec::new();
    for i in 0..runs {
        let marks = farm.marks();
        let before = farm.request_count();
        let conns = farm.connection_count();
        farm.forget();
        let t0 = Instant::now();
        let mut cmd = jury_command(dir.path());
        cmd.args([
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
            &concurrency.to_string(),
            "--batch-size",
            &batch.to_string(),
            "--json",
        ])
        .stdout(Stdio::null());
        if servers == 1 {
            cmd.env("OPENAI_BASE_URL", &urls[0]);
        } else {
            for u in &urls {
                cmd.arg("--base-url").arg(format!("{u}#{concurrency}"));
            }
        }
        let server_cpu0 = common::own_cpu();
        let m = common::run_measured_hwm(&mut cmd);
        // This process is the fake server (plus a little bench bookkeeping):
        // its CPU shares the two cores with jury's.
        let server_cpu = common::own_cpu() - server_cpu0;
        let (wall, code) = (m.wall, m.code);
        assert_eq!(code, 0, "jury run failed");
        let sent = farm.request_count() - before;
        assert_eq!(sent, requests, "unexpected request count");
        let opened = farm.connection_count() - conns;
        let arrived = farm.arrived(&marks);
        let answered = farm.answers(&marks);
        let (server_late, turnaround) = split_gaps(&arrived, &answered, total_c);
        server_lateness.extend(server_late);
        client_turnaround.extend(turnaround);
        let a: Vec<Instant> = arrived.iter().map(|(_, t)| *t).collect();
        let ms = |t: Instant| t.duration_since(t0).as_secs_f64() * 1000.0;
        let first = a.first().map(|t| ms(*t)).unwrap_or(0.0);
        // The first round's requests leave one after another; their spread
        // carries through every later round.
        let spread = a.get(total_c - 1).map(|t| ms(*t)).unwrap_or(first) - first;
        let last = a.last().map(|t| ms(*t)).unwrap_or(0.0);
        // Where the last request would arrive with zero overhead per round.
        let ideal_last = first + ((requests - 1) / total_c) as f64 * LATENCY.as_secs_f64() * 1000.0;
        println!(
            "{name} run {}: {:.3} s ({sent} requests on {opened} connections); first request at {first:.0} ms (the {total_c}th {spread:.1} ms later), last at {last:.0} ms (zero-overhead {ideal_last:.0} ms), exit {:.0} ms after the last answer; CPU jury {:.0} ms, server {:.0} ms; jury's peak RSS {:.1} MB (load {})",
            i + 1,
            wall.as_secs_f64(),
            wall.as_secs_f64() * 1000.0 - last - LATENCY.as_secs_f64() * 1000.0,
            m.cpu.as_secs_f64() * 1000.0,
            server_cpu.as_secs_f64() * 1000.0,
            m.peak_rss_kib as f64 / 1024.0,
            load()
        );
        if runs == 1 || requests >= 10_000 {
            pace_over_time(name, &answered);
        }
        cpu_jury.push(m.cpu);
        cpu_server.push(server_cpu);
        rss.push(m.peak_rss_kib);
        times.push(wall);
        spans.push(span(&arrived, &answered));
        // The bare client replays the bodies jury just sent, against the same
        // servers, right after it: the two alternate, so the machine's load
        // weighs on both alike.
        if let Some(b) = bare.as_mut() {
            let lines: String = farm
                .requests()
                .iter()
                .filter(|r| r.method == "POST")
                .map(|r| format!("{}\n", r.body))
                .collect();
            std::fs::write(&bodies, lines).expect("bodies");
            farm.forget();
            let marks = farm.marks();
            let before = farm.request_count();
            let conns = farm.connection_count();
            let target = urls
                .iter()
                .map(|u| format!("{u}#{concurrency}"))
                .collect::<Vec<_>>()
                .join(",");
            b.args([target, total_c.to_string()])
                .arg(&bodies)
                .stdout(Stdio::null());
            let mb = common::run_measured_cpu(b);
            assert_eq!(mb.code, 0, "bare client failed");
            assert_eq!(
                farm.request_count() - before,
                requests,
                "bare client's requests"
            );
            let (b_arrived, b_answered) = (farm.arrived(&marks), farm.answers(&marks));
            let bare_span = span(&b_arrived, &b_answered);
            let (_, turnaround) = split_gaps(&b_arrived, &b_answered, total_c);
            bare_turnaround.extend(turnaround);
            let b: Vec<f64> = b_arrived
                .iter()
                .map(|(_, t)| t.duration_since(b_arrived[0].1).as_secs_f64() * 1000.0)
                .collect();
            println!(
                "{name} run {}: bare client {:.3} s, CPU {:.0} ms, {} connections, the {total_c}th request {:.1} ms after the first; first request to last answer: jury {:.3} s, bare client {:.3} s; whole run jury/bare {:.3} × the client's pace (load {})",
                i + 1,
                mb.wall.as_secs_f64(),
                mb.cpu.as_secs_f64() * 1000.0,
                farm.connection_count() - conns,
                b.get(total_c - 1).copied().unwrap_or(0.0),
                spans.last().map_or(0.0, Duration::as_secs_f64),
                bare_span.as_secs_f64(),
                mb.wall.as_secs_f64() / wall.as_secs_f64(),
                load()
            );
            bare_spans.push(bare_span);
            bare_times.push(mb.wall);
            bare_cpu.push(mb.cpu);
            bare = bare_client();
            farm.forget();
        }
    }
    let med = common::median(times);
    println!(
        "batch_throughput {name}: {items} items × {CLASSIFICATIONS} = {combinations} combinations, {requests} requests ({batch} per request), {concurrency} in flight on each of {servers} server(s), latency {} ms",
        LATENCY.as_millis()
    );
    println!(
        "median wall {:.3} s; ideal {:.3} s; ratio {:.3} (target ≤ 1.05)",
        med.as_secs_f64(),
        ideal.as_secs_f64(),
        med.as_secs_f64() / ideal.as_secs_f64()
    );
    rss.sort();
    println!(
        "median CPU: jury {:.0} ms ({:.2} ms per request), fake server {:.0} ms; jury's peak RSS max {:.1} MB",
        common::median(cpu_jury.clone()).as_secs_f64() * 1000.0,
        common::median(cpu_jury).as_secs_f64() * 1000.0 / requests as f64,
        common::median(cpu_server).as_secs_f64() * 1000.0,
        rss.last().copied().unwrap_or(0) as f64 / 1024.0
    );
    if !bare_times.is_empty() {
        let bmed = common::median(bare_times);
        println!(
            "bare client: median wall {:.3} s, CPU {:.2} ms per request; jury's pace {:.3} × the bare client's (target ≥ 0.95)",
            bmed.as_secs_f64(),
            common::median(bare_cpu).as_secs_f64() * 1000.0 / requests as f64,
            bmed.as_secs_f64() / med.as_secs_f64()
        );
        let (js, bs) = (common::median(spans), common::median(bare_spans));
        println!(
            "first request to last answer (median): jury {:.3} s, bare client {:.3} s; jury's pace {:.3} × the client's there",
            js.as_secs_f64(),
            bs.as_secs_f64(),
            bs.as_secs_f64() / js.as_secs_f64()
        );
    }
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
    if !bare_turnaround.is_empty() {
        println!(
            "per request: the bare client turns an answer into the next request in {:.2} ms (median; p90 {:.2}, max {:.2})",
            q(&mut bare_turnaround, 0.5),
            q(&mut bare_turnaround, 0.9),
            q(&mut bare_turnaround, 1.0),
        );
    }
}

/// The machine's load average over the last minute (the machine is shared).
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into())
}

/// Answers per second in each tenth of the run (first answer to last):
/// a run that slows as its store grows shows it here.
fn pace_over_time(name: &str, answered: &[((usize, usize), Instant)]) {
    let mut t: Vec<Instant> = answered.iter().map(|(_, t)| *t).collect();
    t.sort();
    let (Some(&a), Some(&b)) = (t.first(), t.last()) else {
        return;
    };
    let whole = b.saturating_duration_since(a).as_secs_f64().max(1e-9);
    let mut tenths = [0usize; 10];
    for x in &t {
        let f = x.saturating_duration_since(a).as_secs_f64() / whole;
        tenths[((f * 10.0) as usize).min(9)] += 1;
    }
    let rates: Vec<String> = tenths
        .iter()
        .map(|n| format!("{:.0}", *n as f64 / (whole / 10.0)))
        .collect();
    println!(
        "{name}: answers per second by tenth of the run: {}",
        rates.join(" ")
    );
}

/// From the first arrival to the last answer.
fn span(arrived: &[((usize, usize), Instant)], answered: &[((usize, usize), Instant)]) -> Duration {
    let first = arrived.iter().map(|(_, t)| *t).min();
    let last = answered.iter().map(|(_, t)| *t).max();
    match (first, last) {
        (Some(a), Some(b)) => b.saturating_duration_since(a),
        _ => Duration::ZERO,
    }
}

/// From `(request, time)` of arrivals and of answers sent: how late each
/// answer left after its 200 ms (the server's share), and the time from an
/// answer's last byte to the arrival of the request that took its slot
/// (jury's share: reading, parsing, storing, building and sending; slots are
/// matched first answered, first refilled).
fn split_gaps(
    arrived: &[((usize, usize), Instant)],
    answered: &[((usize, usize), Instant)],
    concurrency: usize,
) -> (Vec<f64>, Vec<f64>) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let by_seq: std::collections::HashMap<(usize, usize), Instant> =
        arrived.iter().copied().collect();
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
        .zip(came.iter().skip(concurrency))
        .map(|(s, c)| ms(c.saturating_duration_since(*s)))
        .collect();
    (late, turn)
}
