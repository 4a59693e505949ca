//! Runs that say honestly what happened, and the provider side of a real
//! judge: the engine and the binary against servers on 127.0.0.1 that fail
//! the way real ones do — refused connections, answers cut off half-way,
//! keep-alive-only streams, Retry-After past the cap, 400s, runaway bodies,
//! redirects, servers that echo the key, ignore `tool_choice`, need
//! `--jinja`, overflow the context or close kept-alive connections.
#![cfg(feature = "tui")]

use crate::common;
use common::{
    ServerRt, Workspace, asked_keys, config, correct_args, generated_workspace, request, run,
    store_with, text,
};
use jury::domain::{FailureKind, Mode, RunStatus};
use jury::provider::ToolMode;
use jury::store::Store;
use jury::testserver::{RecordedRequest, Reply, TestServer, demo_judge};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

mod answers;
mod connections;
mod cost;
mod runs;
mod salvage;
mod structured;

fn status(code: u16, headers: &[(&str, &str)], body: Value) -> Reply {
    Reply::Status {
        code,
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        body: body.to_string(),
    }
}

/// A streamed answer of the demo judge's arguments cut off (connection
/// closed, no `[DONE]`) at `share` of their length.
fn cut(req: &RecordedRequest, share: f64) -> Reply {
    let args = correct_args(req);
    let n = args.chars().count();
    Reply::Truncated {
        cut_at: (n as f64 * share) as usize,
        arguments: args,
    }
}

// The binary's arguments and output, for the tests that run it.

fn run_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "run",
        "--mode",
        "2",
        "--persona",
        "tester",
        "--perspective",
        "classification",
    ];
    v.extend_from_slice(extra);
    v
}

fn out_text(o: &std::process::Output) -> String {
    format!("{}{}", text(&o.stdout), text(&o.stderr))
}
