//! Safe data, the store: no command destroys or silently rewrites what a
//! person stored. Real SQLite files and the real binary.
#![cfg(feature = "tui")]

use crate::common;
use common::{Workspace, text};
use jury::store::{Store, StoreError};
use std::path::{Path, PathBuf};

mod exports;
mod store_file;

fn digest(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Runs `cmd` to its end, failing the test (and killing it) if it has not
/// ended within a minute: a read of a FIFO would block for ever.
pub(crate) fn bounded(mut cmd: std::process::Command) -> std::process::Output {
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn jury");
    for _ in 0..1200 {
        if child.try_wait().expect("try_wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = child.kill();
    panic!("{cmd:?} blocked (a FIFO read?)");
}

pub(crate) fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.to_str().expect("utf-8")).expect("path");
    // SAFETY: a NUL-terminated path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
}
