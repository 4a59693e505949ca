//! Fixtures shared by the TUI tests: the library's own
//! (`jury::tui::fixtures`), so the unit tests and these use one copy.
#![allow(unused_imports)]

pub use jury::tui::fixtures::*;
