//! Ctrl-C while a batch run waits: what becomes of the batch on the server.
//! `--batch-on-interrupt` says; else, on a terminal, the user is asked; else
//! it is left running (the same command with `--resume` waits for it).

use crate::cli::strings::drive as say;
use crate::engine::{Interrupt, OnInterrupt};
use std::io::{BufRead, IsTerminal, Write};

/// A batch the run waits for, and whether Ctrl-C asks what becomes of it.
pub(in crate::cli) struct BatchWait {
    /// Where the choice goes (the engine reads it once cancelled).
    pub interrupt: Interrupt,
    /// No `--batch-on-interrupt` was given: ask, when there is a terminal.
    pub ask: bool,
}

impl BatchWait {
    /// Ask on this Ctrl-C: nothing chose yet, and someone is there to answer.
    pub fn asks(&self) -> bool {
        self.ask && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
    }
}

/// Asks on `out` and reads the answer from `input`: `c` (or `cancel`)
/// cancels the batch, anything else (Enter, end of input) leaves it.
pub(super) fn ask(input: &mut impl BufRead, out: &mut impl Write) -> OnInterrupt {
    let _ = write!(out, "{}", say::ASK_BATCH);
    let _ = out.flush();
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(_) if line.trim().to_ascii_lowercase().starts_with('c') => OnInterrupt::Cancel,
        _ => OnInterrupt::Leave,
    }
}

/// [`ask`] on the terminal, on a thread of its own (the run goes on while
/// the question waits; a second Ctrl-C stops at once).
pub(super) fn ask_in_background() -> tokio::sync::oneshot::Receiver<OnInterrupt> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::spawn(move || {
        let choice = ask(&mut std::io::stdin().lock(), &mut std::io::stderr());
        let _ = tx.send(choice);
    });
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(text: &str) -> (OnInterrupt, String) {
        let mut out = Vec::new();
        let choice = ask(&mut std::io::Cursor::new(text.as_bytes()), &mut out);
        (choice, String::from_utf8(out).expect("utf-8"))
    }

    #[test]
    fn c_cancels_and_anything_else_leaves_the_batch_running() {
        let (choice, asked) = answer("c\n");
        assert_eq!(choice, OnInterrupt::Cancel);
        assert!(asked.contains("cancel the batch on the server"), "{asked}");
        assert_eq!(answer("Cancel\n").0, OnInterrupt::Cancel);
        for leave in ["\n", "l\n", "leave\n", "", "x\n"] {
            assert_eq!(answer(leave).0, OnInterrupt::Leave, "{leave:?}");
        }
    }
}
