//! One run over several servers (`--base-url` repeated, `URL#N` its share):
//! requests spread by free capacity, a server that dies or refuses from the
//! start is taken out and its work goes to the others (the run says so),
//! every verdict records the server that answered, and a run whose servers
//! are all down exits 1 naming them. Real HTTP servers on 127.0.0.1 and the
//! binary as a process.
#![cfg(feature = "tui")]

use crate::common;

use common::{Workspace, generated_workspace, text};
use jury::testserver::{RecordedRequest, Reply, TestServer, demo_judge};
use std::collections::HashMap;
use std::io::BufRead;
use std::process::{Output, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A demo judge answering after `latency`, on its own runtime (the binary
/// is another process; the server must keep serving while the test waits).
struct Judge {
    rt: tokio::runtime::Runtime,
    server: Option<TestServer>,
    url: String,
}

impl Judge {
    fn start(latency: Duration) -> Judge {
        Judge::answering(0, move |r| demo_judge::reply(r, latency))
    }

    /// A server on `port` of 127.0.0.1 (0: any free one) answering with
    /// `responder`.
    fn answering<F>(port: u16, responder: F) -> Judge
    where
        F: Fn(&RecordedRequest) -> Reply + Send + Sync + 'static,
    {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .enable_all()
            .build()
            .expect("runtime");
        let server = rt
            .block_on(TestServer::start_on(port, responder))
            .expect("start server");
        let url = server.base_url();
        Judge {
            rt,
            server: Some(server),
            url,
        }
    }

    fn completions(&self) -> usize {
        self.server
            .as_ref()
            .map(|s| s.requests().iter().filter(|r| r.method == "POST").count())
            .unwrap_or(0)
    }

    fn requests(&self) -> usize {
        self.server.as_ref().map_or(0, |s| s.request_count())
    }

    /// Stops accepting and drops open connections: the server is gone.
    fn kill(&mut self) {
        if let Some(s) = self.server.take() {
            let _g = self.rt.enter();
            s.shutdown();
        }
    }
}

/// A URL on 127.0.0.1 where nothing listens (connections are refused).
fn refused_url() -> String {
    format!("http://127.0.0.1:{}/v1", free_port())
}

/// A port of 127.0.0.1 nothing listens on (yet).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

fn run_args(extra: &[String]) -> Vec<String> {
    let mut v: Vec<String> = [
        "run",
        "--mode",
        "2",
        "--persona",
        "tester",
        "--perspective",
        "classification",
        "--batch-size",
        "2",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend_from_slice(extra);
    v
}

fn servers(urls: &[&str]) -> Vec<String> {
    urls.iter()
        .flat_map(|u| ["--base-url".to_string(), u.to_string()])
        .collect()
}

fn out_text(o: &Output) -> String {
    format!("{}{}", text(&o.stdout), text(&o.stderr))
}

/// Verdicts in the store by the server recorded with each.
fn verdicts_by_server(ws: &Workspace) -> HashMap<Option<String>, usize> {
    let mut by = HashMap::new();
    ws.store()
        .for_each_verdict(|v| *by.entry(v.server).or_insert(0) += 1)
        .expect("read verdicts");
    by
}

/// `#2` and `#6`: the server with three times the slots gets about three
/// times the requests; each verdict, in the store and in both exports,
/// names its server without the credentials its URL carried.
#[test]
fn two_servers_share_a_run_by_capacity_and_each_verdict_names_its_server() {
    let ws = generated_workspace(80, 3);
    let (a, b) = (
        Judge::start(Duration::from_millis(40)),
        Judge::start(Duration::from_millis(40)),
    );
    let a_with_user = a.url.replace("http://", "http://someone:sk-CANARY-URL@");
    let out = ws
        .cmd()
        .args(run_args(&servers(&[
            &format!("{a_with_user}?api-key=sk-CANARY-QUERY#2"),
            &format!("{}#6", b.url),
        ])))
        .output()
        .expect("spawn jury");
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    let (na, nb) = (a.completions(), b.completions());
    assert_eq!(na + nb, 120, "80 items × 3 classifications, 2 per request");
    let ratio = nb as f64 / na as f64;
    assert!(
        (2.2..=4.2).contains(&ratio),
        "#6 took {nb} requests, #2 took {na}: {ratio:.2} ×, expected about 3 ×"
    );
    let by = verdicts_by_server(&ws);
    assert_eq!(by.get(&Some(a.url.clone())), Some(&(na * 2)), "{by:?}");
    assert_eq!(by.get(&Some(b.url.clone())), Some(&(nb * 2)), "{by:?}");
    for format in ["jsonl", "csv"] {
        let export = ws.ok(&["export", "--format", format]);
        assert!(!export.contains("CANARY"), "{format}: {export}");
        assert!(!export.contains("someone"), "{format}");
        assert!(
            export.contains(&a.url) && export.contains(&b.url),
            "{format}"
        );
    }
    let rows = ws.export_rows();
    let verdicts: Vec<_> = rows.iter().filter(|r| r["kind"] == "verdict").collect();
    assert_eq!(verdicts.len(), 240);
    assert!(
        verdicts
            .iter()
            .all(|r| r["server"] == a.url.as_str() || r["server"] == b.url.as_str())
    );
    let csv = ws.ok(&["export", "--format", "csv"]);
    let header = csv.lines().next().unwrap_or_default();
    assert!(header.split(',').any(|c| c == "server"), "{header}");
    assert!(!all.contains("CANARY"), "{all}");
}

/// One server killed mid-run: nothing is lost (every combination gets its
/// verdict), the run exits 0, says it took the server out, and every
/// verdict names the server that answered it.
#[test]
fn a_server_killed_mid_run_loses_nothing_and_the_run_says_so() {
    let ws = generated_workspace(100, 3);
    let mut a = Judge::start(Duration::from_millis(20));
    let b = Judge::start(Duration::from_millis(20));
    let child = ws
        .cmd()
        .args(run_args(&servers(&[
            &format!("{}#4", a.url),
            &format!("{}#4", b.url),
        ])))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn jury");
    let deadline = Instant::now() + Duration::from_secs(60);
    while a.requests() < 15 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let answered_by_a = a.completions();
    a.kill();
    let out = child.wait_with_output().expect("jury");
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains(&format!("took {} out of the run", a.url)),
        "{all}"
    );
    let by = verdicts_by_server(&ws);
    assert_eq!(by.values().sum::<usize>(), 300, "nothing lost: {by:?}");
    assert_eq!(
        by.get(&None),
        None,
        "every verdict names its server: {by:?}"
    );
    let from_a = by.get(&Some(a.url.clone())).copied().unwrap_or(0);
    assert!(from_a >= 2 && from_a <= answered_by_a * 2 + 8, "{by:?}");
    assert!(
        by.get(&Some(b.url.clone())).copied().unwrap_or(0) >= 200,
        "{by:?}"
    );
}

/// A server that refuses from the start (named in the config's list): the
/// run goes on with the other, exit 0, and says it took that one out.
#[test]
fn a_server_refusing_from_the_start_is_taken_out_and_the_run_goes_on() {
    let ws = generated_workspace(20, 3);
    let b = Judge::start(Duration::ZERO);
    let down = refused_url();
    let conf = ws.write(
        "config.toml",
        format!("base_url = [\"{down}#4\", \"{}#4\"]\n", b.url),
    );
    let out = ws
        .cmd()
        .env("JURY_CONFIG", &conf)
        .args(run_args(&[]))
        .output()
        .expect("spawn jury");
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains(&format!("took {down} out of the run")),
        "{all}"
    );
    assert!(all.contains("connection refused"), "{all}");
    let by = verdicts_by_server(&ws);
    assert_eq!(by, HashMap::from([(Some(b.url.clone()), 60)]));
}

/// Every server down: exit 1, each named.
#[test]
fn all_servers_down_exits_1_naming_them() {
    let ws = generated_workspace(10, 3);
    let (x, y) = (refused_url(), refused_url());
    let out = ws
        .cmd()
        .args(run_args(&servers(&[&x, &y])))
        .output()
        .expect("spawn jury");
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("every server is out"), "{all}");
    assert!(all.contains(&x) && all.contains(&y), "{all}");
    assert!(verdicts_by_server(&ws).is_empty());
}

