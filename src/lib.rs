//! jury: calibrate LLM judges against people.
//!
//! Data flows one way: files → [`store`] → [`engine`] (requests built by a
//! [`protocol`]) → [`provider`] (HTTP stream) → parser → [`store`] →
//! analytics and the TUI. Everything here compiles and tests without a terminal
//! except the `tui` module.

pub mod analytics;
pub mod cli;
pub mod config;
pub mod domain;
pub mod engine;
pub mod import;
pub mod par;
pub mod prompt;
pub mod protocol;
pub mod provider;
pub mod report;
pub mod sanitize;
pub mod store;
pub mod testserver;
pub mod tui;
