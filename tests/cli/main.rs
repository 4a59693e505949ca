//! The `jury` command line as a process: import, run, label, export, report,
//! the ledger and the run status, against the in-process fake server.

#[path = "../common/mod.rs"]
mod common;

mod adjudicate;
mod assign;
mod batch_faults;
mod batch_ids_key;
mod batch_resumes;
mod batch_runs;
mod claims_hosts;
mod estimate_edges;
mod estimate_summary;
mod exit_codes;
mod exports;
mod import;
mod import_csv;
mod import_definitions;
mod import_owner;
mod import_sampled;
mod import_verdicts;
mod import_wide_csv;
mod inspect_eval;
mod judge_spec;
mod label_undo;
mod ledger;
mod log_map;
mod notes_export;
mod other_tools;
mod people_tools;
mod postgres_roles;
mod postgres_store;
mod report;
mod report_html;
mod report_html_800;
mod report_html_page;
mod report_narrow;
mod run;
mod run_cascade;
mod run_held_body;
mod run_memory;
mod run_records;
mod run_status;
mod runs_list;
mod show_request;
mod store_copy;
mod tags_marks;
mod team_agreement;
mod wide_export;
mod wide_mark_notes;
mod wide_names;
