//! Compare by mode, by persona and by model.

use super::*;

/// k-001 judged in mode 2 as kenton by two models, as maren by one, and in
/// mode 3 as kenton; alice labelled urgency 4 as kenton.
fn judged_three_ways() -> jury::tui::app::App {
    let mut data = two_personas();
    data.personas.push(Persona {
        id: "tomasz".into(),
        name: "Tomasz, developer".into(),
        definition: serde_json::json!({"type": "professional"}),
    });
    let mut v = |run, cls: &str, mode, value, text: &str, persona: &str, model: &str| {
        let mut x = verdict(run, "k-001", cls, mode, value, text);
        x.persona_id = persona.into();
        x.model = model.into();
        data.verdicts.push(x);
    };
    v(
        1,
        "urgency",
        Mode::Two,
        Value::Likert(4),
        "Kenton: not urgent, agreed.",
        "kenton",
        "gpt-4o-mini",
    );
    v(
        1,
        "work-pers",
        Mode::Two,
        Value::Likert(2),
        "Kenton: it is work.",
        "kenton",
        "gpt-4o-mini",
    );
    v(
        2,
        "urgency",
        Mode::Two,
        Value::Likert(1),
        "Maren: this is urgent.",
        "maren",
        "gpt-4o-mini",
    );
    v(
        3,
        "urgency",
        Mode::Two,
        Value::Likert(5),
        "Llama: clearly not urgent.",
        "kenton",
        "llama-3-8b",
    );
    v(
        4,
        "urgency",
        Mode::Three,
        Value::Agreement(Agreement::Disagree),
        "Mode 3 disagrees.",
        "kenton",
        "gpt-4o-mini",
    );
    data.labels.push(Label {
        key: ComboKey::new("k-001", "urgency", "classification"),
        persona_id: "kenton".into(),
        value: Value::Likert(4),
        note: String::new(),
        who: "alice".into(),
        created_at: "2026-11-24T04:00:00.000Z".into(),
        replaced_judge_value: None,
        blind: false,
        tags: Vec::new(),
    });
    app_with(data)
}

fn started(fx: &[Effect]) -> Vec<(String, Mode)> {
    fx.iter()
        .filter_map(|f| match f {
            Effect::StartRun { plan, .. } => Some((
                plan.persona_id().to_string(),
                plan.mode().expect("compare starts AwAg runs"),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn compare_by_mode_shows_the_label_mapped_on_the_agreement_column() {
    let mut app = judged_three_ways();
    key(&mut app, 'c');
    let s = screen(&app);
    assert!(s.contains("compare by mode"), "{s}");
    // Likert 4 read against mode 3's AGREE/DISAGREE column: mapped, marked.
    assert!(s.contains("H AGREE mapped"), "{s}");
    assert!(s.contains("read as AGREE/DISAGREE"), "{s}");
    insta::assert_snapshot!("compare_by_mode", s);
}

#[test]
fn compare_by_persona_has_a_column_per_persona_with_verdicts_and_judges_the_missing() {
    let mut app = judged_three_ways();
    key(&mut app, 'c');
    key(&mut app, 'C');
    assert_eq!(
        app.choices.compare_axis,
        jury::tui::app::CompareAxis::Persona
    );
    let cols: Vec<String> = app.compare_columns().into_iter().map(|c| c.title).collect();
    assert_eq!(cols, vec!["kenton", "maren"], "tomasz has no verdict here");
    let s = screen(&app);
    assert!(s.contains("personas differ"), "{s}");
    insta::assert_snapshot!("compare_by_persona", s);
    // r: maren lacks work-pers, tomasz everything; kenton is complete.
    let fx = key(&mut app, 'r');
    assert_eq!(
        started(&fx),
        vec![("maren".into(), Mode::Two), ("tomasz".into(), Mode::Two)]
    );
    assert_eq!(app.persona_id(), "kenton", "the chosen persona stays");
}

#[test]
fn compare_by_model_has_a_column_per_model_that_judged_the_item() {
    let mut app = judged_three_ways();
    key(&mut app, 'c');
    key(&mut app, 'C');
    key(&mut app, 'C');
    let cols: Vec<String> = app.compare_columns().into_iter().map(|c| c.title).collect();
    assert_eq!(cols, vec!["gpt-4o-mini", "llama-3-8b"]);
    let s = screen(&app);
    assert!(s.contains("Llama: clearly not urgent."), "{s}");
    insta::assert_snapshot!("compare_by_model", s);
    // r: the configured model has judged every row: nothing to start, and
    // the message says other models cannot be started from here.
    let fx = key(&mut app, 'r');
    assert!(started(&fx).is_empty());
    assert!(message(&app).contains("no model list"), "{}", message(&app));
    // In mode 1 nothing judged this item: no columns, said so; r judges
    // with the configured model.
    key(&mut app, 'm');
    key(&mut app, 'm');
    assert_eq!(app.choices.mode, Mode::One);
    assert!(app.compare_columns().is_empty());
    assert!(screen(&app).contains("no model has judged this item"));
    assert_eq!(
        started(&key(&mut app, 'r')),
        vec![("kenton".into(), Mode::One)]
    );
    // Back to mode columns.
    key(&mut app, 'C');
    assert_eq!(app.choices.compare_axis, jury::tui::app::CompareAxis::Mode);
}
