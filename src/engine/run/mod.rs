//! One run from plan to finish: the plan, the workers that take its batches
//! ([`batch`]), what is kept of cut-off answers ([`salvage`]), failure
//! records ([`failure`]) and the texts streamed to the workbench ([`stream`]).

mod batch;
pub mod batch_api;
mod confidence;
mod failure;
mod follow_up;
mod plan;
mod salvage;
mod servers;
mod stream;

pub use plan::{Plan, plan};
pub use servers::FIRST_TIME_OUT as SERVER_TIME_OUT;

use super::budget::RunLedger;
use super::writer::{self, WriteCmd};
use super::{EngineConfig, EngineError, EngineEvent, Progress, RunOutcome, RunRequest};
use crate::domain::{RequestPosition, RunSpec, RunStatus, Usage, Verdict};
use crate::protocol::{JudgeProtocol, ParsedVerdict, Unit, new_boundary};
use crate::provider::{AnswerPath, Client};
use crate::store::{Store, now};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::time::Duration;
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

/// Everything shared by the workers of one run.
struct Ctx {
    run_id: i64,
    protocol: Arc<dyn JudgeProtocol>,
    /// Where requests go: one server, or several sharing the run.
    servers: servers::Servers,
    spec: RunSpec,
    boundary: String,
    max_attempts: u32,
    events: UnboundedSender<EngineEvent>,
    writes: Sender<WriteCmd>,
    cancel: CancellationToken,
    /// Set when the run must stop early (quota, auth, budget): no new request
    /// goes out, but answers already streaming in are finished and kept (they
    /// are paid for). `cancel` alone aborts requests in flight.
    stop: CancellationToken,
    /// Why the run stopped early, when it did.
    stop_note: std::sync::Mutex<Option<String>>,
    /// What a cancelled run's record says besides "cancelled" (what became
    /// of the batches it waited for).
    cancel_note: std::sync::Mutex<Option<String>>,
    stream_texts: bool,
    /// `max_tokens` per request, by the number of entries in it.
    request: RunRequest,
    /// How answers came back, counted per path (recorded on the run).
    paths: std::sync::Mutex<HashMap<AnswerPath, u64>>,
    /// Set once an answer came without the token probabilities asked for.
    no_logprobs_said: std::sync::atomic::AtomicBool,
}

/// What a run's context is made of besides its servers and stop: the
/// same for a new run, a batch run taken up again and the direct retries
/// of a batch.
struct Shared {
    run_id: i64,
    protocol: Arc<dyn JudgeProtocol>,
    spec: RunSpec,
    boundary: String,
    request: RunRequest,
    events: UnboundedSender<EngineEvent>,
    writes: Sender<WriteCmd>,
    cancel: CancellationToken,
}

