//! The first minutes: the "no endpoint" popup and README's first commands.

use super::*;

// ----- the "no endpoint" popup -----

#[test]
fn the_no_endpoint_popup_says_how_to_start_the_demo_judge() {
    for (w, h) in [(80, 24), (160, 45)] {
        let mut app = app();
        app.runs.endpoint_error = Some(jury::config::NO_ENDPOINT.into());
        sized(&mut app, w, h);
        let fx = code(&mut app, KeyCode::Enter);
        assert!(fx.is_empty(), "{fx:?}");
        let s = screen(&app);
        // Each command whole on one row, to be copied as it is.
        for want in [
            "jury demo-judge --port 8089 &",
            "OPENAI_BASE_URL=http://127.0.0.1:8089/v1 JURY_MODEL=jury-demo-judge jury",
        ] {
            assert!(s.contains(want), "{want} at {w}x{h}:\n{s}");
        }
        insta::assert_snapshot!(format!("no_endpoint_{w}x{h}"), s);
    }
}

/// README's first command block: the workbench on its sample data and the
/// tests (both work on a fresh machine), then the endpoint judging needs,
/// the demo one, as the popup gives it.
#[test]
fn readme_opens_with_the_workbench_the_tests_and_the_demo_judge() {
    let readme = include_str!("../../../README.md");
    let block: Vec<&str> = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a first sh block")
        .lines()
        .collect();
    let command = |l: &str| l.split(" #").next().unwrap_or("").trim().to_string();
    assert_eq!(command(block[0]), "cargo run --release");
    assert!(block[0].contains("endpoint"), "{}", block[0]);
    assert_eq!(command(block[1]), "cargo test --locked");
    let rest: Vec<String> = block[2..].iter().map(|l| command(l)).collect();
    assert!(
        rest.contains(&"cargo run --release -- demo-judge --port 8089 &".to_string()),
        "{rest:?}"
    );
    assert!(
        rest.contains(
            &"OPENAI_BASE_URL=http://127.0.0.1:8089/v1 JURY_MODEL=jury-demo-judge cargo run --release"
                .to_string()
        ),
        "{rest:?}"
    );
}
