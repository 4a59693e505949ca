//! A team on one store under load (issue 32 §5): 20 simulated annotators,
//! each an OS process of its own (this bench run again, `TEAM_LOAD_ANNOTATOR`
//! naming whom it runs as) with its own store connection and (on
//! PostgreSQL) its own database role, write labels, notes and marks through jury's store as the
//! workbench's label writer does, while judge runs write verdicts; then
//! every label is checked: stored once, none lost, none under the wrong
//! person (see `common/team.rs`). Prints the label-write latency per backend
//! (p50, p99, max) and the PostgreSQL/SQLite ratio. The target: p99 under
//! 50 ms on loopback PostgreSQL.
//!
//! `cargo bench --bench team_load`; PostgreSQL needs `JURY_TEST_POSTGRES_URL`
//! (a superuser URL: the bench makes a database and 20 LOGIN roles, dropped
//! after), else only SQLite runs. Environment:
//! - `TEAM_LOAD_SECS` (60; the load is 300),
//! - `TEAM_LOAD_ANNOTATORS` (20), `TEAM_LOAD_RUNS` (2 judge runs),
//! - `TEAM_LOAD_THINK_MS` (100: pause per item; a person takes seconds, so
//!   the default is a team far busier than a real one),
//! - `TEAM_LOAD_BACKENDS` (`sqlite,postgres`),
//! - `TEAM_LOAD_MODE` (`processes`; `threads`: the annotators as threads of
//!   this process, as before).

#[path = "common/team.rs"]
mod team;

use std::time::Duration;
use team::{Annotator, Outcome, Until};

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(default)
}

struct Config {
    /// Each annotator an OS process of its own (else a thread).
    processes: bool,
    secs: u64,
    annotators: usize,
    runs: usize,
    think: Duration,
}

/// The label-write latencies of one backend's run.
struct Latency {
    p50: Duration,
    p99: Duration,
}

fn main() {
    // A process this bench started to be one annotator.
    if team::annotator_process() {
        return;
    }
    let cfg = Config {
        processes: env_or("TEAM_LOAD_MODE", "processes".to_string()) != "threads",
        secs: env_or("TEAM_LOAD_SECS", 60),
        annotators: env_or("TEAM_LOAD_ANNOTATORS", 20),
        runs: env_or("TEAM_LOAD_RUNS", 2),
        think: Duration::from_millis(env_or("TEAM_LOAD_THINK_MS", 100)),
    };
    let backends: String = env_or("TEAM_LOAD_BACKENDS", "sqlite,postgres".to_string());
    println!(
        "team_load: {} annotators ({}), {} judge runs, {} s, {} ms per item",
        cfg.annotators,
        if cfg.processes {
            "a process each"
        } else {
            "threads of one process"
        },
        cfg.runs,
        cfg.secs,
        cfg.think.as_millis()
    );
    let mut sqlite = None;
    let mut postgres = None;
    let mut all_well = true;
    for backend in backends.split(',').map(str::trim) {
        let result = match backend {
            "sqlite" => on_sqlite(&cfg).map(|l| sqlite = Some(l)),
            "postgres" => on_postgres(&cfg).map(|l| postgres = l),
            other => panic!("TEAM_LOAD_BACKENDS: unknown backend {other}"),
        };
        all_well &= result.is_ok();
    }
    if let (Some(s), Some(p)) = (&sqlite, &postgres) {
        println!(
            "team_load ratio postgres/sqlite: p50 {:.2}, p99 {:.2}",
            p.p50.as_secs_f64() / s.p50.as_secs_f64(),
            p.p99.as_secs_f64() / s.p99.as_secs_f64()
        );
    }
    if let Some(p) = &postgres {
        println!(
            "team_load postgres p99 {:.1} ms (target 50 ms, ratio {:.2})",
            ms(p.p99),
            ms(p.p99) / 50.0
        );
    }
    assert!(all_well, "the store did not hold what the annotators wrote");
}

