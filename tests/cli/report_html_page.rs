//! The HTML report as a page to share: it opens with the answers, carries
//! the figures, the verdicts people disagree with (their notes escaped) and
//! its provenance, and a real headless Chromium (Debian's, installed by
//! .ci/run) draws it at 1200 px: a screenshot that is not blank, the tables
//! in the DOM, nothing wider than the page, no chart label cut, and the
//! charts side by side rather than in one long column.
#![cfg(feature = "tui")]

use crate::common;

use common::{Workspace, text};
use jury::domain::Mode;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

pub(crate) const CHROMIUM: &str = "/usr/bin/chromium";

/// A note a person wrote that must reach the page as text, never as markup.
const NOTE: &str = "not work at all: <script>alert(\"jury\")</script> & <b>bold</b>\nsecond line";

/// HTML-escaped as the page escapes text.
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// What the browser measured, written into the DOM by this test's copy of
/// the page (the page itself holds no script).
const PROBE: &str = r#"<script>
addEventListener('load', () => {
  const root = document.documentElement;
  const cards = [...document.querySelectorAll('.card')].map(c => {
    const b = c.getBoundingClientRect();
    return {id: c.id, top: Math.round(b.top), left: Math.round(b.left), right: b.right};
  });
  // Text cut by its box: a cell, a legend or a card's heading whose content
  // is wider than it, or an SVG label that runs past its drawing.
  const boxes = [...document.querySelectorAll('td, th, .card p, .card h4')]
    .filter(e => e.scrollWidth > e.clientWidth + 1)
    .map(e => e.textContent.slice(0, 60));
  const labels = [...document.querySelectorAll('svg text')].filter(t => {
    const b = t.getBBox();
    const v = t.ownerSVGElement.viewBox.baseVal;
    return b.x < -0.5 || b.y < -0.5 || b.x + b.width > v.width + 0.5 || b.y + b.height > v.height + 0.5;
  }).map(t => t.textContent);
  // A count wider than its matrix cell.
  const counts = [...document.querySelectorAll('svg.confusion rect')].filter(r => {
    const t = r.nextElementSibling;
    return t && t.tagName === 'text' && t.getBBox().width > r.getBBox().width;
  }).map(r => r.nextElementSibling.textContent);
  const tables = [...document.querySelectorAll('table')].map(t => ({
    id: t.id, right: t.getBoundingClientRect().right
  }));
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify({
    width: root.clientWidth, scroll_width: root.scrollWidth, tables, cards,
    cut_boxes: boxes, cut_labels: labels.concat(counts)
  });
  document.body.appendChild(pre);
});
</script>"#;

/// Headless Chromium at 1200 × 2000 on `page` with `extra` flags; its output.
fn chromium(page: &Path, profile: &Path, extra: &[String]) -> std::process::Output {
    chromium_at(1200, page, profile, extra)
}

/// Headless Chromium `width` × 2000 px wide on `page`; its output.
pub(crate) fn chromium_at(
    width: u32,
    page: &Path,
    profile: &Path,
    extra: &[String],
) -> std::process::Output {
    Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--window-size={width},2000"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs")
}

/// A workspace judged by the demo judge in modes 2 and 3 (two
/// configurations: a ranking), with the sample's labels, a held-out split
/// and carol's label that disagrees with the judge, with a note in markup.
pub(crate) fn judged_workspace() -> Workspace {
    let ws = Workspace::sample_judged(&["2", "3"], &["--model", "jury-demo-judge"]);
    ws.ok(&["split", "--holdout", "0.3", "--seed", "1"]);
    let judged = ws
        .store()
        .verdicts_for_item("k-003")
        .unwrap()
        .into_iter()
        .find(|v| v.key.classification_id == "work-pers" && v.mode == Some(Mode::Two))
        .expect("mode 2 judged k-003 on work-pers");
    // The opposite end of the scale from the judge's.
    let value = match judged.value {
        jury::domain::Value::Likert(n) if n >= 3 => "1",
        _ => "5",
    };
    ws.ok(&[
        "label",
        "k-003",
        "work-pers",
        value,
        "--persona",
        "kenton",
        "--who",
        "carol",
        "--note",
        NOTE,
    ]);
    ws
}

