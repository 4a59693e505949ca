//! One loop: `tokio::select!` over terminal events, background messages
//! (engine events, label-writer replies, store reads) and a tick; drain what is
//! queued, then draw once, at most every ~16 ms.

use super::app::App;
use super::effects::Executor;
use super::msg::Msg;
use super::update::update;
use super::views::Root;
use crossterm::event::{Event, EventStream};
use futures_util::{FutureExt, StreamExt};
use ratatui::DefaultTerminal;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedReceiver;

pub const FRAME: Duration = Duration::from_millis(16);

/// Why the loop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The user quit (or the terminal's input ended).
    Quit,
    /// A signal (its number) asked the process to end.
    Signal(i32),
}

fn to_msg(ev: Event) -> Option<Msg> {
    match ev {
        Event::Key(k) => Some(Msg::Key(k)),
        Event::Paste(s) => Some(Msg::Paste(s)),
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        _ => None,
    }
}

fn apply(app: &mut App, exec: &mut Executor, msg: Msg) {
    for fx in update(app, msg) {
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
    let mut events = EventStream::new();
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
        if app.quit {
            return Ok(Exit::Quit);
        }
        let wake = if dirty {
            last_draw + FRAME
        } else {
            Instant::now() + Duration::from_secs(3600)
        };
        tokio::select! {
            ev = events.next() => match ev {
                Some(Ok(ev)) => if let Some(m) = to_msg(ev) { apply(app, exec, m); dirty = true; },
                Some(Err(e)) => return Err(e.into()),
                None => return Ok(Exit::Quit),
            },
            sig = signals.next() => return Ok(Exit::Signal(sig)),
            Some(m) = rx.recv() => { apply(app, exec, m); dirty = true; }
            _ = tick.tick() => if app.running() { apply(app, exec, Msg::Tick); dirty = true; },
            _ = tokio::time::sleep_until(wake.into()) => {}
        }
        // Drain whatever else is queued before the next draw.
        while let Some(Some(Ok(ev))) = events.next().now_or_never() {
            if let Some(m) = to_msg(ev) {
                apply(app, exec, m);
                dirty = true;
            }
        }
        while let Ok(m) = rx.try_recv() {
            apply(app, exec, m);
            dirty = true;
        }
    }
}
