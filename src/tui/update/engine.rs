//! The engine's events for a run of this session: progress, streaming
//! text, verdicts, failures and the run's end.

use super::super::app::*;
use crate::engine::EngineEvent;

pub fn engine_event(app: &mut App, tag: u64, ev: EngineEvent) {
    let Some(run) = app.runs.active.iter_mut().find(|r| r.tag == tag) else {
        return; // not a run of this session: stale
    };
    match ev {
        EngineEvent::RunStarted {
            run_id,
            total,
            skipped,
        } => {
            run.run_id = Some(run_id);
            run.progress.run_id = run_id;
            run.progress.total = total;
            if skipped > 0 {
                run.note = Some(crate::tui::strings::msg::skipped(skipped));
            }
        }
        EngineEvent::RequestStarted { keys, .. } => {
            for k in keys {
                app.runs.streams.insert(k, Stream::new(tag));
            }
        }
        EngineEvent::TextDelta { key, text, .. } => {
            let s = app
                .runs
                .streams
                .entry(key)
                .or_insert_with(|| Stream::new(tag));
            if s.tag != tag {
                *s = Stream::new(tag);
            }
            s.set(&text);
        }
        EngineEvent::Retrying {
            keys,
            reason,
            delay,
            ..
        } => {
            for k in &keys {
                app.runs.streams.remove(k);
            }
            app.chrome.warn(crate::tui::strings::msg::retrying(
                delay.as_secs_f64(),
                &crate::tui::strings::flat(&reason, 200),
            ));
        }
        EngineEvent::Verdict { verdict, .. } => {
            let mut v = *verdict;
            super::super::app::queue::compact_raw(&mut v);
            if app.runs.streams.get(&v.key).is_some_and(|s| s.tag == tag) {
                app.runs.streams.remove(&v.key);
            }
            let item = v.key.item_id.clone();
            app.data.verdicts.entry(item.clone()).or_default().push(v);
            if let Some(&i) = app.data.index_of.get(&item) {
                app.item_changed(i as usize);
            }
        }
        EngineEvent::Failure { failure, .. } => {
            for k in &failure.keys {
                app.runs.streams.remove(k);
            }
            app.chrome.error(crate::tui::strings::msg::judge_failure(
                failure.kind.as_str(),
                &crate::tui::strings::flat(&failure.reason, 200),
            ));
        }
        EngineEvent::Notice { text, .. } => {
            let said = crate::tui::strings::flat(&text, 200);
            app.chrome.warn(said.clone());
            run.note = Some(match run.note.take() {
                Some(n) => format!("{n}; {said}"),
                None => said,
            });
        }
        EngineEvent::Progress(p) => run.progress = p,
        EngineEvent::BatchStatus { batch, .. } => run.batch = Some(batch),
        EngineEvent::StoreWaiting { waited, .. } => {
            app.chrome
                .warn(crate::tui::strings::msg::store_waiting(waited));
        }
        EngineEvent::ClaimedElsewhere { skipped, runs, .. } => {
            let said = crate::tui::strings::msg::claimed_elsewhere(skipped, &runs);
            app.chrome.warn(said.clone());
            run.note = Some(match run.note.take() {
                Some(n) => format!("{n}; {said}"),
                None => said,
            });
        }
        EngineEvent::RunFinished {
            status,
            progress,
            note,
            ..
        } => {
            run.progress = progress;
            run.finished = true;
            run.ended = Some(status);
            // A run that stopped short says so in the colour of its status,
            // not in the calm one of a finished run.
            let level = match status {
                crate::domain::RunStatus::Failed => Level::Error,
                _ if progress.failed > 0 || note.is_some() => Level::Warning,
                _ => Level::Info,
            };
            let msg = crate::tui::strings::msg::run_finished(
                &run.outcome().unwrap_or_default(),
                note.as_deref()
                    .map(|n| crate::tui::strings::flat(n, 200))
                    .as_deref(),
            );
            run.note = note;
            app.runs.last_ended = Some(tag);
            app.runs.streams.retain(|_, s| s.tag != tag);
            app.chrome.message = Some((level, msg));
        }
    }
}
