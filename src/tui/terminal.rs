//! The terminal: ratatui's init (raw mode, alternate screen, a panic hook that
//! restores) and restore on every way out.

use ratatui::DefaultTerminal;

pub fn init() -> DefaultTerminal {
    // ratatui::init installs a panic hook that restores the terminal first.
    ratatui::init()
}

pub fn restore() {
    ratatui::restore();
}

/// Restores the terminal when dropped: on return, `?` and unwinding alike.
pub struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}
