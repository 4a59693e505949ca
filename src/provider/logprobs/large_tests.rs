//! Log probabilities far from 0 (a server that sends unnormalised scores):
//! normalised after subtracting the largest.

use super::tests::{tok, tokens};
use super::*;
use crate::domain::Agreement;

/// Before, exp(+1000) overflowed and the value read 1.0.
#[test]
fn plus_1000_against_plus_999_is_0_731() {
    let text = r#"{"evaluationAgreement":"AGREE"}"#;
    let toks = tokens(
        text,
        &[
            tok("AG", 1000.0, &[("AG", 1000.0), ("DIS", 999.0)]),
            tok("REE", 0.0, &[]),
        ],
    );
    let a = ComboKey::new("a", "c", "p");
    let got = confidences(
        text,
        &toks,
        Scale::Agreement,
        &[(&a, Value::Agreement(Agreement::Agree))],
    );
    let want = 1.0 / (1.0 + (-1.0f64).exp());
    assert!((got[&a].value - want).abs() < 1e-12, "{:?}", got[&a]);
    assert!((want - 0.731).abs() < 1e-3);
}
