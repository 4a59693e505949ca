//! The workbench without a terminal: its update logic driven by messages, its
//! screens drawn on ratatui's `TestBackend` (insta snapshots in `snapshots/`),
//! and its effects run against a real store and a local judge.

#[path = "../tui_common/mod.rs"]
mod tui_common;

mod active_order;
mod adjudicate;
mod agreement;
mod agreement_figures;
mod agreement_heads_all;
mod agreement_requests;
mod agreement_top_lines;
mod batch_record;
mod drill;
mod effects;
mod fewshot_loop;
mod filters;
mod first_screen;
mod history_long_notes;
mod imported_verdicts;
mod instruction_flag;
mod marks_tags;
mod memory;
mod my_queue;
mod notes;
mod open_batch;
mod owner;
mod prompt_names;
mod protocols;
mod queue;
mod rows;
mod run_notes;
mod runs_executor;
mod runs_flow;
mod safe_data;
mod sample_selection;
mod screens;
mod session;
mod small_screens;
mod split;
mod store_reads;
mod structured;
mod team;
