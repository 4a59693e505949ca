//! Evaluation texts shown while an answer streams in (the workbench).

use super::Ctx;
use crate::domain::ComboKey;
use crate::engine::EngineEvent;
use crate::protocol::Unit;
use crate::provider::StreamFrame;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// Turns streamed fragments into `TextDelta` events: re-reads the partial
/// answer when a fragment may have changed a text, and sends only texts that changed.
pub(super) struct TextStreamer<'a> {
    ctx: &'a Ctx,
    units: Vec<Unit>,
    wanted: HashSet<ComboKey>,
    args: String,
    shown: HashMap<ComboKey, usize>,
    last_parse: Instant,
    /// Fragments arrived since the last parse.
    dirty: bool,
}

impl<'a> TextStreamer<'a> {
    pub(super) fn new(ctx: &'a Ctx, units: &[Unit]) -> Self {
        TextStreamer {
            ctx,
            // Only the workbench needs the texts: a headless run keeps no copy.
            units: if ctx.stream_texts {
                units.to_vec()
            } else {
                Vec::new()
            },
            wanted: units.iter().map(|u| u.key.clone()).collect(),
            args: String::new(),
            shown: HashMap::new(),
            last_parse: Instant::now() - Duration::from_secs(1),
            dirty: false,
        }
    }

    pub(super) fn on_frame(&mut self, frame: StreamFrame) {
        match frame {
            StreamFrame::ToolArgs {
                index: 0, fragment, ..
            }
            | StreamFrame::Content(fragment) => {
                if !self.ctx.stream_texts {
                    return;
                }
                self.args.push_str(&fragment);
                self.dirty = true;
                // Re-parsing is O(answer); doing it at most every 30 ms keeps a long
                // answer linear in practice while the text still flows smoothly.
                if self.last_parse.elapsed() >= Duration::from_millis(30) {
                    self.flush();
                }
            }
            StreamFrame::ToolArgs { .. } => {}
            StreamFrame::Retrying { delay, reason, .. } => {
                self.args.clear();
                self.shown.clear();
                let _ = self.ctx.events.send(EngineEvent::Retrying {
                    run_id: self.ctx.run_id,
                    keys: self.wanted.iter().cloned().collect(),
                    delay,
                    reason,
                });
            }
        }
    }

    /// At the end of an answer: the texts as they finally stand, so every
    /// verdict's text has been streamed before the verdict itself arrives,
    /// however fast the answer came (fragments inside one 30 ms window would
    /// otherwise never be shown as streaming).
    pub(super) fn finish(&mut self) {
        if self.dirty {
            self.flush();
        }
    }

    fn flush(&mut self) {
        self.last_parse = Instant::now();
        self.dirty = false;
        let Some(partial) = crate::provider::partial_json::parse_prefix(&self.args) else {
            return;
        };
        for (key, text) in self.ctx.protocol.partial_texts(&self.units, &partial) {
            if !self.wanted.contains(&key) {
                continue;
            }
            // A key the server echoes never reaches the screen either.
            let text = crate::provider::errtext::redact(&text, self.ctx.client().secrets());
            let len = text.len();
            if self.shown.get(&key) != Some(&len) {
                self.shown.insert(key.clone(), len);
                let _ = self.ctx.events.send(EngineEvent::TextDelta {
                    run_id: self.ctx.run_id,
                    key,
                    text,
                });
            }
        }
    }
}
