//! A server's file and batch ids are untrusted text: a server that puts the
//! API key in the id of an upload, a batch or an output file gets neither
//! the id stored (`batch_jobs`) nor the key printed by `jury run`, listed
//! by `jury runs [--json]` or kept anywhere in the store (which the
//! workbench reads its batches from).
#![cfg(feature = "tui")]

use crate::common;

use common::{ServerRt, Workspace, assert_store_never_holds, text};
use jury::testserver::{BatchApi, BatchScript, Reply};
use std::time::Duration;

const KEY: &str = "sk-CANARY-IDS-40";

fn demo(r: &jury::testserver::RecordedRequest) -> Reply {
    jury::testserver::demo_judge::reply(r, Duration::ZERO)
}

#[test]
fn a_key_in_a_file_batch_or_output_id_is_never_printed_stored_or_listed() {
    for of in ["file", "batch", "output"] {
        let api = BatchApi::new(BatchScript::default(), demo);
        api.prefix_ids(of, &format!("{KEY}_"));
        let a = api.clone();
        let srv = ServerRt::start(move |r| a.reply(r));
        let ws = Workspace::sample();
        let out = ws.judge(
            &srv.url(),
            Some(KEY),
            &[
                "--mode",
                "1",
                "--items",
                "k-001,k-002",
                "--batch",
                "--batch-poll",
                "1",
            ],
        );
        let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
        // The server really made an id holding the key, and jury refused it.
        let made = srv
            .server
            .requests()
            .iter()
            .any(|r| r.path.contains("/files") || r.path.contains("/batches"));
        assert!(made, "{of}: the batch path was taken: {said}");
        assert!(
            said.contains("holds a credential of this run"),
            "{of}: the refusal is said: {said}"
        );
        let mut seen = vec![("run".to_string(), said)];
        for args in [
            vec!["runs"],
            vec!["runs", "--json"],
            vec!["failures", "--json"],
        ] {
            let o = ws.run(&args);
            seen.push((
                format!("{of}: {args:?}"),
                format!("{}{}", text(&o.stdout), text(&o.stderr)),
            ));
        }
        for (what, s) in &seen {
            assert!(!s.contains("CANARY"), "{what} shows the key: {s}");
        }
        assert_store_never_holds(&ws, &[b"CANARY"], "the key from an id");
    }
}
