//! The core as a library, with no front end: the provider client, the engine
//! and the demo judge against the in-process fake server, the store's
//! migrations, the report's cells, and property tests of the parsers. These
//! build and pass without the `tui` feature.

#[path = "../common/mod.rs"]
mod common;
/// The simulated team of `benches/team_load.rs` (team_load, team_faults).
#[path = "../../benches/common/team.rs"]
mod team;

mod active_draws_pg;
mod demo_judge;
mod docs_paths;
mod engine_faults;
mod engine_streaming;
mod headline_by;
mod headline_choice;
mod headline_perspective;
mod headline_queue;
mod headline_world;
mod label_provenance;
mod one_interval;
mod properties;
mod provider_client;
mod repeats_reading;
mod report_cells;
mod same_figure_people;
mod sample_migration;
mod store_backends;
mod store_migrations;
mod store_roles;
mod team_faults;
mod team_load;
