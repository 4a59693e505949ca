//! The API key never leaves the process, even when a server echoes it back in
//! a 500 body or in an error event after a 200: not in the run's output, the
//! failures, any export, nor the store's bytes (database and WAL).
#![cfg(feature = "tui")]

use crate::common;
use common::*;
use jury::testserver::{Reply, demo_judge};
use std::time::Duration;

const CANARY: &str = "sk-CANARY-ECHO-51c0ffee";

#[test]
fn a_key_echoed_in_500_bodies_and_error_events_is_never_written() {
    let fx = SampleRun::start(|r| {
        let auth = r.header("authorization").unwrap_or("").to_string();
        match r.seq {
            0 => Reply::Status {
                code: 500,
                headers: vec![],
                body: format!(r#"{{"error":{{"message":"upstream failed for {auth}"}}}}"#),
            },
            1 => Reply::ErrorEvent {
                message: format!(
                    "stream aborted; key was {}",
                    auth.trim_start_matches("Bearer ")
                ),
            },
            _ => demo_judge::reply(r, Duration::ZERO),
        }
    });
    let out = fx.judge(
        Some(CANARY),
        &["--mode", "2", "--limit", "2", "--concurrency", "1"],
    );
    // The server really saw the key.
    let reqs = fx.srv.completions();
    assert!(reqs[0].header("authorization").unwrap().contains(CANARY));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let mut seen = vec![
        ("run stdout", text(&out.stdout)),
        ("run stderr", text(&out.stderr)),
    ];
    for a in [
        vec!["failures"],
        vec!["failures", "--json"],
        vec!["export", "--format", "jsonl"],
        vec!["export", "--format", "csv"],
        vec!["export", "--format", "awag"],
        vec!["runs", "--json"],
        vec!["report", "--format", "json", "--bootstrap", "0"],
    ] {
        let o = fx.ws.run(&a);
        seen.push((
            "command",
            format!("{a:?}: {}{}", text(&o.stdout), text(&o.stderr)),
        ));
    }
    for (what, s) in &seen {
        assert!(!s.contains("CANARY"), "{what} leaked the key: {s}");
    }
    // Both echoing answers were really served, then retried past.
    let served = fx.srv.completions().len();
    assert!(served >= 3, "{served} requests");
    assert_store_never_holds(&fx.ws, &[b"CANARY"], "the key");
}

const URL_CANARY: &str = "sk-URLCANARY-77";

/// Every place a run can leave text: its output, the listings and exports,
/// and the store's bytes.
fn assert_nowhere(ws: &Workspace, out: &std::process::Output, canary: &str) {
    let mut seen = vec![
        ("run stdout".to_string(), text(&out.stdout)),
        ("run stderr".to_string(), text(&out.stderr)),
    ];
    for a in [vec!["failures", "--json"], vec!["runs", "--json"]] {
        let o = ws.run(&a);
        seen.push((
            format!("{a:?}"),
            format!("{}{}", text(&o.stdout), text(&o.stderr)),
        ));
    }
    for (what, s) in &seen {
        assert!(
            !s.contains(canary),
            "{what} leaked the URL's credential: {s}"
        );
    }
    assert_store_never_holds(ws, &[canary.as_bytes()], "the URL's credential");
}

fn run_against(ws: &Workspace, base_url: &str) -> std::process::Output {
    ws.judge(
        base_url,
        None,
        &["--mode", "2", "--limit", "1", "--concurrency", "1"],
    )
}

#[test]
fn credentials_in_the_base_url_are_masked_in_output_errors_and_the_store() {
    // A working endpoint: the run prints its endpoint and `auto` remembers
    // the structured path per endpoint in the store.
    let fx = SampleRun::demo();
    let with_creds = fx
        .srv
        .url()
        .replace("http://", &format!("http://bob:{URL_CANARY}@"))
        + &format!("?api-version=1&api-key={URL_CANARY}");
    let out = run_against(&fx.ws, &with_creds);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_nowhere(&fx.ws, &out, URL_CANARY);
    // The remembered path is there, under the masked URL.
    let db = rusqlite::Connection::open(&fx.ws.db).unwrap();
    let endpoint: String = db
        .query_row("SELECT endpoint FROM endpoint_paths", [], |r| r.get(0))
        .unwrap();
    assert!(
        endpoint.starts_with("http://***:***@127.0.0.1:"),
        "{endpoint}"
    );
    assert!(
        endpoint.ends_with("api-version=1&api-key=***"),
        "{endpoint}"
    );

    // Nothing listening: the unreachable message names the URL, masked.
    let ws = Workspace::sample();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let out = run_against(&ws, &format!("http://bob:{URL_CANARY}@127.0.0.1:{port}/v1"));
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("http://***:***@127.0.0.1"), "{err}");
    assert_nowhere(&ws, &out, URL_CANARY);

    // A redirect whose Location carries credentials of its own.
    let fx = SampleRun::start(|_| Reply::Status {
        code: 307,
        headers: vec![(
            "location".into(),
            format!("http://eve:{URL_CANARY}@elsewhere.invalid/v1/chat/completions"),
        )],
        body: String::new(),
    });
    let out = run_against(&fx.ws, &fx.srv.url());
    let failures = text(&fx.ws.run(&["failures", "1"]).stdout);
    assert!(
        failures.contains("redirected to http://***:***@elsewhere.invalid"),
        "{failures}"
    );
    assert_nowhere(&fx.ws, &out, URL_CANARY);
}

