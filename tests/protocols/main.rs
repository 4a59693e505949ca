//! The judge protocols end to end (guideline, proposition, rubric) on a real
//! store and a local judge, and the boundary markers that keep imported text
//! apart from the instructions in every protocol.

#[path = "../common/mod.rs"]
mod common;

mod boundary;
mod guideline;
mod proposition;
mod rubric;
