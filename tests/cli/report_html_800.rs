//! The HTML report at 800 px in headless Chromium (beside the 1200 px
//! check): the base-rate/EvalGen table breaks no word ("agreeme nt",
//! "huma n ceilin g"); it scrolls sideways in its own box instead, and the
//! page itself does not.
#![cfg(feature = "tui")]

use crate::common::text;
use crate::report_html_page::{CHROMIUM, chromium_at, judged_workspace};
use std::path::Path;

/// Every word of the judge-details table that the browser laid out over two
/// lines, and the page's and the table box's widths.
const PROBE: &str = r#"<script>
addEventListener('load', () => {
  const broken = [];
  for (const cell of document.querySelectorAll('#judge-details th, #judge-details td')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      // Hyphens and slashes are places a line may break; a word is what lies between.
      const re = /[^\s\-\/·]+/g;
      let m;
      while ((m = re.exec(n.data))) {
        const r = document.createRange();
        r.setStart(n, m.index);
        r.setEnd(n, m.index + m[0].length);
        const tops = new Set([...r.getClientRects()].map(x => Math.round(x.top)));
        if (tops.size > 1) broken.push(m[0]);
      }
    }
  }
  const root = document.documentElement;
  const pre = document.createElement('pre');
  pre.id = 'probe';
  pre.textContent = JSON.stringify({ broken, width: root.clientWidth, scroll_width: root.scrollWidth,
    cells: document.querySelectorAll('#judge-details td').length });
  document.body.appendChild(pre);
});
</script>"#;

#[test]
fn at_800_px_the_base_rate_table_breaks_no_word() {
    let ws = judged_workspace();
    let page = ws.path("report.html");
    ws.ok(&[
        "report",
        "--format",
        "html",
        "--out",
        page.to_str().unwrap(),
    ]);
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
    let html = std::fs::read_to_string(&page).unwrap();
    let probed = ws.path("probed-800.html");
    std::fs::write(&probed, html.replace("</body>", &format!("{PROBE}</body>"))).unwrap();
    let out = chromium_at(
        800,
        &probed,
        &ws.path("profile-800"),
        &["--virtual-time-budget=3000".into(), "--dump-dom".into()],
    );
    let dom = text(&out.stdout);
    let start = dom
        .find("<pre id=\"probe\">")
        .unwrap_or_else(|| panic!("no probe: {}", text(&out.stderr)));
    let rest = &dom[start + "<pre id=\"probe\">".len()..];
    let json = rest[..rest.find("</pre>").unwrap()]
        .replace("&quot;", "\"")
        .replace("&amp;", "&");
    let m: serde_json::Value = serde_json::from_str(&json).unwrap();
    let width = m["width"].as_f64().unwrap();
    assert!(
        width <= 800.0 && width > 700.0,
        "laid out at {width} px: {m}"
    );
    assert!(m["cells"].as_u64().unwrap() > 0, "the table is there: {m}");
    assert_eq!(
        m["broken"],
        serde_json::json!([]),
        "words broken at 800 px: {m}"
    );
    assert!(
        m["scroll_width"].as_f64().unwrap() <= width,
        "the page scrolls sideways: {m}"
    );
}