/// `jury doctor` checks each server of the list, naming it.
#[test]
fn doctor_checks_each_server() {
    let ws = Workspace::new();
    let b = Judge::start(Duration::ZERO);
    let down = refused_url();
    let out = ws
        .cmd()
        .args([
            "doctor",
            "--timeout-secs",
            "5",
            "--model",
            jury::demo_judge::MODEL,
        ])
        .args(servers(&[&b.url, &down]))
        .output()
        .expect("spawn jury");
    let all = out_text(&out);
    let lines: Vec<&str> = all.lines().collect();
    let at = |url: &str| {
        lines
            .iter()
            .position(|l| l.contains("server") && l.contains(url))
            .unwrap_or_else(|| panic!("no server line for {url}:\n{all}"))
    };
    let (ib, idown) = (at(&b.url), at(&down));
    assert!(ib < idown, "{all}");
    // The working server's checks pass; the refused one's fail.
    assert!(
        lines[ib..idown]
            .iter()
            .any(|l| l.starts_with("ok") && l.contains("judge")),
        "{all}"
    );
    assert!(
        lines[idown..]
            .iter()
            .any(|l| l.starts_with("problem") && l.to_lowercase().contains("connection refused")),
        "{all}"
    );
    assert_eq!(out.status.code(), Some(1), "{all}");
}

