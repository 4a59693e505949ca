//! Only a regular file is read: a FIFO or a device given to the workbench as
//! its keymap, theme, `claims.toml` or store is refused by name, and the
//! workbench never waits on it (a FIFO read blocks until a writer comes,
//! which may be never; `/dev/zero` reads without end). The real binary in
//! tmux: were the read to block, the screen below would never be drawn and
//! the wait for it fails after its 30 s instead of hanging the test.
#![cfg(feature = "tui")]

use crate::tui_tmux_common;
use tui_tmux_common::*;

use std::path::Path;

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().expect("utf-8")).expect("path");
    // SAFETY: a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}

/// `jury tui` on the store `db`, with `dir` as its config directory.
fn tui_cmd(dir: &Path, db: &Path, args: &str) -> String {
    format!(
        "env -u OPENAI_API_KEY JURY_CONFIG={} JURY_USER=tester {} tui --db {} {args}",
        dir.join("config.toml").display(),
        env!("CARGO_BIN_EXE_jury"),
        db.display()
    )
}

/// What is tried, how the config directory gets it, jury's flags, what is said.
type Case = (&'static str, fn(&Path), &'static str, &'static str);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_or_device_as_keymap_theme_or_claims_is_named_and_never_blocks() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let pid = std::process::id();
    // Each case alone: the workbench shows the first warning it has.
    let cases: [Case; 3] = [
        (
            "keymap",
            |d| mkfifo(&d.join("keymap.toml")),
            "",
            "keymap.toml: it is a FIFO (named pipe), not a regular file",
        ),
        (
            "theme",
            |d| {
                std::fs::create_dir(d.join("themes")).expect("themes dir");
                mkfifo(&d.join("themes/mine.toml"));
            },
            "--theme mine",
            "mine.toml: it is a FIFO (named pipe), not a regular file",
        ),
        (
            "claims",
            |d| {
                std::os::unix::fs::symlink("/dev/zero", d.join("claims.toml"))
                    .expect("symlink to /dev/zero")
            },
            "",
            "claims.toml: it is a character device, not a regular file",
        ),
    ];
    for (what, make, args, said) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        make(dir.path());
        let s = Session::start_cmd(
            &format!("jury-special-{what}-{pid}"),
            &format!(
                "exec {}",
                tui_cmd(dir.path(), &dir.path().join("j.db"), args)
            ),
        );
        let screen = wait_for(&s.name, said, |x| {
            x.contains("items 94/94") && x.contains(said)
        })
        .await;
        assert!(screen.contains(said), "{what}: {screen}");
        // Still answering keys: q with nothing unsaved quits at once.
        s.keys(&["q"]);
        wait_gone(&s.name).await;
        assert!(!alive(&s.name), "{what}: q did not end the workbench");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifo_as_the_workbenchs_store_is_refused_by_name() {
    if !have_tmux() {
        eprintln!("tmux is not installed: skipping");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let fifo = dir.path().join("store.fifo");
    mkfifo(&fifo);
    let s = Session::start_cmd(
        &format!("jury-special-store-{}", std::process::id()),
        &format!(
            "{}; echo \"jury exited $?\"; sleep 120",
            tui_cmd(dir.path(), &fifo, "")
        ),
    );
    let screen = wait_for(&s.name, "jury's exit", |x| x.contains("jury exited")).await;
    assert!(screen.contains("jury exited 1"), "{screen}");
    assert!(
        screen.contains("store.fifo is a FIFO (named pipe), not a jury store"),
        "{screen}"
    );
}
