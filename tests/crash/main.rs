//! Crash safety on the real binary: `kill -9` at seeded random moments, and in
//! the middle of a run followed by `--resume`. `JURY_CRASH_ITERATIONS` sets
//! how many random kills (`random_kills`) are tried.

#[path = "../common/mod.rs"]
mod common;

mod batch_kills;
mod random_kills;
mod resume;
