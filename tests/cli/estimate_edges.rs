//! `jury estimate` at the edges (issue #30 §6): an error level outside the
//! range where intervals can be computed is refused, with a clear message.
#![cfg(feature = "tui")]

use crate::common;
use common::*;

/// Before, `--alpha 1e-16` printed `[NaN, NaN]`.
#[test]
fn an_unusable_alpha_is_refused() {
    let ws = Workspace::new();
    ws.import_sample();
    for bad in ["1e-16", "0.7", "0", "nan"] {
        let out = ws.run(&["estimate", "--alpha", bad]);
        assert_eq!(out.status.code(), Some(1), "--alpha {bad}");
        let err = text(&out.stderr);
        assert!(err.contains("from 0.000001 to 0.5"), "--alpha {bad}: {err}");
    }
    let ok = ws.run(&["estimate", "--alpha", "0.1"]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(!text(&ok.stdout).contains("NaN"));
}
