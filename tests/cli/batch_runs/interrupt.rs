//! Ctrl-C during a batch run: cancelled on the server when asked to, left
//! running (with how to resume) otherwise.

use super::*;

/// A batch run that stays waiting (its batch never leaves `in_progress`),
/// interrupted (SIGINT, as Ctrl-C sends) once it has looked at its batch;
/// no terminal: stdin is empty.
fn interrupted_batch_run(ws: &Workspace, srv: &ServerRt, extra: &[&str]) -> Output {
    let mut child = spawn_batch_run(ws, srv, extra);
    wait_while_running(&mut child, "the batch was looked at", || {
        looked_at_a_batch(srv)
    });
    let sent = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill -INT");
    assert!(sent.success());
    child.wait_with_output().expect("jury")
}

/// Requests that asked the server to cancel a batch.
fn cancels(srv: &ServerRt) -> Vec<String> {
    srv.server
        .requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/cancel"))
        .map(|r| r.path)
        .collect()
}

fn waiting_server() -> (ServerRt, Arc<BatchApi>) {
    batch_server(BatchScript {
        polls_in_progress: 100_000,
        ..BatchScript::default()
    })
}

#[test]
fn ctrl_c_with_batch_on_interrupt_cancel_cancels_the_batch_on_the_server() {
    let (srv, api) = waiting_server();
    let ws = Workspace::sample();
    let out = interrupted_batch_run(&ws, &srv, &["--batch-on-interrupt", "cancel"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let s = summary(&out);
    assert_eq!(s["status"], "cancelled", "{s}");
    let id = api.created().pop().expect("a batch");
    assert_eq!(cancels(&srv), [format!("/v1/batches/{id}/cancel")]);
    let note = s["note"].as_str().unwrap_or_default();
    assert!(note.contains(&format!("batch {id} cancelled")), "{s}");
    assert!(err.contains("--resume"), "how to go on: {err}");
    assert_eq!(direct_requests(&srv), 0);
    // The run's record says so too.
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).expect("runs");
    assert_eq!(runs[0]["status"], "cancelled");
    assert!(
        runs[0]["note"]
            .as_str()
            .is_some_and(|n| n.contains("cancelled on the server")),
        "{runs}"
    );
}

#[test]
fn ctrl_c_without_a_terminal_leaves_the_batch_running_and_says_how_to_resume() {
    let (srv, api) = waiting_server();
    let ws = Workspace::sample();
    let out = interrupted_batch_run(&ws, &srv, &[]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let s = summary(&out);
    assert_eq!(s["status"], "cancelled", "{s}");
    assert!(cancels(&srv).is_empty(), "the batch is left running");
    let id = api.created().pop().expect("a batch");
    let note = s["note"].as_str().unwrap_or_default();
    assert!(note.contains(&format!("batch {id} left running")), "{s}");
    assert!(err.contains("--batch --resume"), "how to go on: {err}");

    // `--batch-on-interrupt leave` says the same and sends no cancel either.
    let (srv, _api) = waiting_server();
    let ws = Workspace::sample();
    let out = interrupted_batch_run(&ws, &srv, &["--batch-on-interrupt", "leave"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        summary(&out)["note"]
            .as_str()
            .is_some_and(|n| n.contains("left running"))
    );
    assert!(cancels(&srv).is_empty());
}