#[test]
fn the_html_report_opens_with_the_answers_fits_1200_px_and_shows_disagreements_escaped() {
    let ws = judged_workspace();
    let page = ws.path("report.html");
    let out = ws.run(&[
        "report",
        "--format",
        "html",
        "--out",
        page.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let html = std::fs::read_to_string(&page).unwrap();

    // The answers, then the figures, the disagreements and the provenance.
    let at = |id: &str| {
        html.find(&format!("id=\"{id}\""))
            .unwrap_or_else(|| panic!("no section {id}"))
    };
    let order = [
        "ranking",
        "estimates",
        "agreement",
        "judge_vs_human",
        "judge-details",
        "charts",
        "disagreements",
        "provenance",
    ];
    for w in order.windows(2) {
        assert!(at(w[0]) < at(w[1]), "{} should come before {}", w[0], w[1]);
    }
    // Everything the text report has, per judge-vs-human group.
    for heading in [
        "within-1",
        "base rate judge",
        "accuracy judge",
        "coverage",
        "false failure rate",
        "alignment",
        "human ceiling agree",
    ] {
        assert!(html.contains(heading), "no {heading} column");
    }

    // Provenance: version, store, runs with model and prompt set, split.
    assert!(html.contains(&format!("jury {}", env!("CARGO_PKG_VERSION"))));
    assert!(html.contains(&escaped(&ws.db.display().to_string())));
    let runs = ws.store().runs().unwrap();
    assert_eq!(runs.len(), 2);
    for r in &runs {
        // By name as `jury runs` shows it: `embedded (4ad49c21)`.
        let hash: String = r.spec.prompt_hash.chars().take(8).collect();
        assert!(
            html.contains(&format!("<code>embedded ({hash})</code>")),
            "run {}",
            r.id
        );
    }
    assert!(html.contains("jury-demo-judge"));
    assert!(html.contains("held out 30 % by item, seed 1"), "no split");

    // The disagreement: the judge's reasoning beside carol's note, escaped.
    let table = &html[at("disagreement-table")..at("provenance")];
    assert!(table.contains("carol"), "carol's label is not listed");
    assert!(
        table.contains(&escaped(NOTE)),
        "the note, escaped, with its line break"
    );
    let reasoning = ws
        .store()
        .verdicts_for_item("k-003")
        .unwrap()
        .into_iter()
        .find(|v| v.key.classification_id == "work-pers")
        .unwrap()
        .text;
    let start: String = reasoning.chars().take(40).collect();
    assert!(table.contains(&escaped(&start)), "no reasoning: {start}");
    // Nothing from the store runs, nothing is fetched.
    for banned in ["<script", "<link", "src=", "@import", "url("] {
        assert!(!html.contains(banned), "the page holds {banned}");
    }
    let without_ns = html.replace("http://www.w3.org/2000/svg", "");
    assert!(!without_ns.contains("http://") && !without_ns.contains("https://"));

    // A real browser at 1200 px.
    // CI installs Chromium and sets JURY_REQUIRE_BROWSER=1: there its absence
    // fails; on a machine without it (README's `cargo test` on a fresh
    // machine) the browser half says so and stops.
    if !Path::new(CHROMIUM).exists() {
        assert!(
            std::env::var("JURY_REQUIRE_BROWSER").as_deref() != Ok("1"),
            "{CHROMIUM} is missing: .ci/run installs it (apt-get install chromium)"
        );
        eprintln!("{CHROMIUM} is not installed: skipping the browser half");
        return;
    }
    let shot = ws.path("report.png");
    let out = chromium(
        &page,
        &ws.path("profile-shot"),
        &[format!("--screenshot={}", shot.display())],
    );
    assert!(shot.exists(), "no screenshot: {}", text(&out.stderr));
    not_blank(&std::fs::read(&shot).unwrap());

    let probed = ws.path("probed.html");
    std::fs::write(&probed, html.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let out = chromium(
        &probed,
        &ws.path("profile-dom"),
        &["--virtual-time-budget=3000".into(), "--dump-dom".into()],
    );
    let dom = text(&out.stdout);
    let m = probe(&dom, &text(&out.stderr));
    for id in [
        "figures-judge_vs_human",
        "judge-details",
        "disagreement-table",
        "provenance-table",
        "runs",
    ] {
        assert!(
            m["tables"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["id"] == id),
            "table {id} is not in the DOM: {m}"
        );
    }
    // The note is text in the browser too, not an element.
    assert!(dom.contains("&lt;script&gt;alert(") && !dom.contains("<script>alert("));
    // Nothing wider than the page, nothing cut.
    let width = m["width"].as_f64().unwrap();
    assert!(width > 1100.0, "laid out at {width} px");
    assert!(
        m["scroll_width"].as_f64().unwrap() <= width,
        "the page scrolls sideways: {m}"
    );
    for t in m["tables"].as_array().unwrap() {
        assert!(t["right"].as_f64().unwrap() <= width, "table runs off: {t}");
    }
    assert_eq!(m["cut_boxes"], serde_json::json!([]), "{m}");
    assert_eq!(m["cut_labels"], serde_json::json!([]), "{m}");
    // Laid out to compare: cards share rows.
    let cards = m["cards"].as_array().unwrap();
    assert!(cards.len() >= 4, "{m}");
    let side_by_side = cards.iter().any(|a| {
        cards
            .iter()
            .any(|b| a["top"] == b["top"] && a["left"] != b["left"])
    });
    assert!(side_by_side, "the charts are one long column: {m}");
    for c in cards {
        assert!(c["right"].as_f64().unwrap() <= width, "card runs off: {c}");
    }
}

/// The probe's measurements from a dumped DOM.
fn probe(dom: &str, stderr: &str) -> Value {
    let start = dom.find("<pre id=\"probe\">").unwrap_or_else(|| {
        panic!(
            "no probe in the DOM:\n{}\n{stderr}",
            &dom[..dom.len().min(2000)]
        )
    });
    let rest = &dom[start + "<pre id=\"probe\">".len()..];
    let json = &rest[..rest.find("</pre>").unwrap()];
    serde_json::from_str(
        &json
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
    .unwrap()
}

/// The screenshot decodes and shows a page: many colours, and a fair share
/// of pixels that are not the background.
fn not_blank(png_bytes: &[u8]) {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buf).expect("a frame");
    assert_eq!((info.width, info.height), (1200, 2000));
    let samples = info.color_type.samples();
    let pixels: Vec<&[u8]> = buf[..info.buffer_size()]
        .chunks_exact(samples)
        .map(|p| &p[..samples.min(3)])
        .collect();
    let background = pixels[0];
    let drawn = pixels.iter().filter(|p| **p != background).count();
    let colours: std::collections::HashSet<&[u8]> = pixels.iter().copied().collect();
    assert!(
        drawn * 100 > pixels.len() * 2,
        "the screenshot is blank: {drawn} of {} pixels drawn",
        pixels.len()
    );
    assert!(colours.len() > 16, "{} colours only", colours.len());
}
