//! The terminal: raw mode, the alternate screen and bracketed paste on the
//! way in; all three undone on every way out (return, `?`, panic, signal).

use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use ratatui::DefaultTerminal;

/// Raw mode, the alternate screen and bracketed paste (a paste arrives as one
/// event, never as keystrokes that would run as hotkeys); installs a panic
/// hook that restores the terminal before the panic message prints. An error
/// (not a terminal) is returned, not panicked.
pub fn init() -> std::io::Result<DefaultTerminal> {
    let term = ratatui::try_init().inspect_err(|_| restore())?;
    // ratatui's hook restores raw mode and the screen; ours also turns
    // bracketed paste off and shows the cursor, then hands on.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        previous(info);
    }));
    crossterm::execute!(std::io::stdout(), EnableBracketedPaste).inspect_err(|_| restore())?;
    Ok(term)
}

/// Undoes [`init`]; safe to call more than once and on a terminal that is gone
/// (errors are ignored: there is nowhere left to report them).
pub fn restore() {
    let _ = crossterm::execute!(
        std::io::stdout(),
        DisableBracketedPaste,
        crossterm::cursor::Show
    );
    ratatui::restore();
}

/// Restores the terminal when dropped: on return, `?` and unwinding alike.
pub struct Guard;

impl Drop for Guard {
    fn drop(&mut self) {
        restore();
    }
}
