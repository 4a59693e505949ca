//! The input layer: what a key can ask for ([`action`]), keys with their
//! modifiers ([`keycombo`]), the keymap that joins the two ([`keymap`]) and
//! the thread that reads the terminal ([`reader`]).

pub mod action;
pub mod keycombo;
pub mod keymap;
pub mod reader;