fn on_sqlite(cfg: &Config) -> Result<Latency, ()> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("jury.db");
    let location = path.to_string_lossy().into_owned();
    let owner = jury::store::Store::open(&path).expect("a SQLite store");
    let annotators: Vec<Annotator> = (0..cfg.annotators)
        .map(|n| Annotator {
            who: format!("annotator-{n:02}"),
            location: location.clone(),
        })
        .collect();
    run("sqlite", cfg, &annotators, &location, &owner)
}

#[cfg(feature = "postgres")]
fn on_postgres(cfg: &Config) -> Result<Option<Latency>, ()> {
    use jury::store::testing::TestDatabase;
    let Some(db) = TestDatabase::create() else {
        println!("team_load postgres: skipped (JURY_TEST_POSTGRES_URL is not set)");
        return Ok(None);
    };
    let owner = db.store();
    // Each annotator its own role: the store records `who = current_user`
    // and row-level security refuses any other name.
    let roles: Vec<_> = (0..cfg.annotators)
        .map(|n| db.login_role(&format!("a{n:02}"), &["jury_annotator"]))
        .collect();
    let annotators: Vec<Annotator> = roles
        .iter()
        .map(|r| Annotator {
            who: r.name.clone(),
            location: r.url.clone(),
        })
        .collect();
    let result = run("postgres", cfg, &annotators, &db.url, &owner).map(Some);
    drop(owner);
    drop(roles);
    result
}

#[cfg(not(feature = "postgres"))]
fn on_postgres(_: &Config) -> Result<Option<Latency>, ()> {
    println!("team_load postgres: skipped (built without the postgres feature)");
    Ok(None)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Runs the team on one backend, verifies the store and prints the latencies.
fn run(
    name: &str,
    cfg: &Config,
    annotators: &[Annotator],
    owner_location: &str,
    owner: &jury::store::Store,
) -> Result<Latency, ()> {
    let until = Until::Elapsed(Duration::from_secs(cfg.secs));
    let (outcomes, verdicts) = if cfg.processes {
        team::run_team_processes(annotators, until, cfg.think, owner_location, cfg.runs)
    } else {
        team::run_team(
            annotators,
            until,
            cfg.think,
            owner_location,
            cfg.runs,
            |_| {},
        )
    };
    let problems = team::verify(owner, &outcomes);
    let mut labels: Vec<Duration> = outcomes
        .iter()
        .flat_map(|o| o.label_latencies.iter().copied())
        .collect();
    let mut others: Vec<Duration> = outcomes
        .iter()
        .flat_map(|o| o.other_latencies.iter().copied())
        .collect();
    let failed: Vec<&String> = outcomes.iter().flat_map(|o| &o.failed).collect();
    let stored: usize = outcomes.iter().map(|o| o.labels.len()).sum();
    let latency = Latency {
        p50: team::quantile(&mut labels, 0.5),
        p99: team::quantile(&mut labels, 0.99),
    };
    println!(
        "team_load {name}: {} label writes ({stored} labels kept), p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms; \
         notes and marks {} writes, p50 {:.1} ms, p99 {:.1} ms; {verdicts} verdicts written meanwhile; \
         {} failed attempts (written again)",
        labels.len(),
        ms(latency.p50),
        ms(latency.p99),
        ms(labels.last().copied().unwrap_or_default()),
        others.len(),
        ms(team::quantile(&mut others, 0.5)),
        ms(team::quantile(&mut others, 0.99)),
        failed.len(),
    );
    for f in failed.iter().take(5) {
        println!("  failed: {f}");
    }
    report(name, &outcomes, &problems)?;
    Ok(latency)
}

fn report(name: &str, outcomes: &[Outcome], problems: &[String]) -> Result<(), ()> {
    if problems.is_empty() {
        println!(
            "team_load {name}: verified: every label once, none lost, each under its writer ({} people)",
            outcomes.len()
        );
        return Ok(());
    }
    println!("team_load {name}: {} PROBLEMS:", problems.len());
    for p in problems.iter().take(20) {
        println!("  {p}");
    }
    Err(())
}
