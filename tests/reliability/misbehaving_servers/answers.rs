//! Answers a server should not give: Retry-After past the cap, a 400,
//! runaway bodies, redirects to another origin, an echoed key.

use super::*;

/// Retry-After past the cap pauses the run (exit 1, resumable) instead
/// of a storm of requests; a 400 is never resent; bad numbers are refused.
#[test]
fn retry_after_past_the_cap_pauses_and_a_400_is_never_resent() {
    let ws = generated_workspace(10, 3);
    let srv = ServerRt::start(|_| {
        status(
            429,
            &[("retry-after", "86400")],
            json!({"error": {"message": "slow down", "type": "rate_limit"}}),
        )
    });
    let out = ws.run_with(&srv.url(), &run_args(&["--concurrency", "4"]));
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains("--resume"), "{all}");
    assert!(srv.completions().len() <= 4, "{}", srv.completions().len());
    // Resumed against a server that answers, the run completes.
    let good = ServerRt::demo();
    let out = ws.run_with(&good.url(), &run_args(&["--resume"]));
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out));

    let ws = generated_workspace(10, 3);
    let srv = ServerRt::start(|_| {
        status(
            400,
            &[("x-should-retry", "true")],
            json!({"error": {"message": "unsupported value", "type": "invalid_request_error"}}),
        )
    });
    let out = ws.run_with(&srv.url(), &run_args(&["--batch-size", "10"]));
    assert_eq!(out.status.code(), Some(2), "{}", out_text(&out));
    assert_eq!(
        srv.completions().len(),
        3,
        "one request per batch, none resent"
    );

    for bad in [
        &["--max-attempts", "0"][..],
        &["--budget", "NaN"],
        &["--budget=-1"],
        &["--temperature=-0.5"],
        &["--temperature", "inf"],
        &["--idle-timeout", "0"],
    ] {
        let out = ws.run_with(&srv.url(), &run_args(bad));
        let all = out_text(&out);
        assert_eq!(out.status.code(), Some(1), "{bad:?}: {all}");
        let flag = bad[0].split('=').next().unwrap();
        assert!(all.contains(flag), "{bad:?}: {all}");
    }
    assert_eq!(
        srv.completions().len(),
        3,
        "refused before anything was sent"
    );
}

/// A 200 MB answer is cut at the cap (8 MB by default), recorded once,
/// and the process stays far from 600 MB.
#[test]
fn an_oversized_answer_is_cut_recorded_once_and_memory_stays_bounded() {
    let ws = generated_workspace(2, 2);
    let srv = ServerRt::start(|_| Reply::Flood {
        bytes: 200 * 1024 * 1024,
    });
    let child = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .args(run_args(&["--batch-size", "4"]))
        .output()
        .unwrap();
    assert_eq!(child.status.code(), Some(2), "{}", out_text(&child));
    let f = ws.store().failures(None).unwrap();
    assert_eq!(f.len(), 1, "one record for the request");
    assert!(f[0].reason.contains("cap"), "{}", f[0].reason);
    assert!(f[0].raw_response.len() <= 8 * 1024 * 1024);
    assert_eq!(
        srv.completions().len(),
        1,
        "a runaway answer is not asked again"
    );
    // Peak resident memory of the children this process waited for: the other
    // tests of the crate share the process, so this bounds this run's child too.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let peak_mb = ru.ru_maxrss / 1024;
    assert!(peak_mb < 600, "peak RSS {peak_mb} MB");
}

/// A POST is not followed to another origin; the error names both URLs.
/// A same-origin 307 is followed.
#[test]
fn redirects_to_another_origin_are_refused_naming_both_urls() {
    let ws = generated_workspace(2, 2);
    let elsewhere = ServerRt::demo();
    let target = format!("{}/chat/completions", elsewhere.url());
    let t2 = target.clone();
    let srv = ServerRt::start(move |_| status(307, &[("location", &t2)], json!({})));
    let out = ws.run_with(&srv.url(), &run_args(&[]));
    let all = out_text(&out);
    assert_eq!(out.status.code(), Some(1), "{all}");
    assert!(all.contains(&target), "{all}");
    assert!(
        all.contains(&format!("{}/chat/completions", srv.url())),
        "{all}"
    );
    assert!(
        elsewhere.completions().is_empty(),
        "nothing reached the other origin"
    );

    let hits = Arc::new(AtomicUsize::new(0));
    let h = hits.clone();
    let srv = ServerRt::start(move |r| {
        if r.path.starts_with("/v1/") {
            h.fetch_add(1, Ordering::SeqCst);
            status(307, &[("location", "/v2/chat/completions")], json!({}))
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    });
    let out = ws.run_with(&srv.url(), &run_args(&[]));
    assert_eq!(out.status.code(), Some(0), "{}", out_text(&out));
    assert!(hits.load(Ordering::SeqCst) >= 1);
}

/// A key the server echoes inside a 200 answer is redacted before
/// anything is stored, exported or printed.
#[test]
fn an_echoed_key_is_redacted_before_anything_is_stored() {
    const KEY: &str = "sk-CANARY-7f3a9c1e55";
    let ws = generated_workspace(3, 2);
    let srv = ServerRt::start(|r| {
        let key = r
            .header("authorization")
            .unwrap_or("")
            .trim_start_matches("Bearer ")
            .to_string();
        let mut v: Value = serde_json::from_str(&correct_args(r)).unwrap();
        match r.seq % 4 {
            0 => {
                // Inside a valid verdict's text.
                v["resultItems"][0]["evaluationText"] = json!(format!("your key is {key}"));
                Reply::tool("get_evaluations", v.to_string())
            }
            1 => Reply::Refusal {
                text: format!("I will not, {key}"),
            },
            2 => Reply::Truncated {
                arguments: format!("{{\"resultItems\": [{{\"evaluationText\": \"{key} {key}"),
                cut_at: 200,
            },
            _ => Reply::content(format!("plain words around {key} and no JSON")),
        }
    });
    let run = |extra: &[&str]| {
        ws.cmd()
            .env("OPENAI_BASE_URL", srv.url())
            .env("OPENAI_API_KEY", KEY)
            .args(run_args(extra))
            .output()
            .unwrap()
    };
    let out = run(&["--batch-size", "2", "--concurrency", "1"]);
    assert!(!out_text(&out).contains("CANARY"), "{}", out_text(&out));
    for fmt in ["jsonl", "csv", "awag"] {
        let e = ws.ok(&["export", "--format", fmt]);
        assert!(!e.contains("CANARY"), "{fmt}: {e}");
    }
    let f = ws.ok(&["failures"]);
    assert!(!f.contains("CANARY"), "{f}");
    drop(ws.store());
    for entry in std::fs::read_dir(ws.dir.path()).unwrap() {
        let p = entry.unwrap().path();
        if p.is_file() {
            let bytes = std::fs::read(&p).unwrap();
            assert!(
                !bytes.windows(6).any(|w| w == b"CANARY"),
                "{} holds the key",
                p.display()
            );
        }
    }
    assert!(srv.completions().len() >= 4);
}
