//! The agreement view names prompt versions as `jury runs` does, by folder
//! and hash (`prompts-v2 (34eb1475)`): in the ranking at its top, its
//! sentence, and the prompt-version lines below the table.
#![cfg(feature = "tui")]

use crate::tui_common;
use tui_common::*;

use jury::domain::*;
use jury::tui::fixtures::{judge_labelled_as, kenton_spec, run_record};
use jury::tui::msg::AgreementPart;

/// Mode 2 with the embedded prompts (right on every labelled row) and with
/// `prompts-v2/` (wrong on every one), in a real store.
fn report_with_two_prompt_versions(dir: &std::path::Path) -> jury::report::Report {
    let mut store = sample_store(&dir.join("j.db"));
    let spec = |hash: &str, folder: Option<&str>| {
        let mut record = run_record("demo", hash);
        record.prompts.dir = folder.map(std::path::PathBuf::from);
        RunSpec {
            prompt_hash: hash.into(),
            record: Some(record),
            ..kenton_spec(Mode::Two, "demo")
        }
    };
    let reading = |right: bool| {
        move |_: usize, l: &Label| {
            if l.key.perspective_id != "classification" {
                return None;
            }
            let agree = l.value.as_agreement()? == Agreement::Agree;
            Some(Value::Likert(if agree == right { 5 } else { 1 }))
        }
    };
    judge_labelled_as(&mut store, &spec("4ad49c217da0e4a0", None), reading(true));
    judge_labelled_as(
        &mut store,
        &spec("34eb1475aaaa0000", Some("/home/me/prompts-v2/awag")),
        reading(false),
    );
    jury::report::Report::build(&store, None, Some(50), 42, &mut ()).unwrap()
}

#[test]
fn the_agreement_view_names_prompt_versions_by_folder_and_hash() {
    let dir = tempfile::tempdir().unwrap();
    let report = report_with_two_prompt_versions(dir.path());
    let summary = &report.rankings[0].summary;
    assert!(
        summary.starts_with("awag mode 2 · demo · embedded (4ad49c21) as "),
        "the sentence names the best by its version: {summary}"
    );
    for (w, h) in [(160, 45), (80, 24)] {
        let mut app = app();
        app.chrome.size = (w, h);
        key(&mut app, 'A');
        answer_agreement(&mut app, AgreementPart::Figures(Ok(report.groups.clone())));
        answer_agreement(&mut app, AgreementPart::Ranking(report.rankings.clone()));
        answer_agreement(&mut app, AgreementPart::Notes(report.notes()));
        let s = screen(&app);
        // The short screen shows the ranking's sentence alone.
        assert!(s.contains("demo · embedded (4ad49c21)"), "{w}x{h}:\n{s}");
        if h >= 30 {
            assert!(
                s.contains(" 1. awag mode 2 · demo · embedded (4ad49c21) as"),
                "{s}"
            );
            assert!(
                s.contains(" 2. awag mode 2 · demo · prompts-v2 (34eb1475) as"),
                "{s}"
            );
        }
        insta::assert_snapshot!(format!("agreement_prompt_names_{w}x{h}"), s);
    }
    // The prompt-version lines the view shows below the table.
    let notes = report.notes().join("\n");
    assert!(notes.contains("    prompts-v2 (34eb1475)  n "), "{notes}");
    assert!(
        notes.contains(": embedded (4ad49c21) → prompts-v2 (34eb1475) on "),
        "{notes}"
    );
}