/// HTTP 503 to everything, to be asked again at once (the client's own
/// retries take no time).
fn unavailable(_: &RecordedRequest) -> Reply {
    Reply::Status {
        code: 503,
        headers: vec![("retry-after-ms".into(), "0".into())],
        body: r#"{"error": {"message": "overloaded", "type": "server_error"}}"#.into(),
    }
}

/// A server that answers 503 every time is taken out after three requests
/// in a row failed there, and its work goes to the other: the first
/// request's three attempts all land on it (the other server is busy with
/// its first, slow answer), and the third, which takes it out, is not held
/// against the request, so nothing is lost. The run says so, and its record
/// counts the server as taken out.
#[test]
fn a_server_failing_with_5xx_is_taken_out_and_its_work_goes_to_the_other() {
    let ws = generated_workspace(6, 3);
    let a = Judge::answering(0, unavailable);
    let first = AtomicBool::new(true);
    // The other server's first answer is slow: meanwhile the failing one
    // is the only one with a free slot.
    let b = Judge::answering(0, move |r| {
        let latency = if r.method == "POST" && first.swap(false, Ordering::SeqCst) {
            Duration::from_millis(1500)
        } else {
            Duration::ZERO
        };
        demo_judge::reply(r, latency)
    });
    let out = ws
        .cmd()
        .args(run_args(&servers(&[
            &format!("{}#1", a.url),
            &format!("{}#1", b.url),
        ])))
        .output()
        .expect("spawn jury");
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains(&format!("took {} out of the run", a.url)),
        "{all}"
    );
    assert!(all.contains("3 requests in a row failed"), "{all}");
    assert!(a.completions() >= 3, "it was asked before it was taken out");
    let by = verdicts_by_server(&ws);
    assert_eq!(by, HashMap::from([(Some(b.url.clone()), 18)]), "{all}");
    let runs = ws.ok(&["runs"]);
    assert!(
        runs.contains(&format!("{}: 3 requests (taken out once)", a.url)),
        "{runs}"
    );
}

