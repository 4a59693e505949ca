//! `REPORT_1M_DB=postgres cargo bench --bench report_1m`: the same report
//! over the same 1 M verdicts on PostgreSQL, against SQLite (issue 32 §5:
//! within 2×). The SQLite store is copied once with `jury store copy` into
//! the database `jury_report_1m_v3` on the server `JURY_TEST_POSTGRES_URL`
//! names (built as `…_building`, renamed when the copy verified; drop it to
//! rebuild). The two backends' runs alternate, so a busy moment of a shared
//! machine falls on both; then one run of each with `JURY_DEBUG=1` prints
//! where the time goes.

use super::{RUNS, common, report_once};
use std::path::Path;

const CACHED: &str = "jury_report_1m_v3";

pub fn compare(sqlite: &Path, dir: &Path) {
    let Some(server) = jury::store::testing::server_url() else {
        println!("report_1m postgres: skipped (JURY_TEST_POSTGRES_URL is not set)");
        return;
    };
    let url = cached_copy(&server, sqlite);
    let sqlite = sqlite.to_string_lossy();
    let (mut on_sqlite, mut on_pg) = (Vec::new(), Vec::new());
    let (mut peak_sqlite, mut peak_pg) = (0u64, 0u64);
    for i in 0..RUNS {
        let (s, s_rss, _) = report_once(&sqlite, dir, i);
        let sqlite_json = std::fs::read(dir.join(format!("report{i}.json"))).expect("report");
        let (p, p_rss, _) = report_once(&url, dir, i);
        let pg_json = std::fs::read(dir.join(format!("report{i}.json"))).expect("report");
        println!(
            "run {}: sqlite {:.3} s ({:.0} MB), postgres {:.3} s ({:.0} MB), same JSON: {}",
            i + 1,
            s.as_secs_f64(),
            s_rss as f64 / 1024.0,
            p.as_secs_f64(),
            p_rss as f64 / 1024.0,
            if sqlite_json == pg_json { "yes" } else { "no" }
        );
        on_sqlite.push(s);
        on_pg.push(p);
        peak_sqlite = peak_sqlite.max(s_rss);
        peak_pg = peak_pg.max(p_rss);
    }
    let (s, p) = (common::median(on_sqlite), common::median(on_pg));
    println!(
        "report_1m postgres/sqlite: median {:.3} s / {:.3} s over {RUNS} runs each, ratio {:.2} (target 2), peak RSS {:.0} / {:.0} MB",
        p.as_secs_f64(),
        s.as_secs_f64(),
        p.as_secs_f64() / s.as_secs_f64(),
        peak_pg as f64 / 1024.0,
        peak_sqlite as f64 / 1024.0,
    );
    for (name, db) in [("sqlite", &*sqlite), ("postgres", url.as_str())] {
        println!("stage timings on {name} (JURY_DEBUG=1):");
        print!("{}", stages(db, dir));
    }
}

/// The URL of the database holding the copy of `sqlite`, made once.
fn cached_copy(server: &str, sqlite: &Path) -> String {
    let url_of = |name: &str| {
        let mut url = reqwest::Url::parse(server).expect("JURY_TEST_POSTGRES_URL is a URL");
        url.set_path(&format!("/{name}"));
        url.to_string()
    };
    let mut admin =
        ::postgres::Client::connect(server, ::postgres::NoTls).expect("the test PostgreSQL");
    let exists = |admin: &mut ::postgres::Client, name: &str| {
        admin
            .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
            .expect("pg_database")
            .is_some()
    };
    if exists(&mut admin, CACHED) {
        return url_of(CACHED);
    }
    let building = format!("{CACHED}_building");
    // Two statements: several in one string would be one transaction,
    // where PostgreSQL refuses both.
    for sql in [
        format!("DROP DATABASE IF EXISTS {building} WITH (FORCE)"),
        format!("CREATE DATABASE {building}"),
    ] {
        admin.batch_execute(&sql).expect("create the database");
    }
    println!("copying {} into PostgreSQL (once)…", sqlite.display());
    let t = std::time::Instant::now();
    let status = common::jury()
        .args(["store", "copy", "--from"])
        .arg(sqlite)
        .args(["--to", &url_of(&building)])
        .status()
        .expect("run jury store copy");
    assert!(status.success(), "jury store copy failed");
    println!("copied in {:.1} s", t.elapsed().as_secs_f64());
    // The statistics the planner needs, as autovacuum would gather them soon.
    ::postgres::Client::connect(&url_of(&building), ::postgres::NoTls)
        .and_then(|mut c| c.batch_execute("VACUUM ANALYZE"))
        .expect("vacuum analyze the copy");
    admin
        .batch_execute(&format!("ALTER DATABASE {building} RENAME TO {CACHED}"))
        .expect("rename the copy");
    url_of(CACHED)
}

/// What `jury report` prints on stderr under `JURY_DEBUG=1`.
fn stages(db: &str, dir: &Path) -> String {
    let out = common::jury_in(dir)
        .env("JURY_DB", db)
        .env("JURY_DEBUG", "1")
        .args(["report", "--format", "json"])
        .stdout(std::process::Stdio::null())
        .output()
        .expect("run jury report");
    String::from_utf8_lossy(&out.stderr).into_owned()
}
