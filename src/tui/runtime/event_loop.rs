//! One loop: `tokio::select!` over terminal events (read on their own thread,
//! see `input`), background messages (engine events, label-writer replies,
//! store reads), signals and a tick; drain what is queued, then draw once, at
//! most every ~16 ms.

use super::super::app::App;
use super::super::effects::Executor;
use super::super::input::reader::{self, Input};
use super::super::msg::Msg;
use super::super::update::update;
use super::super::views::Root;
use crossterm::event::Event;
use ratatui::DefaultTerminal;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedReceiver;

pub const FRAME: Duration = Duration::from_millis(16);

/// How often the store is asked whether others changed labels, notes or
/// marks: a change shows within this plus one read.
pub const WATCH_EVERY: Duration = Duration::from_millis(1000);

/// Why the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The user quit.
    Quit,
    /// A signal (its number) asked the process to end.
    Signal(i32),
}

#[cfg(unix)]
const HANGUP: i32 = libc::SIGHUP;
#[cfg(not(unix))]
const HANGUP: i32 = 1;

fn to_msg(ev: Event) -> Option<Msg> {
    match ev {
        Event::Key(k) => Some(Msg::Key(k)),
        Event::Paste(s) => Some(Msg::Paste(s)),
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        _ => None,
    }
}

/// The one place the workbench reads the wall clock: `update` is given the
/// time, so it stays pure and tests choose it.
fn apply(app: &mut App, exec: &mut Executor, msg: Msg) {
    for fx in update(app, msg, chrono::Utc::now()) {
        exec.run(fx);
    }
}

pub async fn run(
    terminal: &mut DefaultTerminal,
    app: &mut App,
    exec: &mut Executor,
    rx: &mut UnboundedReceiver<Msg>,
    signals: &mut super::signals::Signals,
) -> anyhow::Result<Exit> {
    let mut events = reader::spawn()?;
    // The input thread reports a hangup, unless crossterm caught it first
    // (see `reader`): then this check, once a second, still ends the loop.
    let mut hangup_check = tokio::time::interval(Duration::from_secs(1));
    hangup_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    // Others' labels appear within about this long (see `update::live`).
    let mut watch = tokio::time::interval(WATCH_EVERY);
    watch.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut tick = tokio::time::interval(Duration::from_millis(120));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let size = terminal.size()?;
    apply(app, exec, Msg::Resize(size.width, size.height));
    let mut dirty = true;
    let mut last_draw = Instant::now() - FRAME;
    loop {
        if dirty && last_draw.elapsed() >= FRAME {
            terminal.draw(|f| f.render_widget(Root(app), f.area()))?;
            last_draw = Instant::now();
            dirty = false;
        }
        if app.chrome.quit {
            return Ok(Exit::Quit);
        }
        let wake = if dirty {
            last_draw + FRAME
        } else {
            Instant::now() + Duration::from_secs(3600)
        };
        tokio::select! {
            ev = events.recv() => match ev {
                Some(Input::Event(ev)) => if let Some(m) = to_msg(ev) { apply(app, exec, m); dirty = true; },
                // No terminal to draw on or read from: end as a hangup does
                // (labels flushed, unsaved ones kept for the next start).
                Some(Input::Gone(_)) | None => return Ok(Exit::Signal(HANGUP)),
            },
            sig = signals.next() => return Ok(Exit::Signal(sig)),
            _ = hangup_check.tick() => if reader::hung_up() { return Ok(Exit::Signal(HANGUP)); },
            Some(m) = rx.recv() => {
                // The store watcher answers once a second; an answer that
                // found nothing new changes nothing on screen.
                dirty |= !m.changes_nothing();
                apply(app, exec, m);
            }
            // Only hands a check over: its answer comes back through `rx`.
            _ = watch.tick() => apply(app, exec, Msg::WatchTick),
            // Ticks while a run shows progress, and until a changed session is kept.
            _ = tick.tick() => if app.running() || app.chrome.session.wants_tick() { apply(app, exec, Msg::Tick); dirty = true; },
            _ = tokio::time::sleep_until(wake.into()) => {}
        }
        // Drain whatever else is queued before the next draw.
        while let Ok(input) = events.try_recv() {
            match input {
                Input::Event(ev) => {
                    if let Some(m) = to_msg(ev) {
                        apply(app, exec, m);
                        dirty = true;
                    }
                }
                Input::Gone(_) => return Ok(Exit::Signal(HANGUP)),
            }
        }
        while let Ok(m) = rx.try_recv() {
            apply(app, exec, m);
            dirty = true;
        }
    }
}
