//! Terminal input on its own thread, and the terminal's hangup seen before
//! crossterm is asked to read.
//!
//! Why a thread: crossterm 0.29's reader loops forever on a hung-up terminal
//! (a hung-up tty reads 0 bytes and polls readable, and its read loop only
//! leaves on `WouldBlock`), holding its global reader lock. Called on the
//! loop's own thread, that froze the workbench at full CPU, deaf to SIGTERM
//! and SIGHUP, whenever its tmux session or ssh connection went away. Here
//! only this thread can be caught in it; the loop keeps answering signals and
//! checks for the hangup itself (`hung_up`), so the orderly exit (labels
//! flushed, unsaved ones kept) still runs and ends the process.

use crossterm::event::Event;
use std::time::Duration;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// What the input thread reports.
pub enum Input {
    Event(Event),
    /// The terminal went away (hangup) or could not be read: why.
    Gone(String),
}

/// How long one wait for input lasts before the thread looks again at
/// whether the terminal hung up and whether anyone still listens.
const WAIT: Duration = Duration::from_millis(200);

/// Starts the input thread. It ends by itself once the receiver is dropped
/// (within `WAIT`) or the terminal is gone; nobody joins it, so a thread
/// caught in crossterm's loop never holds up the process's exit.
pub fn spawn() -> std::io::Result<UnboundedReceiver<Input>> {
    let (tx, rx) = unbounded_channel();
    // Picks the descriptor to watch now, before any hangup can hide it.
    hung_up();
    std::thread::Builder::new()
        .name("jury-input".into())
        .spawn(move || read_until_gone(&tx))?;
    Ok(rx)
}

fn read_until_gone(tx: &UnboundedSender<Input>) {
    loop {
        if tx.is_closed() {
            return;
        }
        if hung_up() {
            let _ = tx.send(Input::Gone("the terminal hung up".into()));
            return;
        }
        let ready = match crossterm::event::poll(WAIT) {
            Ok(ready) => ready,
            Err(e) => {
                let _ = tx.send(Input::Gone(format!("reading the terminal: {e}")));
                return;
            }
        };
        if !ready {
            continue;
        }
        match crossterm::event::read() {
            Ok(ev) => {
                if tx.send(Input::Event(ev)).is_err() {
                    return;
                }
            }
            Err(e) => {
                let _ = tx.send(Input::Gone(format!("reading the terminal: {e}")));
                return;
            }
        }
    }
}

/// Whether the terminal crossterm reads (stdin when it is a terminal,
/// otherwise `/dev/tty`) has hung up. A zero-timeout `poll`: cheap enough to
/// ask every second.
#[cfg(unix)]
pub fn hung_up() -> bool {
    use std::os::fd::{IntoRawFd, RawFd};
    use std::sync::OnceLock;
    // Chosen once, while the terminal is still there: after a hangup stdin
    // no longer passes `isatty` and `/dev/tty` no longer opens. `None` when
    // there is no terminal to watch (then nothing can hang up either).
    static WATCHED: OnceLock<Option<RawFd>> = OnceLock::new();
    let fd = WATCHED.get_or_init(|| {
        // SAFETY: isatty only inspects the descriptor.
        if unsafe { libc::isatty(0) } == 1 {
            return Some(0);
        }
        // Kept open for the life of the process, like crossterm's own handle.
        std::fs::File::open("/dev/tty")
            .ok()
            .map(IntoRawFd::into_raw_fd)
    });
    let Some(fd) = *fd else {
        return false;
    };
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd, timeout 0.
    let n = unsafe { libc::poll(&mut p, 1, 0) };
    n > 0 && p.revents & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0
}

#[cfg(not(unix))]
pub fn hung_up() -> bool {
    false
}
