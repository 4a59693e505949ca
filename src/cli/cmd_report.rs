//! `jury report`: the report the core computes, written to stdout.

use super::strings::report as say;
use super::{GroupBy, ReportArgs, ReportFormat, SplitSide, open_store};
use crate::config::Settings;
use crate::report::{self, Report};
use std::process::ExitCode;

pub fn report(s: &Settings, a: ReportArgs) -> anyhow::Result<ExitCode> {
    if let Some(p) = &a.out
        && crate::store::is_own_file(&s.db_path, p)
    {
        anyhow::bail!(say::out_is_store(&p.display().to_string()));
    }
    if a.out.is_some() {
        super::remove_temporaries_on_signal();
    }
    let store = open_store(s)?;
    let mut timer = Stages::new();
    let by = a.by.map(Into::into);
    let scope = report::Scope {
        side: a.split.map(|side| match side {
            SplitSide::Train => crate::domain::Side::Train,
            SplitSide::Test => crate::domain::Side::Test,
        }),
        items: None,
        // The HTML page heads with the classifier's accuracy.
        estimates: a.format == ReportFormat::Html,
        heads_on_all: false,
    };
    let mut report = Report::build_in(&store, by, a.bootstrap, a.seed, &scope, &mut timer)?;
    report.min_human_agreement = s.min_human_agreement;
    let format = match (a.format, a.wide) {
        (ReportFormat::Table, true) => report::ReportFormat::TableWide,
        (f, _) => f.into(),
    };
    let text = if a.rank {
        report.render_ranking(format)?
    } else if format == report::ReportFormat::Html {
        // The page also says where its figures come from and lists the
        // verdicts people disagree with: read here, for the page only.
        let page = report::page::Page::gather(&store, &report, a.seed, a.bootstrap)?;
        report::Stage::done(&mut timer, "provenance, disagreements");
        report::html::to_html(&report, Some(&page))
    } else {
        report.render(format)?
    };
    // The cascades `jury run --cascade` ran: per stage judged, cost, kept.
    let text = match crate::report::cascade_run::cascade_runs_text(&store)? {
        Some(c)
            if !a.rank
                && matches!(
                    format,
                    report::ReportFormat::Table | report::ReportFormat::TableWide
                ) =>
        {
            format!("{text}\n\njury run --cascade:\n{c}")
        }
        _ => text,
    };
    match &a.out {
        Some(p) => {
            crate::store::write_atomically(p, |w| w.write_all(text.as_bytes())).map_err(|e| {
                anyhow::anyhow!(say::cannot_write(&p.display().to_string(), &e.to_string()))
            })?;
            eprintln!("{}", say::wrote(&p.display().to_string()));
        }
        None => println!("{text}"),
    }
    report::Stage::done(&mut timer, "render");
    // The process ends right after the report: freeing millions of pairs
    // (five reference counts each) one by one would add a tenth of a second
    // for nothing; the operating system takes the memory back at exit.
    std::mem::forget(report);
    Ok(ExitCode::SUCCESS)
}

/// Stage timings on stderr when JURY_DEBUG is set (how the report benchmark
/// is profiled); silent otherwise.
struct Stages(Option<std::time::Instant>);

impl Stages {
    fn new() -> Stages {
        Stages(std::env::var_os("JURY_DEBUG").map(|_| std::time::Instant::now()))
    }
}

impl report::Stage for Stages {
    fn done(&mut self, what: &str) {
        // Off stays off: only a started clock is restarted.
        if let Some(t) = self.0.as_mut() {
            eprintln!("{}", say::stage(what, t.elapsed().as_secs_f64()));
            *t = std::time::Instant::now();
        }
    }
}

impl From<GroupBy> for report::GroupBy {
    fn from(g: GroupBy) -> Self {
        match g {
            GroupBy::Classification => report::GroupBy::Classification,
            GroupBy::Persona => report::GroupBy::Persona,
            GroupBy::Mode => report::GroupBy::Mode,
            GroupBy::Model => report::GroupBy::Model,
            GroupBy::Perspective => report::GroupBy::Perspective,
        }
    }
}

impl From<ReportFormat> for report::ReportFormat {
    fn from(f: ReportFormat) -> Self {
        match f {
            ReportFormat::Table => report::ReportFormat::Table,
            ReportFormat::Json => report::ReportFormat::Json,
            ReportFormat::Csv => report::ReportFormat::Csv,
            ReportFormat::Md => report::ReportFormat::Md,
            ReportFormat::Html => report::ReportFormat::Html,
        }
    }
}
