//! A key carried in a base URL (`?api-key=`, `user:KEY@host`) is a secret
//! of the run like `OPENAI_API_KEY`: a server echoing it (plain,
//! percent-encoded or JSON-escaped) gets it redacted from the run's output,
//! failures, exports, the HTML report and the store. With several servers,
//! one whose URL carries its own credential is sent that and never
//! `OPENAI_API_KEY`.
#![cfg(feature = "tui")]

use crate::common;
use common::*;
use jury::testserver::{RecordedRequest, Reply, demo_judge};
use std::time::Duration;

/// The query's key, decoded; in the URL it is percent-encoded.
const QUERY_KEY: &str = "sk-URLKEY/7+q";
const QUERY_KEY_IN_URL: &str = "sk-URLKEY%2F7%2Bq";
/// The password of the URL's user.
const USER_KEY: &str = "pw-USERINFO-55";
const ENV_KEY: &str = "sk-ENVKEY-31";

/// Every form the server echoes: decoded, as the URL wrote it, and with
/// JSON escapes (which the answer's JSON decodes later).
fn echoed_forms() -> [String; 5] {
    [
        QUERY_KEY.to_string(),
        QUERY_KEY_IN_URL.to_string(),
        QUERY_KEY.replace('/', "\\/").replacen('s', "\\u0073", 1),
        USER_KEY.to_string(),
        USER_KEY.replacen('-', "\\u002D", 1),
    ]
}

/// Parts of the credentials that must be nowhere.
const NEEDLES: [&str; 3] = ["URLKEY", "USERINFO", "u002DUSER"];

