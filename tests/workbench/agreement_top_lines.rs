//! The estimate and trust lines at the top of the agreement view are read to
//! their end: wrapped, not cut, at 160 columns and at 80.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::tui::fixtures::answer_agreement;
use jury::tui::msg::AgreementPart;

#[test]
fn the_estimate_and_trust_lines_are_wrapped_not_cut() {
    let lines = vec![
        "urgency: classifier accuracy 0.812 [0.741, 0.869] from 120 sampled labels · prediction-powered with awag mode 2 · gpt-4o-mini 0.797 [0.752, 0.838] on 2,400 items (interval 38 % narrower) END-ESTIMATE".to_string(),
        "trust urgency · awag mode 2 · gpt-4o-mini: confidence ≥ 0.83 agrees with people at ≥ 90 % with probability ≥ 90 %, covering 61 % of verdicts; 936 need a person END-TRUST".to_string(),
    ];
    for (w, h) in [(160, 45), (80, 24)] {
        let mut app = app();
        app.chrome.size = (w, h);
        key(&mut app, 'A');
        answer_agreement(&mut app, AgreementPart::Estimates(lines.clone()));
        let s = screen(&app);
        assert!(s.contains("END-ESTIMATE"), "{w}x{h}:\n{s}");
        if h >= 30 {
            assert!(s.contains("END-TRUST"), "{w}x{h}:\n{s}");
        }
    }
}
