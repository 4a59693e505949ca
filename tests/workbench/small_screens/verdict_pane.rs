//! The verdict pane at 80 columns: long values wrapped, newlines without a
//! return sign, and claim rows before any claim text is configured.

use super::*;

/// Where the pane whose top border shows `title` starts and ends (chars).
fn pane_columns(s: &str, title: &str) -> (usize, usize) {
    let top = s.lines().next().unwrap().trim_matches('"');
    let at = top.find(title).expect(title);
    let start = top[..at].chars().count();
    // The border corner before the title.
    let left = top[..at]
        .rfind('┌')
        .map(|b| top[..b].chars().count())
        .unwrap_or(start);
    let right = top[at..]
        .find('┐')
        .map(|b| top[..at + b].chars().count())
        .unwrap_or(top.chars().count());
    (left + 1, right)
}

// ----- the verdict pane -----

fn long_values() -> jury::tui::app::Loaded {
    let mut data = loaded();
    for it in &mut data.items {
        it.classifications.push(cls(
            "work-logistics",
            "Travel, rooms, deliveries?",
            &["logistics-and-travel-arrangements", "not"],
            "logistics-and-travel-arrangements",
        ));
    }
    let label = |c: &str, v: Value, who: &str| Label {
        key: ComboKey::new("k-001", c, "classification"),
        persona_id: "kenton".into(),
        value: v,
        note: String::new(),
        who: who.into(),
        created_at: "2026-11-22T10:00:00.000Z".into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    };
    data.labels = vec![
        label("urgency", Value::Likert(4), "alice"),
        label("work-logistics", Value::Likert(2), "alice"),
    ];
    data
}

#[test]
fn the_verdict_pane_wraps_the_classifiers_value_and_mapped_labels_at_80_columns() {
    let mut app = app_with(long_values());
    sized(&mut app, 80, 24);
    key(&mut app, 'm'); // mode 3: the Likert labels read as AGREE/DISAGREE
    let s = screen(&app);
    let (from, to) = pane_columns(&s, "verdicts");
    // A value longer than the pane is wide goes on over the next row: read
    // without the spaces wrapping puts in.
    let text: String = pane_text(&s, from, to).split_whitespace().collect();
    for want in [
        "classifier: logistics-and-travel-arrangements",
        "H AGREE (mapped: likert 4)",
        "H DISAGREE (mapped: likert 2)",
    ] {
        let want: String = want.split_whitespace().collect();
        assert!(text.contains(&want), "{want}:\n{text}\n{s}");
    }
    insta::assert_snapshot!("verdicts_80x24", s);
    sized(&mut app, 160, 45);
    insta::assert_snapshot!("verdicts_160x45", screen(&app));
}

// ----- no ⏎ on screen -----

#[test]
fn text_with_newlines_shows_no_return_sign() {
    let mut data = loaded();
    data.items[0].title = "Stock-out\non BM-440".into();
    data.labels = vec![Label {
        key: ComboKey::new("k-001", "urgency", "classification"),
        persona_id: "kenton".into(),
        value: Value::Likert(4),
        note: "see\nbelow".into(),
        who: "alice".into(),
        created_at: "2026-11-22T10:00:00.000Z".into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    }];
    let mut app = app_with(data);
    let s = screen(&app);
    assert!(!s.contains('⏎'), "{s}");
    assert!(s.contains("Stock-out on BM-440"), "{s}");
    // A note keeps its line break: it is shown in full, a line a line.
    assert!(s.contains("✎ alice: see"), "{s}");
    assert!(s.contains("below"), "{s}");
    // The agreement view's sides and notes come from the store and the report.
    let (mut agree, mut groups) = agreement(160, 45);
    groups[0].right = "alice\nsmith".into();
    answer_agreement(&mut agree, AgreementPart::Figures(Ok(groups)));
    answer_agreement(
        &mut agree,
        AgreementPart::Notes(vec!["self-consistency · demo\nmodel".into()]),
    );
    let s = screen(&agree);
    assert!(!s.contains('⏎'), "{s}");
    assert!(s.contains("alice smith"), "{s}");
    // The label history popup.
    key(&mut app, 'h');
    update(
        &mut app,
        Msg::LabelHistory {
            key: ComboKey::new("k-001", "urgency", "classification"),
            result: Ok(vec![]),
            marks: Vec::new(),
        },
    );
    assert!(!screen(&app).contains('⏎'));
}

// ----- claims before any is configured -----

fn claim_label(item: &str, claim: &str, value: Value, who: &str) -> Label {
    Label {
        key: ComboKey::new(item, claim, "proposition"),
        persona_id: "-".into(),
        value,
        note: String::new(),
        who: who.into(),
        created_at: "2026-11-22T10:00:00.000Z".into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    }
}

#[test]
fn claim_rows_without_claim_text_give_way_to_one_hint_line() {
    let mut data = loaded();
    data.labels = vec![
        claim_label("k-001", "c-deadline", Value::Bool(true), "bob"),
        claim_label("k-001", "c-money", Value::Bool(false), "bob"),
    ];
    let mut app = app_with(data);
    sized(&mut app, 80, 24);
    let s = screen(&app);
    let (from, to) = pane_columns(&s, "verdicts");
    let text = pane_text(&s, from, to);
    assert!(!text.contains("c-deadline · proposition"), "{text}");
    assert!(!text.contains("c-money · proposition"), "{text}");
    assert!(text.contains("claims.toml"), "{text}");
    assert!(
        text.contains("c-deadline") && text.contains("c-money"),
        "{text}"
    );
    // Only the AwAg rows take the focus and labels.
    assert_eq!(app.row_count(), 2);
    insta::assert_snapshot!("claims_hidden_80x24", s);
    // The first start's first screen (its legend up): the rows, and no
    // claims line a new user has no use for yet.
    app.chrome.legend = Some(String::new());
    let s = screen(&app);
    let text = pane_text(&s, from, to);
    assert!(
        text.contains("work-pers") && !text.contains("claim(s) hidden"),
        "{s}"
    );
    app.chrome.legend = None;
    // A configured claim shows its row; the other stays in the hint.
    app.data.claims = jury::tui::app::claims::parse(
        "[[claim]]\nid = \"c-deadline\"\nclaim = \"A deadline is named.\"\n",
    )
    .unwrap();
    let s = screen(&app);
    let text = pane_text(&s, from, to);
    assert!(text.contains("c-deadline · proposition"), "{text}");
    assert!(!text.contains("c-money · proposition"), "{text}");
    assert_eq!(app.row_count(), 3);
}
