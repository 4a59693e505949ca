//! Prompt versions named as people know them, `prompts-v2 (34eb1475)` (the
//! folder and the hash's start, as `jury runs` shows them), wherever the
//! report shows a version: the ranking (text, JSON, Markdown, HTML), the
//! prompt-version lines and changes, and the HTML page's runs table.

use super::*;

/// The sample data judged in mode 2 with the embedded prompts on three
/// items, then with an edited copy in `prompts-v2/` on two of them; returns
/// the workspace and the two versions' names.
fn two_prompt_versions() -> (Workspace, String, String) {
    let ws = Workspace::new();
    ws.import_sample();
    let srv = ServerRt::demo();
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("prompts/awag");
    let edited = ws.path("prompts-v2");
    std::fs::create_dir_all(&edited).unwrap();
    for f in std::fs::read_dir(&src).unwrap() {
        let f = f.unwrap().path();
        std::fs::copy(&f, edited.join(f.file_name().unwrap())).unwrap();
    }
    let likert = edited.join("user_likert.txt");
    let mut text = std::fs::read_to_string(&likert).unwrap();
    text.push_str("\nWhen in doubt, prefer the middle of the scale.\n");
    std::fs::write(&likert, text).unwrap();
    let base = kenton_run("2", &["--items", "k-001,k-003,k-005"]);
    assert_success(&ws.run_with(&srv.url(), &base), &base);
    let mut v2 = kenton_run("2", &["--items", "k-001,k-003"]).to_vec();
    v2.extend(["--prompts", edited.to_str().unwrap()]);
    assert_success(&ws.run_with(&srv.url(), &v2), &v2);
    let runs: Value = serde_json::from_str(&ws.ok(&["runs", "--json"])).unwrap();
    let hash = |i: usize| runs[i]["spec"]["prompt_hash"].as_str().unwrap()[..8].to_string();
    let (one, two) = (hash(0), hash(1));
    assert_ne!(one, two);
    (
        ws,
        format!("embedded ({one})"),
        format!("prompts-v2 ({two})"),
    )
}

#[test]
fn the_ranking_and_the_prompt_version_lines_name_each_version_by_folder_and_hash() {
    let (ws, one, two) = two_prompt_versions();
    // The text report: the ranking's configurations, the prompt-version
    // lines and the change between them, each by name.
    let table = ws.ok(&["report", "--bootstrap", "0"]);
    for line in [
        format!("awag mode 2 · demo · {one} as kenton"),
        format!("awag mode 2 · demo · {two} as kenton"),
        // One column, as wide as the longer name.
        format!("    {one}    n "),
        format!("    {two}  n "),
        format!("(likert): {one} → {two} on "),
    ] {
        assert!(table.contains(&line), "{line}:\n{table}");
    }
    // `--rank` alone, as text and as JSON: the judge keeps its hash (its
    // identity) and the name is an added field.
    let rank = ws.ok(&["report", "--rank", "--bootstrap", "0"]);
    assert!(rank.contains(&format!("· {two} as kenton")), "{rank}");
    let json: Value =
        serde_json::from_str(&ws.ok(&["report", "--rank", "--format", "json", "--bootstrap", "0"]))
            .unwrap();
    let configs = json[0]["configurations"].as_array().unwrap();
    let mut named: Vec<(String, String)> = configs
        .iter()
        .map(|c| {
            let judge = c["judge"].as_str().unwrap().to_string();
            assert!(judge.contains(" · prompts "), "{c}");
            (judge, c["prompt_version"].as_str().unwrap().to_string())
        })
        .collect();
    named.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(
        named.iter().map(|n| n.1.clone()).collect::<Vec<_>>(),
        [one.clone(), two.clone()]
    );
    // Matched by the hash's start: the name's hash is the judge's.
    for (judge, name) in &named {
        let hash = judge.rsplit_once(" · prompts ").unwrap().1;
        assert!(name.ends_with(&format!("({hash})")), "{judge} / {name}");
    }
    // The whole report's JSON: the versions and their changes too.
    let r = report_json(&ws, &[]);
    let versions = r["prompt_versions"][0]["versions"].as_array().unwrap();
    assert_eq!(versions[0]["prompt_version"], one.as_str());
    assert_eq!(versions[1]["prompt_version"], two.as_str());
    let change = &r["prompt_version_changes"][0];
    assert_eq!(change["from_version"], one.as_str());
    assert_eq!(change["to_version"], two.as_str());
    assert!(r["ranking"][0]["configurations"][0]["prompt_version"].is_string());
    // Markdown carries the text lines.
    let md = ws.ok(&["report", "--format", "md", "--bootstrap", "0"]);
    assert!(
        md.contains(&format!("awag mode 2 · demo · {two} as kenton")),
        "{md}"
    );
    assert!(md.contains(&format!("{one} → {two}")), "{md}");
}

#[test]
fn the_html_report_names_prompt_versions_in_the_ranking_the_versions_and_the_runs() {
    let (ws, one, two) = two_prompt_versions();
    let page = ws.path("report.html");
    ws.ok(&[
        "report",
        "--format",
        "html",
        "--bootstrap",
        "0",
        "--out",
        page.to_str().unwrap(),
    ]);
    let html = std::fs::read_to_string(&page).unwrap();
    let section = |id: &str| {
        let at = html.find(id).unwrap_or_else(|| panic!("no {id}"));
        let rest = &html[at..];
        rest[..rest.find("</table>").unwrap()].to_string()
    };
    let ranking = section("class=\"ranking\"");
    assert!(
        ranking.contains(&format!("awag mode 2 · demo · {two}"))
            && ranking.contains(&format!("awag mode 2 · demo · {one}")),
        "{ranking}"
    );
    let versions = section("id=\"prompt-versions\"");
    assert!(
        versions.contains(&format!("<td class=\"l\">{one}</td>"))
            && versions.contains(&format!("<td class=\"l\">{two}</td>")),
        "{versions}"
    );
    let changes = section("id=\"prompt-changes\"");
    assert!(changes.contains(&format!("{one} → {two}")), "{changes}");
    let runs = section("id=\"runs\"");
    assert!(
        runs.contains(&format!("<code>{one}</code>"))
            && runs.contains(&format!("<code>{two}</code>")),
        "{runs}"
    );
}
