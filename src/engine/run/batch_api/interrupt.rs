//! What an interruption (Ctrl-C, SIGTERM) does to the batches a run waits
//! for: leave them running on the server (the same command with `--resume`
//! waits for them again), or cancel them there. Whoever interrupts says
//! which before cancelling the run.

use super::*;
use std::sync::Mutex;

/// What becomes of a run's open batches when it is interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnInterrupt {
    /// They keep running on the server; `--resume` waits for them.
    #[default]
    Leave,
    /// `POST /v1/batches/{id}/cancel` for each.
    Cancel,
}

impl OnInterrupt {
    pub fn parse(s: &str) -> Option<OnInterrupt> {
        match s {
            "leave" => Some(OnInterrupt::Leave),
            "cancel" => Some(OnInterrupt::Cancel),
            _ => None,
        }
    }
}

/// The choice, shared between the run and whoever interrupts it: set
/// before the run's cancellation token is cancelled, read after.
#[derive(Debug, Clone, Default)]
pub struct Interrupt(Arc<Mutex<OnInterrupt>>);

impl Interrupt {
    pub fn new(choice: OnInterrupt) -> Interrupt {
        Interrupt(Arc::new(Mutex::new(choice)))
    }

    pub fn set(&self, choice: OnInterrupt) {
        match self.0.lock() {
            Ok(mut c) => *c = choice,
            Err(poisoned) => *poisoned.into_inner() = choice,
        }
    }

    pub fn get(&self) -> OnInterrupt {
        match self.0.lock() {
            Ok(c) => *c,
            Err(poisoned) => *poisoned.into_inner(),
        }
    }
}

/// The run was interrupted while waiting for `jobs`: each open batch is left
/// running or cancelled on the server, as chosen; the run says which (and
/// its record keeps it as the note it ends with).
pub(super) async fn interrupted(
    ctx: &Ctx,
    client: &BatchClient,
    store: &mut Store,
    jobs: &mut [BatchJob],
    choice: OnInterrupt,
) {
    let mut ids = Vec::new();
    let mut not_cancelled = Vec::new();
    for job in jobs.iter_mut().filter(|j| !j.imported) {
        let Some(id) = job.batch_id.clone() else {
            continue;
        };
        if choice == OnInterrupt::Cancel {
            match client.cancel(&id).await {
                Ok(state) => {
                    job.status = crate::store::BatchStatus::parse(&state.status);
                    job.counts = Some(state.counts_json());
                    let _ = store.save_batch_job(job);
                }
                Err(e) => not_cancelled.push(format!("{id} ({})", ctx.redact(&e.to_string()))),
            }
        }
        ids.push(id);
    }
    if ids.is_empty() {
        return;
    }
    let which = format!(
        "batch{} {}",
        if ids.len() == 1 { "" } else { "es" },
        ids.join(", ")
    );
    let note = match choice {
        OnInterrupt::Leave => format!(
            "{which} left running on the server: `jury run --batch --resume` with the same flags (or R then b in the workbench) waits for it and reads its answers"
        ),
        OnInterrupt::Cancel if not_cancelled.is_empty() => format!(
            "{which} cancelled on the server: `jury run --batch --resume` with the same flags reads what was answered before, and run again with --resume for the rest"
        ),
        OnInterrupt::Cancel => format!(
            "{which}: cancelling failed for {}, which may still be running; `jury run --batch --resume` with the same flags waits for it",
            not_cancelled.join(", ")
        ),
    };
    ctx.notice(note.clone());
    ctx.cancelled_with(note);
}