#[test]
fn an_answer_cut_off_inside_an_echoed_key_keeps_none_of_it() {
    // Every answer echoes the key and is cut off twelve characters into it.
    let fx = SampleRun::start(|r| {
        let auth = r.header("authorization").unwrap_or("").to_string();
        let key = auth.trim_start_matches("Bearer ");
        let arguments =
            format!(r#"{{"evaluations":[{{"itemId":"k-001","reasoning":"as {key} said"#);
        let cut_at = arguments.find(key).unwrap_or(0) + 12;
        Reply::Truncated { arguments, cut_at }
    });
    let out = fx.judge(
        Some(CANARY),
        &["--mode", "2", "--limit", "1", "--concurrency", "1"],
    );
    assert!(
        fx.srv.completions().len() >= 2,
        "the cut answer was retried"
    );
    let failures = fx.ws.run(&["failures", "1", "--json"]);
    let failures = text(&failures.stdout);
    // The cut answer is kept for the failure record, without the key's start.
    assert!(failures.contains("<redacted>"), "{failures}");
    assert_nowhere(&fx.ws, &out, "CANARY");
}

/// The key written with JSON escapes, as a server echoing it inside a 200
/// answer may send it: `\u0073k-…`, uppercase hex, a `\u002D` for the dash.
fn escaped_key_forms(key: &str) -> [String; 3] {
    [
        key.replacen('s', "\\u0073", 1),
        key.replace('-', "\\u002D").replacen('C', "\\u0043", 1),
        key.replacen("sk-", "\\u0073\\u006B\\u002d", 1),
    ]
}

#[test]
fn a_key_echoed_with_json_escapes_is_never_stored_shown_or_exported() {
    // The first answer echoes the key, escaped, in one entry's text and
    // selection, and in a second entry that has no ids (reported as
    // malformed, quoting it); small fragments split the escapes across
    // stream chunks. Later answers are the demo judge's own.
    let fx = SampleRun::start(|r| {
        let auth = r.header("authorization").unwrap_or("").to_string();
        let key = auth.trim_start_matches("Bearer ").to_string();
        let answer = demo_judge::reply(r, Duration::ZERO);
        if r.seq > 0 {
            return answer;
        }
        // An unknown finish reason is kept verbatim: it echoes the key too.
        let finish = Some(format!("done-{key}"));
        let answer = match answer {
            Reply::ToolCall {
                name,
                arguments,
                usage,
                ..
            } => Reply::ToolCall {
                name,
                arguments,
                chunk: 3,
                finish,
                usage,
            },
            other => other,
        };
        answer.reshaped(3, |args| {
            let mut v: serde_json::Value = serde_json::from_str(&args).unwrap();
            let list = v
                .as_object_mut()
                .unwrap()
                .values_mut()
                .find_map(|x| x.as_array_mut())
                .unwrap();
            list[0]["evaluationText"] = "key is @0@ indeed".into();
            list[0]["evaluatedSelection"] = "@1@".into();
            list[1]["evaluationText"] = "again @2@".into();
            list[1].as_object_mut().unwrap().remove("id");
            let mut text = v.to_string();
            for (i, form) in escaped_key_forms(&key).iter().enumerate() {
                text = text.replace(&format!("@{i}@"), form);
            }
            text
        })
    });
    let out = fx.judge(
        Some(CANARY),
        &["--mode", "2", "--limit", "2", "--concurrency", "1"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    // The escaped key really went out in the first answer.
    assert!(
        fx.srv.completions()[0]
            .header("authorization")
            .unwrap()
            .contains(CANARY)
    );
    let failures = text(&fx.ws.run(&["failures", "--json"]).stdout);
    assert!(failures.contains("without complete ids"), "{failures}");
    assert!(failures.contains("done-<redacted>"), "{failures}");
    let mut seen = vec![
        ("run stdout".to_string(), text(&out.stdout)),
        ("run stderr".to_string(), text(&out.stderr)),
        ("failures".to_string(), failures),
    ];
    for a in [
        vec!["failures"],
        vec!["export", "--format", "jsonl"],
        vec!["export", "--format", "csv"],
        vec!["export", "--format", "awag"],
        vec!["report", "--format", "json", "--bootstrap", "0"],
    ] {
        let o = fx.ws.run(&a);
        seen.push((
            format!("{a:?}"),
            format!("{}{}", text(&o.stdout), text(&o.stderr)),
        ));
    }
    let export = text(&fx.ws.run(&["export", "--format", "jsonl"]).stdout);
    assert!(export.contains("key is <redacted> indeed"), "{export}");
    for (what, s) in &seen {
        // Neither the decoded key nor any escaped form of it.
        for part in ["CANARY", "ECHO-51c0ffee", "u002DECHO"] {
            assert!(!s.contains(part), "{what} leaked the key: {s}");
        }
    }
    assert_store_never_holds(
        &fx.ws,
        &[b"CANARY", b"ECHO-51c0ffee", b"u002DECHO"],
        "the key",
    );
}

/// `jury doctor` names the models a server lists when the chosen one is not
/// among them: a server that lists the key (plainly or JSON-escaped) as a
/// model id does not get it printed.
#[test]
fn doctor_never_prints_a_key_the_server_lists_as_a_model() {
    let ws = Workspace::new();
    let srv = ServerRt::start(|r| {
        let auth = r.header("authorization").unwrap_or("").to_string();
        let key = auth.trim_start_matches("Bearer ").to_string();
        if r.method == "GET" {
            let body = format!(
                r#"{{"object":"list","data":[{{"id":"{key}"}},{{"id":"{}"}}]}}"#,
                escaped_key_forms(&key)[0]
            );
            Reply::Status {
                code: 200,
                headers: vec![],
                body,
            }
        } else {
            demo_judge::reply(r, Duration::ZERO)
        }
    });
    let out = ws
        .cmd()
        .env("OPENAI_BASE_URL", srv.url())
        .env("OPENAI_API_KEY", CANARY)
        .args(["doctor", "--model", "m"])
        .output()
        .unwrap();
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(said.contains("does not list the model"), "{said}");
    assert!(said.contains("<redacted>"), "{said}");
    assert!(!said.contains("CANARY"), "doctor leaked the key: {said}");
}
