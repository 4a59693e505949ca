//! The runtime: the terminal set up and restored ([`terminal`]), the signals
//! that end the workbench the orderly way ([`signals`]) and the one loop that
//! joins input, `update`, effects and drawing ([`event_loop`]).

pub mod event_loop;
pub mod signals;
pub mod terminal;
