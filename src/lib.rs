//! jury: calibrate LLM judges against people.
//!
//! Data flows one way: files → [`store`] → [`engine`] (requests built by a
//! [`protocol`]) → [`provider`] (HTTP stream) → parser → [`store`] →
//! analytics and the front ends. The core compiles and tests without them:
//! `cli` and `tui` exist only with the `tui` feature (default), and nothing
//! outside them may import them (`cargo test --no-default-features` proves it).
//! The fake server of the tests and benchmarks, [`testserver`], exists only
//! with the `testserver` feature, which only they turn on.

pub mod analytics;
pub mod assign;
#[cfg(feature = "tui")]
pub mod cli;
pub mod config;
pub mod demo_judge;
pub mod domain;
pub mod engine;
pub mod export;
pub mod fewshot;
pub mod import;
pub mod par;
pub mod prompt;
pub mod protocol;
pub mod provider;
pub mod readfile;
pub mod report;
pub mod rng;
pub mod sanitize;
pub mod store;
#[cfg(feature = "testserver")]
pub mod testserver;
#[cfg(feature = "tui")]
pub mod tui;
