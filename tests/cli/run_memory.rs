//! A run's memory grows with its combinations by what a plan needs, not
//! by copies of it (issue 35: 100 000 combinations peaked at 205 MB when
//! planning held the parsed items twice and the units three times).
//!
//! Two runs of the real binary against the test server, 300 and 6 000
//! items (900 and 18 000 combinations); the peak resident memory of each
//! (VmHWM, from `wait4`) is compared. What each further combination may
//! add is bounded, not how long anything takes.

use crate::common::{self, ServerRt};
use std::process::Stdio;

/// Peak resident memory, in KiB, of `jury run --mode 2` over `n` items.
// The child is reaped by `wait4` (for its own rusage), which clippy does
// not see.
#[allow(clippy::zombie_processes)]
fn peak_kib(n: usize) -> (u64, usize) {
    let ws = common::generated_workspace(n, 3);
    let srv = ServerRt::demo();
    let mut cmd = ws.cmd();
    cmd.env("OPENAI_BASE_URL", srv.url())
        .env("JURY_MODEL", "jury-demo-judge")
        .args(["run", "--mode", "2", "--persona", "tester"])
        .args(["--perspective", "classification"])
        .args(["--batch-size", "50", "--concurrency", "16", "--json"])
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let child = cmd.spawn().expect("spawn jury");
    let (mut status, mut ru): (libc::c_int, libc::rusage) = (0, unsafe { std::mem::zeroed() });
    // Reaped here, with this child's own rusage (not the crate's children).
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) };
    assert_eq!(pid, child.id() as libc::pid_t, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "jury run failed: {status}"
    );
    let verdicts = ws.store().verdicts_for_run(1).expect("verdicts").len();
    (ru.ru_maxrss as u64, verdicts)
}

#[test]
fn a_runs_memory_grows_by_what_its_plan_needs() {
    let (small, small_n) = peak_kib(300);
    let (large, large_n) = peak_kib(6_000);
    assert_eq!(
        (small_n, large_n),
        (900, 18_000),
        "every combination stored"
    );
    let per = (large.saturating_sub(small) * 1024) as f64 / (large_n - small_n) as f64;
    eprintln!(
        "peak RSS {small} KiB at {small_n} combinations, {large} KiB at {large_n}: {per:.0} bytes per combination"
    );
    // Held once, a combination costs its unit (~0.25 KB), a third of its
    // item kept as text (~0.3 KB) and its share of the run's answers and
    // allocator slack: 1 022 bytes measured in a debug build. Parsed items
    // read whole and the units copied per grouping (before): 2 075.
    assert!(
        per < 1_500.0,
        "{per:.0} bytes of peak memory per combination (bound 1 500)"
    );
}
