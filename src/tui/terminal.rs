//! The terminal: ratatui's init (raw mode, alternate screen, a panic hook that
//! restores) and restore on every way out.

use ratatui::DefaultTerminal;

/// Raw mode and the alternate screen; installs a panic hook that restores the
/// terminal before the panic message prints. An error (not a terminal) is
/// returned, not panicked.
pub fn init() -> std::io::Result<DefaultTerminal> {
    ratatui::try_init().inspect_err(|_| ratatui::restore())
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
