//! The real binary in a detached tmux session: what a person sees and keeps
//! through runs, labels, quits, signals and a terminal that goes away. Each
//! test skips (with a note) when tmux is missing.

#[path = "../tui_tmux_common/mod.rs"]
mod tui_tmux_common;

mod active_study;
mod adjudicate;
mod batch_interrupt;
mod config_errors;
mod drill;
mod first_screen;
mod forty_items;
mod hangup;
mod judge_and_label;
mod live;
mod marks_tags;
mod my_queue;
mod notes;
#[cfg(all(feature = "tui", feature = "postgres"))]
mod pg_ann;
mod postgres_faults;
mod postgres_workbench;
mod run_notes;
mod runs;
mod safe_data;
mod session;
mod small_screens;
mod special_files;
mod team;
mod team_roles;