/// Answers that echo the URL's credentials: a 500 body, an error event, then
/// the demo judge's answer with every form in an entry's text and an entry
/// without ids (a failure quoting the answer).
fn echoing(r: &RecordedRequest) -> Reply {
    let forms = echoed_forms().join(" ");
    match r.seq {
        0 => Reply::Status {
            code: 500,
            headers: vec![],
            body: format!(r#"{{"error":{{"message":"upstream failed for {forms}"}}}}"#),
        },
        1 => Reply::ErrorEvent {
            message: format!("stream aborted; key was {forms}"),
        },
        _ => demo_judge::reply(r, Duration::ZERO).reshaped(5, |args| {
            let mut v: serde_json::Value = serde_json::from_str(&args).expect("demo JSON");
            let list = v
                .as_object_mut()
                .and_then(|o| o.values_mut().find_map(|x| x.as_array_mut()))
                .expect("an entry list");
            list[0]["evaluationText"] = "key is @F@ indeed".into();
            // The first answer's second entry has no id: a failure quoting it.
            if r.seq == 2
                && let Some(o) = list.get_mut(1).and_then(|e| e.as_object_mut())
            {
                o.insert("evaluationText".into(), "again @F@".into());
                o.remove("id");
            }
            v.to_string().replace("@F@", &forms)
        }),
    }
}

#[test]
fn a_key_in_the_base_url_echoed_in_any_form_is_never_shown_stored_or_exported() {
    let fx = SampleRun::start(echoing);
    let url = fx
        .srv
        .url()
        .replace("http://", &format!("http://bob:{USER_KEY}@"))
        + &format!("?api-version=1&api-key={QUERY_KEY_IN_URL}");
    let out = fx.ws.judge(
        &url,
        None,
        &["--mode", "2", "--limit", "2", "--concurrency", "1"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The server really was sent both credentials, and echoed them.
    let first = &fx.srv.completions()[0];
    assert!(first.path.contains(QUERY_KEY_IN_URL), "{}", first.path);
    assert!(
        first
            .header("authorization")
            .is_some_and(|a| a.starts_with("Basic ")),
        "{:?}",
        first.headers
    );
    assert!(fx.srv.completions().len() >= 3);
    let export = text(&fx.ws.run(&["export", "--format", "jsonl"]).stdout);
    assert!(export.contains("key is <redacted>"), "{export}");
    let failures = text(&fx.ws.run(&["failures", "--json"]).stdout);
    assert!(failures.contains("<redacted>"), "{failures}");

    let html = fx.ws.path("report.html");
    let html_arg = html.to_str().expect("utf-8 path");
    let mut seen = vec![
        ("run stdout".to_string(), text(&out.stdout)),
        ("run stderr".to_string(), text(&out.stderr)),
    ];
    for a in [
        vec!["failures"],
        vec!["failures", "--json"],
        vec!["export", "--format", "jsonl"],
        vec!["export", "--format", "csv"],
        vec!["export", "--format", "awag"],
        vec!["export", "--format", "wide"],
        vec!["runs", "--json"],
        vec!["report", "--format", "json", "--bootstrap", "0"],
        vec![
            "report",
            "--format",
            "html",
            "--bootstrap",
            "0",
            "--out",
            html_arg,
        ],
    ] {
        let o = fx.ws.run(&a);
        seen.push((
            format!("{a:?}"),
            format!("{}{}", text(&o.stdout), text(&o.stderr)),
        ));
    }
    seen.push((
        "HTML report".into(),
        std::fs::read_to_string(&html).unwrap_or_default(),
    ));
    for (what, s) in &seen {
        for needle in NEEDLES {
            assert!(!s.contains(needle), "{what} leaked a URL credential: {s}");
        }
    }
    let needles: Vec<&[u8]> = NEEDLES.iter().map(|n| n.as_bytes()).collect();
    assert_store_never_holds(&fx.ws, &needles, "a URL credential");
}

/// Two servers: `a` carries its own credential in its URL, `b` none. `a`
/// gets its own (its query, or its user and password as Basic auth) and
/// never `OPENAI_API_KEY`; `b` gets `OPENAI_API_KEY`.
#[test]
fn a_server_whose_url_carries_a_credential_is_sent_that_and_not_the_environment_key() {
    for own in ["query", "user"] {
        let ws = generated_workspace(12, 2);
        let a = ServerRt::demo();
        let b = ServerRt::demo();
        let a_url = match own {
            "query" => format!("{}?api-key={QUERY_KEY_IN_URL}", a.url()),
            _ => a
                .url()
                .replace("http://", &format!("http://bob:{USER_KEY}@")),
        };
        let out = ws
            .cmd()
            .env("OPENAI_API_KEY", ENV_KEY)
            .args([
                "run",
                "--mode",
                "2",
                "--persona",
                "tester",
                "--perspective",
                "classification",
                "--batch-size",
                "2",
                "--base-url",
                &format!("{a_url}#2"),
                "--base-url",
                &format!("{}#2", b.url()),
            ])
            .output()
            .expect("spawn jury");
        assert!(out.status.success(), "{own}: {}", text(&out.stderr));
        let (to_a, to_b) = (a.completions(), b.completions());
        assert!(!to_a.is_empty() && !to_b.is_empty(), "{own}: both served");
        for r in &to_a {
            let auth: Vec<&str> = r
                .headers
                .iter()
                .filter(|(k, _)| k.eq_ignore_ascii_case("authorization"))
                .map(|(_, v)| v.as_str())
                .collect();
            assert!(
                !auth.iter().any(|v| v.contains(ENV_KEY)),
                "{own}: server a was sent OPENAI_API_KEY: {auth:?}"
            );
            match own {
                "query" => {
                    assert!(r.path.contains(QUERY_KEY_IN_URL), "{}", r.path);
                    assert!(auth.is_empty(), "{auth:?}");
                }
                _ => {
                    // `bob:pw-USERINFO-55` as HTTP Basic auth, alone.
                    let basic = base64(format!("bob:{USER_KEY}").as_bytes());
                    assert_eq!(auth, [format!("Basic {basic}").as_str()]);
                }
            }
        }
        for r in &to_b {
            assert_eq!(
                r.header("authorization"),
                Some(format!("Bearer {ENV_KEY}").as_str()),
                "{own}: server b is sent the environment's key"
            );
            assert!(!r.path.contains("URLKEY"), "{}", r.path);
        }
    }
}

/// Standard base64 with padding (HTTP Basic auth's encoding).
fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | (u32::from(b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
