//! `jury runs` books tokens and cost per judge configuration and per verdict.
#![cfg(feature = "tui")]

use crate::common;
use common::*;

#[test]
fn the_ledger_books_each_configuration_and_prices_known_models() {
    let fx = SampleRun::demo();
    for (mode, model) in [
        ("1", "gpt-4o-mini"),
        ("2", "gpt-4o-mini"),
        ("2", "llama-local"),
    ] {
        let flags = ["--mode", mode, "--limit", "4", "--model", model];
        assert_success(&fx.judge(None, &flags), &flags);
    }
    let out = fx.ws.ok(&["runs"]);
    let line = |name: &str| -> Vec<String> {
        out.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no ledger line '{name}' in:\n{out}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    let m1 = line("awag mode 1 · gpt-4o-mini");
    // name (5 words), runs, verdicts, tokens, tok/verdict, cost, $/verdict
    assert_eq!(m1[5], "1");
    assert_eq!(m1[6], "20");
    assert!(m1[9].starts_with('$') && m1[10].starts_with('$'), "{m1:?}");
    let local = line("awag mode 2 · llama-local");
    assert_eq!(local[9], "-");
    assert!(out.contains("without a price"), "{out}");
    let total = line("total");
    assert_eq!(total[1], "3");
    assert_eq!(total[2], "60");
    // Tokens per verdict is tokens / verdicts.
    let tokens: f64 = total[3].parse().unwrap();
    let per: f64 = total[4].parse().unwrap();
    assert!((tokens / 60.0 - per).abs() <= 0.5, "{total:?}");
}

/// prices.toml is read by the one config loader: a bad entry stops a run
/// before any request, naming the file and the entry.
#[test]
fn a_broken_price_table_stops_the_run_naming_file_and_entry() {
    let fx = SampleRun::demo();
    std::fs::create_dir_all(fx.ws.path("xdg-config/jury")).unwrap();
    fx.ws.write(
        "xdg-config/jury/prices.toml",
        "ok = [1, 2]\nmy-model = [0.5]\n",
    );
    let out = fx.judge(
        None,
        &["--mode", "2", "--limit", "2", "--model", "my-model"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("prices.toml") && err.contains("my-model: expected [input, output]"),
        "{err}"
    );
    assert!(fx.srv.completions().is_empty(), "{err}");
}

/// A server that reports no usage: the run's summary, `jury runs` and the
/// ledger say the tokens and the cost are unknown (was: "0 tokens" and a
/// cost of nothing).
#[test]
fn usage_never_reported_is_shown_as_unknown_not_zero() {
    let fx = SampleRun::start(|r| {
        match jury::testserver::demo_judge::reply(r, std::time::Duration::ZERO) {
            jury::testserver::Reply::ToolCall {
                name,
                arguments,
                chunk,
                finish,
                ..
            } => jury::testserver::Reply::ToolCall {
                name,
                arguments,
                chunk,
                finish,
                usage: None,
            },
            other => other,
        }
    });
    let flags = ["--mode", "2", "--limit", "2", "--model", "gpt-4o-mini"];
    let out = fx.judge(None, &flags);
    assert_success(&out, &flags);
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    let summary = said
        .lines()
        .find(|l| l.starts_with("run 1 "))
        .unwrap_or_else(|| panic!("no summary in:\n{said}"));
    assert!(summary.contains("tokens unknown"), "{summary}");
    assert!(
        !summary.contains(" 0 tokens") && !summary.contains('$'),
        "{summary}"
    );
    let runs = fx.ws.ok(&["runs"]);
    let row: Vec<&str> = runs
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .unwrap_or_else(|| panic!("no row in:\n{runs}"))
        .split_whitespace()
        .collect();
    // ... verdicts, failures, tokens, cost
    let n = row.len();
    assert_eq!((row[n - 2], row[n - 1]), ("?", "?"), "{runs}");
    let total: Vec<&str> = runs
        .lines()
        .find(|l| l.starts_with("total"))
        .unwrap_or_else(|| panic!("no total in:\n{runs}"))
        .split_whitespace()
        .collect();
    // total, runs, verdicts, tokens, tok/verdict, cost, $/verdict
    assert_eq!(&total[3..7], ["?", "?", "?", "?"], "{runs}");
    // The AwAg export says unknown too.
    let awag: serde_json::Value =
        serde_json::from_str(&fx.ws.ok(&["export", "--format", "awag"])).unwrap();
    let usage = awag.to_string();
    assert!(
        usage.contains(
            r#""usage":{"prompt_tokens":null,"completion_tokens":null,"usage_unknown_requests":1}"#
        ),
        "{usage}"
    );
}
