//! The `jury` command line as a process: import, run, label, export, report,
//! the ledger and the run status, against the in-process fake server.

#[path = "../common/mod.rs"]
mod common;

mod batch_faults;
mod batch_resumes;
mod batch_runs;
mod exit_codes;
mod exports;
mod import;
mod import_csv;
mod import_owner;
mod judge_spec;
mod label_undo;
mod ledger;
mod notes_export;
mod report;
mod report_html;
mod report_html_page;
mod report_narrow;
mod run;
mod run_status;
mod show_request;
mod tags_marks;
mod wide_export;