impl Ctx {
    /// The one place a run's context is built: its counters and notes
    /// start empty, its attempts and streaming come from its request.
    fn new(s: Shared, servers: servers::Servers, stop: CancellationToken) -> Ctx {
        Ctx {
            run_id: s.run_id,
            protocol: s.protocol,
            servers,
            spec: s.spec,
            boundary: s.boundary,
            max_attempts: s.request.max_attempts.max(1),
            events: s.events,
            writes: s.writes,
            cancel: s.cancel,
            stop,
            stop_note: std::sync::Mutex::new(None),
            cancel_note: std::sync::Mutex::new(None),
            stream_texts: s.request.stream_texts,
            request: s.request,
            paths: std::sync::Mutex::new(HashMap::new()),
            no_logprobs_said: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// What this context was made of, for another over the same run.
    fn shared(&self) -> Shared {
        Shared {
            run_id: self.run_id,
            protocol: self.protocol.clone(),
            spec: self.spec.clone(),
            boundary: self.boundary.clone(),
            request: self.request.clone(),
            events: self.events.clone(),
            writes: self.writes.clone(),
            cancel: self.cancel.clone(),
        }
    }
}

pub async fn execute(
    cfg: EngineConfig,
    req: RunRequest,
    plan: Plan,
    events: UnboundedSender<EngineEvent>,
    cancel: CancellationToken,
) -> Result<RunOutcome, EngineError> {
    execute_with(cfg, req, plan, None, events, cancel).await
}

/// As [`execute`]; with `batch`, the requests leave as a batch
/// ([`batch_api`]) instead of one by one.
pub async fn execute_with(
    cfg: EngineConfig,
    req: RunRequest,
    plan: Plan,
    batch: Option<batch_api::BatchOrder>,
    events: UnboundedSender<EngineEvent>,
    cancel: CancellationToken,
) -> Result<RunOutcome, EngineError> {
    let mut store = Store::open(&cfg.db_path)?;
    let mut provider = cfg.provider.clone();
    let mut probe_note = super::structured_path::choose(&mut provider, req.structured, &store);
    // Each server starts on the path remembered for it, not the first's.
    let (starts, each) =
        super::structured_path::choose_each(&provider, req.structured, &store, &probe_note);
    if !each.is_empty() {
        probe_note = each;
    }
    let auto = req.structured.is_none();
    let provider_for_memory = provider.clone();
    let mut plan = plan;
    if let (Some(order), Some(record)) = (&batch, plan.spec.record.as_mut()) {
        record.batch = Some(order.settings(&req));
    }
    let run_id = store.create_run(&plan.spec, plan.units())?;
    let left = match claim(&mut store, run_id, &req, &mut plan) {
        Ok(left) => left,
        Err(e) => {
            // Nothing was sent: the run ends here rather than stay "running".
            let _ = store.finish_run(run_id, RunStatus::Failed, Some(&e.to_string()));
            return Err(e);
        }
    };
    let total = plan.units();
    // What a few-shot set showed as examples, so a report on held-out
    // items can refuse a version that saw them.
    store.record_prompt_examples(&plan.spec.prompt_hash, cfg.prompts.example_pairs())?;
    let _ = events.send(EngineEvent::RunStarted {
        run_id,
        total,
        skipped: plan.skipped + left.judged.len() as u64,
    });
    if left.in_batches.0 > 0 {
        let (n, runs) = &left.in_batches;
        let runs: Vec<String> = runs.iter().map(|r| r.to_string()).collect();
        let _ = events.send(EngineEvent::Notice {
            run_id,
            text: format!(
                "{n} combination(s) are in the open batch of run {} (sent through the Batch API and not read yet, or exported for `jury batch import`): left to it, not judged again at full price; `jury run --batch --resume` waits for a batch sent through the API",
                runs.join(", ")
            ),
        });
    }
    if !left.held.is_empty() {
        let _ = events.send(EngineEvent::ClaimedElsewhere {
            run_id,
            skipped: left.held.len() as u64,
            runs: left.by_runs.clone(),
        });
    }
    let progress = Progress {
        run_id,
        total,
        ..Progress::default()
    };
    let writer = writer::start(store, progress, events.clone(), cancel.clone())
        .map_err(EngineError::WriterStart)?;
    let price = match batch {
        Some(_) => super::price::batch_price_for(&plan.spec.model),
        None => super::price::price_for(&plan.spec.model),
    };
    let ledger = Arc::new(RunLedger::new(price, req.budget_usd, writer.tx.clone()));
    let stop = CancellationToken::new();
    let servers = connect(&provider, &req, &ledger, &stop, &starts)?;
    let concurrency = servers.capacity();

    if !plan.settled.is_empty() {
        let settled: Vec<Verdict> = plan
            .settled
            .iter()
            .map(|p| to_verdict(run_id, &plan.spec, p, Duration::ZERO, 0, None))
            .collect();
        let _ = writer.tx.send(WriteCmd::Verdicts(settled));
    }
    let ctx = Arc::new(Ctx::new(
        Shared {
            run_id,
            protocol: plan.protocol.clone(),
            spec: plan.spec,
            boundary: new_boundary(),
            request: req.clone(),
            events: events.clone(),
            writes: writer.tx.clone(),
            cancel: cancel.clone(),
        },
        servers,
        stop,
    ));
    let parked = match &batch {
        Some(order) => batch_api::send(&ctx, &ledger, plan.batches, order, &cfg.db_path).await,
        None => {
            work(&ctx, plan.batches, concurrency).await;
            None
        }
    };
    let _ = writer
        .tx
        .send(WriteCmd::Structured(structured_summary(&ctx, &probe_note)));
    // A run that asked for token probabilities was kept off the tool-call
    // path: what it found says nothing of what tools can do there.
    if auto && !provider_for_memory.logprobs {
        remember_paths(&ctx, provider_for_memory, &writer.tx);
    }
    let (status, note) = ctx.ending(ledger.final_note());
    drop(ctx);
    let finished = writer.close(status, note.clone()).await?;
    // The writer has the last word: it knows what was committed (a run
    // that produced only failures is failed, not done).
    let progress = finished.progress;
    let (mut status, mut note) = finished.ended.unwrap_or((status, note));
    if let Some(park) = parked
        && status == RunStatus::Done
    {
        Store::open(&cfg.db_path)?.park_run(run_id, &park)?;
        (status, note) = (RunStatus::Queued, Some(park));
    }
    Ok(RunOutcome {
        run_id,
        status,
        progress,
        note,
    })
}

/// What an `auto` run learnt of the structured path, remembered for the
/// next: per server when there are several (each under its own endpoint),
/// else for the run's endpoint.
fn remember_paths(ctx: &Ctx, provider: crate::provider::ProviderConfig, writes: &Sender<WriteCmd>) {
    let learnt: Vec<_> = if ctx.servers.several() {
        ctx.servers
            .paths()
            .into_iter()
            .filter_map(|(client, paths)| {
                super::structured_path::learnt(client.tool_mode(), &paths)
                    .map(|l| (client.config().clone(), l))
            })
            .collect()
    } else {
        ctx.paths
            .lock()
            .ok()
            .and_then(|paths| super::structured_path::learnt(ctx.tool_mode(), &paths))
            .map(|l| (provider, l))
            .into_iter()
            .collect()
    };
    for (provider, (mode, detail)) in learnt {
        let _ = writes.send(WriteCmd::RememberPath {
            provider: Box::new(provider),
            mode,
            detail,
        });
    }
}

/// A client per server: the configured base URL alone, or each of
/// `provider.servers` (the same key, model and settings) with its own
/// concurrency (else the run's) and its own starting path (`starts`, by
/// server; else the run's).
fn connect(
    provider: &crate::provider::ProviderConfig,
    req: &RunRequest,
    ledger: &Arc<RunLedger>,
    stop: &CancellationToken,
    starts: &[crate::provider::ToolMode],
) -> Result<servers::Servers, EngineError> {
    let client = |cfg: crate::provider::ProviderConfig| {
        Client::new(cfg).map(|c| c.with_gate(ledger.clone()).with_stop(stop.clone()))
    };
    let several = provider.servers.len() > 1;
    let list = if provider.servers.is_empty() {
        vec![servers::Servers::server(
            client(provider.clone()).map_err(EngineError::Provider)?,
            req.concurrency,
        )]
    } else {
        let mut list = Vec::with_capacity(provider.servers.len());
        for (i, s) in provider.servers.iter().enumerate() {
            let mut cfg = provider.clone();
            cfg.base_url = s.base_url.clone();
            if let Some(&mode) = starts.get(i) {
                cfg.tool_mode = mode;
            }
            // With others to turn to, a server that cannot be reached is
            // not waited for.
            cfg.failover = several;
            list.push(servers::Servers::server(
                client(cfg).map_err(EngineError::Provider)?,
                s.concurrency.unwrap_or(req.concurrency),
            ));
        }
        list
    };
    Ok(servers::Servers::new(list).with_time_out(req.server_time_out))
}

/// Claims the plan's combinations for the run; a `--resume` leaves out
/// those another live run is judging (or that were judged since planning),
/// and is cut into requests again without them.
fn claim(
    store: &mut Store,
    run_id: i64,
    req: &RunRequest,
    plan: &mut Plan,
) -> Result<crate::store::Claimed, EngineError> {
    // Borrowed, not copied: the plan already holds every key once.
    let keys: Vec<&crate::domain::ComboKey> =
        plan.batches.iter().flatten().map(|u| &u.key).collect();
    let filter = crate::store::VerdictFilter {
        persona_id: &plan.spec.persona_id,
        protocol: plan.spec.protocol,
        mode: plan.spec.mode,
        model: &plan.spec.model,
        prompt_hash: &plan.spec.prompt_hash,
    };
    let claimed = store.claim_combinations(run_id, &filter, &keys, req.resume)?;
    if !claimed.held.is_empty() || !claimed.judged.is_empty() {
        let units: Vec<Unit> = std::mem::take(&mut plan.batches)
            .into_iter()
            .flatten()
            .filter(|u| !claimed.skips(&u.key))
            .collect();
        plan.batches = plan.protocol.batches(units, req.batch_size);
    }
    Ok(claimed)
}

/// Judges `batches` on `concurrency` workers until done, stopped or cancelled.
async fn work(ctx: &Arc<Ctx>, batches: Vec<Vec<Unit>>, concurrency: usize) {
    // `concurrency` workers, each taking the next batch as soon as its last
    // one is done: a freed slot sends its next request from the same task,
    // with no hand-off through a coordinator, and answers that arrive
    // together are parsed on every worker thread.
    let workers = concurrency.max(1).min(batches.len().max(1));
    let queue = Arc::new(std::sync::Mutex::new(std::collections::VecDeque::from(
        batches,
    )));
    let handles: Vec<_> = (0..workers)
        .map(|_| {
            let (ctx, queue) = (ctx.clone(), queue.clone());
            tokio::spawn(async move {
                loop {
                    let next = match queue.lock() {
                        Ok(mut q) => q.pop_front(),
                        Err(poisoned) => poisoned.into_inner().pop_front(),
                    };
                    let Some(batch) = next else { break };
                    batch::judge_batch(&ctx, batch).await;
                }
            })
        })
        .collect();
    for joined in futures_util::future::join_all(handles).await {
        if let Err(e) = joined
            && let Ok(mut n) = ctx.stop_note.lock()
        {
            // A panic in one worker stops the run instead of taking the
            // process down; what arrived is kept.
            n.get_or_insert_with(|| format!("internal error while judging a batch: {e}"));
            ctx.stop.cancel();
        }
    }
}

/// How the run's answers were asked for and how they came back (and, with
/// several servers, how many requests each took).
fn structured_summary(ctx: &Ctx, probe: &str) -> String {
    let mode = ctx.tool_mode();
    let mut parts: Vec<String> = ctx
        .paths
        .lock()
        .map(|p| {
            let mut v: Vec<(AnswerPath, u64)> = p.iter().map(|(k, n)| (*k, *n)).collect();
            v.sort_by_key(|(k, _)| k.as_str());
            v.into_iter()
                .map(|(k, n)| format!("{n} {}", k.as_str()))
                .collect()
        })
        .unwrap_or_default();
    if parts.is_empty() {
        parts.push("no answers".into());
    }
    let mut s = format!("{}: {}", mode.as_str(), parts.join(", "));
    if !probe.is_empty() {
        s.push_str(" (");
        s.push_str(probe);
        s.push(')');
    }
    if ctx.servers.several() {
        s.push_str("; servers: ");
        s.push_str(&ctx.servers.summary());
    }
    s
}

impl Ctx {
    /// The run's key, model and settings (the first server's client; they
    /// are the same for all).
    fn client(&self) -> &Client {
        self.servers.first()
    }

    /// The structured path the run ended on: the furthest any server moved to.
    fn tool_mode(&self) -> crate::provider::ToolMode {
        self.servers
            .all()
            .map(|s| s.client.tool_mode())
            .max()
            .unwrap_or(crate::provider::ToolMode::Tools)
    }

    /// Says something about the run once (the CLI prints it, the workbench shows it).
    fn notice(&self, text: String) {
        let _ = self.events.send(EngineEvent::Notice {
            run_id: self.run_id,
            text,
        });
    }

    /// How the run ends as the workers see it (the writer may know better):
    /// failed with a note when it stopped early (`budget_note` first),
    /// cancelled, or done.
    fn ending(&self, budget_note: Option<String>) -> (RunStatus, Option<String>) {
        let note = budget_note.or_else(|| self.stop_note.lock().ok().and_then(|n| n.clone()));
        let status = if self.cancel.is_cancelled() && note.is_none() {
            RunStatus::Cancelled
        } else if note.is_some() {
            RunStatus::Failed
        } else {
            RunStatus::Done
        };
        let note = note.or_else(|| {
            (status == RunStatus::Cancelled).then(|| {
                match self.cancel_note.lock().ok().and_then(|n| n.clone()) {
                    Some(n) => format!("cancelled; {n}"),
                    None => "cancelled".to_string(),
                }
            })
        });
        (status, note)
    }

    /// The run was cancelled, and its record says `note` besides.
    fn cancelled_with(&self, note: String) {
        if let Ok(mut n) = self.cancel_note.lock() {
            *n = Some(note);
        }
    }

    /// Stops the run early (no new request goes out; answers streaming in
    /// are finished and kept), the first reason given kept as its note.
    fn stop_with(&self, note: String) {
        if let Ok(mut n) = self.stop_note.lock() {
            n.get_or_insert(note);
        }
        self.stop.cancel();
    }

    fn note_path(&self, path: AnswerPath) {
        if let Ok(mut p) = self.paths.lock() {
            *p.entry(path).or_insert(0) += 1;
        }
    }
}

impl Ctx {
    /// `s` with the key removed, in every form a server could echo it in.
    fn redact(&self, s: &str) -> String {
        crate::provider::errtext::redact(s, self.client().secrets())
    }

    /// A verdict as the request produced it, with the key removed from the
    /// decoded text of each of its fields: nothing a server echoed reaches
    /// the store, an export or the screen.
    fn verdict(
        &self,
        p: &ParsedVerdict,
        latency: Duration,
        tokens: u64,
        position: Option<RequestPosition>,
        server: &str,
    ) -> Verdict {
        let mut v = to_verdict(self.run_id, &self.spec, p, latency, tokens, position);
        v.server = Some(server.to_string());
        v.text = self.redact(&v.text);
        v.raw = self.redact(&v.raw);
        v.evaluated_selection = v.evaluated_selection.map(|s| self.redact(&s));
        v
    }
}

fn to_verdict(
    run_id: i64,
    spec: &RunSpec,
    p: &ParsedVerdict,
    latency: Duration,
    tokens: u64,
    position: Option<RequestPosition>,
) -> Verdict {
    Verdict {
        run_id,
        key: p.key.clone(),
        persona_id: spec.persona_id.clone(),
        protocol: spec.protocol,
        mode: spec.mode,
        model: spec.model.clone(),
        value: p.value,
        text: p.text.clone(),
        evaluated_selection: p.evaluated_selection.clone(),
        selection_mismatch: p.selection_mismatch,
        latency_ms: latency.as_millis() as u64,
        tokens,
        raw: p.raw.clone(),
        created_at: now(),
        position,
        confidence: None,
        server: None,
    }
}

/// Each item's place among the items of a request.
fn item_positions(units: &[Unit]) -> HashMap<&str, RequestPosition> {
    let order = crate::protocol::item_order(units);
    let items = order.len() as u32;
    order
        .into_iter()
        .map(|(id, index)| {
            let index = index as u32;
            (id, RequestPosition { index, items })
        })
        .collect()
}

/// Usage as the engine records it (unknown is not zero).
pub fn usage_or_unknown(u: Option<Usage>) -> String {
    match u {
        Some(u) => format!("{} in / {} out", u.prompt_tokens, u.completion_tokens),
        None => "unknown".into(),
    }
}
