//! The command line: a thin front end over the library.

// Standard output that cannot be written (`> /dev/full`, a full disk) is a
// clear error and exit 1, not std's panic: every `println!` and `print!` of
// the command line goes through [`out`] (these shadow std's in this module
// and the ones below it).
macro_rules! println {
    () => {
        $crate::cli::out(format_args!("\n"))
    };
    ($($t:tt)*) => {
        $crate::cli::out(format_args!("{}\n", format_args!($($t)*)))
    };
}
#[allow(unused_macros)] // kept so a future `print!` cannot bypass `out`
macro_rules! print {
    ($($t:tt)*) => {
        $crate::cli::out(format_args!($($t)*))
    };
}

mod args;
mod cmd_adjudicate;
mod cmd_assign;
mod cmd_batch;
mod cmd_data;
mod cmd_estimate;
mod cmd_export;
mod cmd_export_people;
mod cmd_fewshot;
mod cmd_label;
mod cmd_plan;
mod cmd_prompt;
mod cmd_report;
mod cmd_run;
mod cmd_sample;
mod cmd_split;
mod cmd_store;
mod cmd_trust;
mod doctor;
mod strings;
mod team_person;

pub use args::*;

use crate::config::{Overrides, Settings};
use crate::store::Store;
use clap::Parser;
use std::process::ExitCode;

/// Exit codes of the contract: 0 all well, 1 fatal error (bad flags too), 2 failures recorded.
pub const EXIT_FAILURES: u8 = 2;

pub fn main() -> ExitCode {
    restore_sigpipe();
    // A usage error exits 1 like any other fatal error: 2 is the contract's
    // "failures were recorded", which clap's default exit code would fake.
    // Help and version are answers, not errors, and exit 0.
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if let Err(w) = e.print()
                && !e.use_stderr()
            {
                // `jury --help > /dev/full`: the help was not written.
                stdout_failed(&w);
            }
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    let ended = dispatch(cli);
    // What is still buffered must reach its reader too, or exit 1.
    if let Err(e) = std::io::Write::flush(&mut std::io::stdout()) {
        stdout_failed(&e);
    }
    match ended {
        Ok(code) => code,
        Err(e) => {
            // Errors may quote untrusted text (file contents, server bodies).
            eprintln!(
                "{}",
                strings::fatal(&crate::sanitize::for_display(&format!("{e:#}"), 4000))
            );
            ExitCode::from(1)
        }
    }
}

fn settings(cli_db: Option<std::path::PathBuf>, o: Overrides) -> anyhow::Result<Settings> {
    Ok(Settings::resolve(&Overrides { db: cli_db, ..o })?)
}

/// As [`settings`], for a command that stores who did something (a label,
/// an adjudication, a split, an assignment): on a team's PostgreSQL store
/// that is the role connected as (`team_person`).
fn settings_for_person(
    cli_db: Option<std::path::PathBuf>,
    o: Overrides,
) -> anyhow::Result<Settings> {
    let mut s = settings(cli_db, o)?;
    team_person::settle_who(&mut s)?;
    Ok(s)
}

/// Opens the store, failing with the path in the message.
pub fn open_store(s: &Settings) -> anyhow::Result<Store> {
    let mut store = Store::open(&s.db_path)?;
    // Runs left "running" by a killed process are shown as interrupted.
    store.mark_abandoned_runs(&[])?;
    Ok(store)
}

fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    let command = cli.command.unwrap_or(Command::Tui(TuiArgs::default()));
    match command {
        Command::Tui(a) => {
            let s = settings_for_person(
                cli.db,
                Overrides {
                    model: a.model.clone(),
                    prompts: a.prompts.clone(),
                    theme: a.theme.clone(),
                    who: a.who.clone(),
                    base_urls: a.base_url.clone(),
                    ..Overrides::default()
                },
            )?;
            // A new workspace starts with the sample data (docs/design.md §5).
            // JURY_SAMPLE_DATA names another directory to seed new workspaces with.
            let sample = std::env::var_os("JURY_SAMPLE_DATA").map(std::path::PathBuf::from);
            crate::tui::run(
                s,
                crate::tui::TuiOptions {
                    sample_data_dir: sample,
                },
            )?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Import(a) => {
            let s = settings_for_person(cli.db, Overrides::who(&a.who))?;
            cmd_data::import(&s, a)
        }
        Command::Run(a) => {
            let o = Overrides {
                base_urls: a.base_url.clone(),
                ..Overrides::judge(&a.model, &a.prompts)
            };
            let s = settings(cli.db, o)?;
            cmd_run::run(&s, *a)
        }
        Command::Batch(BatchCommand::Export(a)) => {
            let s = settings(cli.db, Overrides::judge(&a.run.model, &a.run.prompts))?;
            cmd_batch::export(&s, *a)
        }
        Command::Batch(BatchCommand::Import(a)) => {
            let s = settings(cli.db, Overrides::default())?;
            cmd_batch::import(&s, a)
        }
        Command::Label(a) => {
            let s = settings_for_person(cli.db, Overrides::who(&a.who))?;
            cmd_label::label(&s, a)
        }
        Command::Adjudicate(a) => {
            let s = settings_for_person(cli.db, Overrides::who(&a.who))?;
            cmd_adjudicate::adjudicate(&s, a)
        }
        Command::Assign(a) => {
            // `--who` here names the people; who assigns is the usual person.
            let s = settings_for_person(cli.db, Overrides::default())?;
            cmd_assign::assign(&s, a)
        }
        Command::Report(a) => {
            let s = settings(cli.db, Overrides::default())?;
            cmd_report::report(&s, a)
        }
        Command::Estimate(a) => {
            let s = settings(cli.db, Overrides::default())?;
            cmd_estimate::estimate(&s, a)
        }
        Command::Plan(a) => {
            let s = settings(cli.db, Overrides::default())?;
            cmd_plan::plan(&s, a)
        }
        Command::Sample(a) => {
            let s = settings(cli.db, Overrides::default())?;
            cmd_sample::sample(&s, a)
        }
        Command::Trust(a) => {
            let s = settings(cli.db, Overrides::default())?;
            cmd_trust::trust(&s, a)
        }
        Command::Export(a) => {
            let s = settings(cli.db, Overrides::default())?;
            cmd_export::export(&s, a)
        }
        Command::Prompt(a) => {
            let s = settings(cli.db, Overrides::judge(&a.model, &a.prompts))?;
            cmd_prompt::prompt(&s, a)
        }
        Command::Runs(a) => {
            let s = settings(cli.db, Overrides::default())?;
            cmd_data::runs(&s, a.json)
        }
        Command::Failures(a) => {
            let s = settings(cli.db, Overrides::default())?;
            cmd_data::failures(&s, a)
        }
        Command::List(a) => {
            let s = settings(cli.db, Overrides::default())?;
            cmd_data::list(&s, a)
        }
        Command::Split(a) => {
            let s = settings_for_person(cli.db, Overrides::who(&a.who))?;
            cmd_split::split(&s, a)
        }
        Command::Fewshot(a) => {
            let s = settings(cli.db, Overrides::judge(&None, &a.prompts))?;
            cmd_fewshot::fewshot(&s, a)
        }
        Command::Doctor(a) => doctor::doctor(cli.db, a),
        Command::Store(StoreCommand::Copy(a)) => cmd_store::copy(a),
        Command::DemoJudge(a) => cmd_run::demo_judge(a),
    }
}

/// Writes to standard output; a write that fails ends the process (see
/// [`stdout_failed`]).
pub(crate) fn out(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        stdout_failed(&e);
    }
}

/// Standard output failed: a reader that went away (`| head -1`) ends the
/// command quietly, as Unix tools do; anything else (a full disk,
/// `/dev/full`) is a clear error and exit 1.
pub(crate) fn stdout_failed(e: &std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!(
        "{}",
        strings::fatal(&strings::stdout_failed(&e.to_string()))
    );
    std::process::exit(1);
}

/// For a command that writes a file through a temporary one beside it: a
/// SIGTERM, SIGINT or SIGHUP removes the temporary file before the process
/// ends on it as it would have. The signals are blocked here (threads made
/// later inherit that) and taken by one thread of ours, which cleans up,
/// then lets the signal do what it does by default.
fn remove_temporaries_on_signal() {
    #[cfg(unix)]
    // SAFETY: the signal set is a local initialised by sigemptyset before
    // use; blocking signals and waiting for them have no other preconditions.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            libc::sigaddset(&mut set, s);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return;
        }
        let waiting = std::thread::Builder::new()
            .name("jury-signals".into())
            .spawn(move || {
                let mut sig = 0;
                if libc::sigwait(&set, &mut sig) != 0 {
                    return;
                }
                crate::store::remove_temporaries();
                libc::signal(sig, libc::SIG_DFL);
                libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
                libc::raise(sig);
            });
        if waiting.is_err() {
            // No thread to take them: the signals act as before.
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        }
    }
}

/// `jury list items | head` should end quietly like any Unix tool, not panic
/// on the closed pipe: restore the default SIGPIPE action Rust turns off.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal disposition to its default at start-up, before
    // any thread exists, has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