/// A server refused at first is taken out for `--server-time-out` seconds
/// and, once that is over and it listens again, gets work again. The other
/// server holds its answers after its first two until the first one has
/// had a request, so the run is still going when the time-out ends.
#[test]
fn a_refused_server_is_tried_again_after_its_time_out_and_gets_work() {
    let ws = generated_workspace(12, 3);
    let port = free_port();
    let down = format!("http://127.0.0.1:{port}/v1");
    let back = Arc::new(AtomicBool::new(false));
    let answered = AtomicUsize::new(0);
    let seen = back.clone();
    let b = Judge::answering(0, move |r| {
        if r.method == "POST" && answered.fetch_add(1, Ordering::SeqCst) >= 2 {
            // Held (at most a minute) until the first server is back.
            let deadline = Instant::now() + Duration::from_secs(60);
            while !seen.load(Ordering::SeqCst) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        demo_judge::reply(r, Duration::ZERO)
    });
    let mut child = ws
        .cmd()
        .args(run_args(&servers(&[
            &format!("{down}#2"),
            &format!("{}#2", b.url),
        ])))
        .args(["--server-time-out", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn jury");
    // Its stderr, line by line, as it comes.
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        let mut all = String::new();
        for line in std::io::BufReader::new(stderr).lines() {
            let line = line.unwrap_or_default();
            let _ = tx.send(line.clone());
            all.push_str(&line);
            all.push('\n');
        }
        all
    });
    let taken_out = format!("took {down} out of the run for 1s");
    loop {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(line) if line.contains(&taken_out) => break,
            Ok(_) => {}
            Err(e) => panic!("the refused server was never taken out: {e}"),
        }
    }
    // Listening now, on the same port.
    let flag = back.clone();
    let a = Judge::answering(port, move |r| {
        if r.method == "POST" {
            flag.store(true, Ordering::SeqCst);
        }
        demo_judge::reply(r, Duration::ZERO)
    });
    let out = child.wait_with_output().expect("jury");
    let all = format!("{}{}", text(&out.stdout), reader.join().expect("stderr"));
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(back.load(Ordering::SeqCst), "never tried again: {all}");
    let by = verdicts_by_server(&ws);
    assert_eq!(by.values().sum::<usize>(), 36, "nothing lost: {by:?}");
    assert!(
        by.get(&Some(a.url.clone())).copied().unwrap_or(0) > 0,
        "the server back in the run answered: {by:?}"
    );
}

/// A server that ignores a forced tool call, beside one that answers it:
/// `--structured auto` remembers `json_schema` for the first and `tools`
/// for the second, each under its own URL, and the next run starts each
/// server on its own path.
#[test]
fn the_structured_path_is_remembered_per_server() {
    let ws = generated_workspace(20, 3);
    // Answers in the content whatever it is asked (a server whose chat
    // template drops tools).
    let plain = Judge::answering(0, |r| {
        let mut r = r.clone();
        if let Some(body) = r.body.as_object_mut() {
            body.remove("tools");
            body.remove("tool_choice");
        }
        demo_judge::reply(&r, Duration::ZERO)
    });
    let tools = Judge::start(Duration::ZERO);
    let urls = [format!("{}#2", plain.url), format!("{}#2", tools.url)];
    let out = ws
        .cmd()
        .args(run_args(&servers(&[&urls[0], &urls[1]])))
        .args(["--limit", "10"])
        .output()
        .expect("spawn jury");
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out));
    let model = "gpt-4o-mini";
    let remembered = |url: &str| {
        ws.store()
            .endpoint_path(&format!("{url}/chat/completions"), model)
            .expect("read")
            .map(|(mode, _)| mode)
    };
    assert_eq!(remembered(&plain.url).as_deref(), Some("json_schema"));
    assert_eq!(remembered(&tools.url).as_deref(), Some("tools"));

    // The next run starts each server on the path remembered for it.
    let (before_plain, before_tools) = (plain.completions(), tools.completions());
    let out = ws
        .cmd()
        .args(run_args(&servers(&[&urls[0], &urls[1]])))
        .args(["--resume"])
        .output()
        .expect("spawn jury");
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out));
    let posts = |j: &Judge, skip: usize| -> Vec<serde_json::Value> {
        j.server
            .as_ref()
            .expect("running")
            .requests()
            .into_iter()
            .filter(|r| r.method == "POST")
            .skip(skip)
            .map(|r| r.body)
            .collect()
    };
    let (p, t) = (posts(&plain, before_plain), posts(&tools, before_tools));
    assert!(!p.is_empty() && !t.is_empty(), "both took requests");
    assert!(
        p.iter()
            .all(|b| b.get("tools").is_none() && b["response_format"]["type"] == "json_schema"),
        "json_schema from the start on the server that ignores tools"
    );
    assert!(
        t.iter().all(|b| b.get("tools").is_some()),
        "tools on the server that answers them"
    );
}
