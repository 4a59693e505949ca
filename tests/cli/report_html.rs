//! `jury report --format html --out FILE` writes one self-contained page, and
//! a real headless browser (Chromium from Debian's packages, installed by
//! .ci/run) lays its charts out with real size and drawn marks. Without
//! Chromium the browser half skips with a note, unless
//! `JURY_REQUIRE_BROWSER=1` (CI) makes its absence a failure.
#![cfg(feature = "tui")]

use crate::common;

use common::{Workspace, text};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn chromium() -> Option<PathBuf> {
    [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.exists())
}

/// What the browser measured: per chart, its laid-out size and how many
/// marks (rects) it drew with a real area.
const PROBE: &str = r#"<script>
addEventListener('load', () => {
  const charts = [...document.querySelectorAll('svg.confusion, svg.distribution')].map(svg => {
    const box = svg.getBoundingClientRect();
    const marks = [...svg.querySelectorAll('rect')].filter(r => {
      const b = r.getBBox();
      return b.width > 0 && b.height > 0;
    }).length;
    return {kind: svg.getAttribute('class'), width: box.width, height: box.height, marks};
  });
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify({charts, tables: document.querySelectorAll('table').length});
  document.body.appendChild(pre);
});
</script>"#;

/// Loads `page` in headless Chromium and returns the probe's measurements.
fn measure(browser: &Path, page: &Path, dir: &Path) -> Value {
    let html = std::fs::read_to_string(page).unwrap();
    let probed = dir.join("probed.html");
    std::fs::write(&probed, html.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let out = Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--virtual-time-budget=3000",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.join("chromium-profile").display()
        ))
        .arg("--dump-dom")
        .arg(format!("file://{}", probed.display()))
        .output()
        .expect("chromium runs");
    let dom = text(&out.stdout);
    let start = dom.find("<pre id=\"probe\">").unwrap_or_else(|| {
        panic!(
            "no probe in the DOM (exit {:?}):\n{}\n{}",
            out.status.code(),
            &dom[..dom.len().min(2000)],
            text(&out.stderr)
        )
    });
    let rest = &dom[start + "<pre id=\"probe\">".len()..];
    let json = &rest[..rest.find("</pre>").unwrap()];
    serde_json::from_str(&json.replace("&quot;", "\"")).unwrap()
}

#[test]
fn the_html_report_is_self_contained_and_its_charts_render_in_a_browser() {
    let ws = Workspace::sample_judged(&["2"], &["--limit", "12"]);
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

    // Self-contained: nothing fetched, nothing run.
    for banned in ["<script", "<link", "src=", "@import", "url("] {
        assert!(!html.contains(banned), "the page holds {banned}");
    }
    let without_ns = html.replace("http://www.w3.org/2000/svg", "");
    assert!(!without_ns.contains("http://") && !without_ns.contains("https://"));
    assert!(html.contains("judge_vs_human") && html.contains("human_vs_human"));
    // It heads with the classifier's accuracy, as `jury estimate` reads it.
    assert!(
        html.contains("How accurate is the classifier") && html.contains("classifier right"),
        "no estimate section"
    );
    assert!(html.matches("<svg class=\"confusion\"").count() >= 2);

    // Refused onto the store, as exports are.
    let refused = ws.run(&[
        "report",
        "--format",
        "html",
        "--out",
        ws.db.to_str().unwrap(),
    ]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        ws.store().items().unwrap().len() > 10,
        "the store is intact"
    );

    let Some(browser) = chromium() else {
        assert!(
            std::env::var("JURY_REQUIRE_BROWSER").as_deref() != Ok("1"),
            "JURY_REQUIRE_BROWSER=1 but no Chromium is installed"
        );
        eprintln!("chromium is not installed: skipping the browser half");
        return;
    };
    let m = measure(&browser, &page, ws.dir.path());
    let charts = m["charts"].as_array().unwrap();
    assert_eq!(
        charts.len(),
        html.matches("<svg class=").count(),
        "every chart laid out: {m}"
    );
    for c in charts {
        assert!(
            c["width"].as_f64().unwrap() > 50.0 && c["height"].as_f64().unwrap() > 50.0,
            "{c}"
        );
        assert!(c["marks"].as_u64().unwrap() >= 4, "drawn marks: {c}");
    }
    assert!(m["tables"].as_u64().unwrap() >= 1);
}
