//! Planning: which units, in which requests, before anything is sent.

use crate::config::ConfidenceChoice;
use crate::domain::{ComboKey, PromptsUsed, RECORD_VERSION, RunRecord, RunSpec};
use crate::engine::{EngineConfig, EngineError, RunRequest};
use crate::protocol::JudgeSpec;
use crate::protocol::{ItemBook, JudgeProtocol, ParsedVerdict, Unit};
use crate::provider::server_label;
use crate::store::{Store, VerdictFilter};
use std::collections::HashSet;
use std::sync::Arc;

/// What the planning step decided, before any request is sent.
pub struct Plan {
    pub protocol: Arc<dyn JudgeProtocol>,
    pub spec: RunSpec,
    pub batches: Vec<Vec<Unit>>,
    pub skipped: u64,
    /// Verdicts decided without a request (a proposition whose precondition
    /// does not hold); written when the run starts and counted in its total.
    pub settled: Vec<ParsedVerdict>,
}

impl Plan {
    pub fn units(&self) -> u64 {
        self.batches.iter().map(|b| b.len() as u64).sum::<u64>() + self.settled.len() as u64
    }
}

/// Builds the plan: which units, in which batches, skipping what `--resume` finds done.
pub fn plan(cfg: &EngineConfig, req: &RunRequest, store: &Store) -> Result<Plan, EngineError> {
    req.validate(&cfg.provider)?;
    // What the judge sees of each item (never 50 MB of it), read one item
    // at a time and kept as deflated text, parsed per request
    // ([`ItemBook`]): the parsed items of a 100 000-combination run would
    // take four times the memory, and all of them at once twice that.
    let mut all_ids = Vec::new();
    let mut book = ItemBook::default();
    store.for_each_item(|item| {
        all_ids.push(item.id.clone());
        book.insert(&crate::protocol::caps::for_judge(item));
        true
    })?;
    let items = Arc::new(book.sealed());
    let judge_spec = req.spec.without_repeats();
    let built = crate::protocol::build(&judge_spec, store, &cfg.prompts, items)?;
    let protocol = built.judge;
    let ids = select(req, &*protocol, all_ids)?;
    let record = record_of(cfg, req, &judge_spec, &built.prompt_hash, ids.len());
    let spec = RunSpec {
        protocol: req.spec.protocol(),
        mode: protocol.mode(),
        persona_id: built.persona_id,
        perspective_ids: judge_spec.perspective_ids(),
        model: cfg.provider.model.clone(),
        prompt_hash: built.prompt_hash,
        record: Some(Box::new(record)),
    };
    // One place every plan is built (flags, the workbench, a claims file):
    // a combination named twice is sent once, at its first place.
    let mut units = protocol.units(&ids);
    drop(ids);
    first_of_each(&mut units);
    let mut skipped = 0;
    if req.resume {
        let done = store.judged_keys(&VerdictFilter {
            persona_id: &spec.persona_id,
            protocol: spec.protocol,
            mode: spec.mode,
            model: &spec.model,
            prompt_hash: &spec.prompt_hash,
        })?;
        let before = units.len();
        units.retain(|u| !done.contains(&u.key));
        skipped = (before - units.len()) as u64;
    }
    // Units a protocol settles without asking (a precondition that does not hold).
    let settled = protocol.settle(&units);
    if !settled.is_empty() {
        let done: HashSet<&ComboKey> = settled.iter().map(|v| &v.key).collect();
        units.retain(|u| !done.contains(&u.key));
    }
    let batches = protocol.batches(units, req.batch_size);
    Ok(Plan {
        protocol,
        spec,
        batches,
        skipped,
        settled,
    })
}

/// Keeps the first unit of each combination, in place: the set borrows the
/// keys rather than copying 100 000 of them.
fn first_of_each(units: &mut Vec<Unit>) {
    let keep: Vec<bool> = {
        let mut seen: HashSet<&ComboKey> = HashSet::with_capacity(units.len());
        units.iter().map(|u| seen.insert(&u.key)).collect()
    };
    let mut keep = keep.into_iter();
    units.retain(|_| keep.next().unwrap_or(true));
}

/// What the run asks and how, as its record keeps it (a batch run's way
/// is added when it is sent, [`super::batch_api`]).
fn record_of(
    cfg: &EngineConfig,
    req: &RunRequest,
    judge: &JudgeSpec,
    prompt_hash: &str,
    items: usize,
) -> RunRecord {
    let provider = &cfg.provider;
    let servers = match provider.servers.is_empty() {
        true => vec![provider.base_url.clone()],
        false => provider
            .servers
            .iter()
            .map(|s| s.base_url.clone())
            .collect(),
    };
    RunRecord {
        version: RECORD_VERSION,
        judge: judge.clone(),
        model: provider.model.clone(),
        prompts: PromptsUsed {
            // Absolute: an import from another folder finds the same set.
            dir: cfg
                .prompts
                .dir()
                .map(|d| std::path::absolute(d).unwrap_or_else(|_| d.to_path_buf())),
            hash: prompt_hash.to_string(),
        },
        structured: req.structured,
        confidence: match provider.logprobs {
            true => ConfidenceChoice::Logprobs,
            false => ConfidenceChoice::Off,
        },
        temperature: provider.temperature,
        batch_size: req.batch_size,
        concurrency: req.concurrency,
        max_attempts: req.max_attempts,
        items,
        shuffle_seed: req.shuffle_seed,
        batch: None,
        // Never a credential: no user, password, query or fragment.
        servers: servers.iter().map(|u| server_label(u)).collect(),
        converted: None,
    }
}

/// The item ids the run covers, in the order they are asked about.
fn select(
    req: &RunRequest,
    protocol: &dyn JudgeProtocol,
    all_ids: Vec<String>,
) -> Result<Vec<String>, EngineError> {
    // Without explicit ids, choose among the items this protocol can judge
    // (a --limit or subset of inbox items is not spent on conversations).
    let eligible: Vec<String> = match req.item_ids {
        Some(_) => all_ids,
        // The ids that have any unit, in store order: asked a slice at a
        // time, so the units of every item are never all held at once.
        None => all_ids
            .chunks(1024)
            .flat_map(|ids| {
                let judged: HashSet<String> = protocol
                    .units(ids)
                    .into_iter()
                    .map(|u| u.key.item_id)
                    .collect();
                ids.iter()
                    .filter(|id| judged.contains(*id))
                    .cloned()
                    .collect::<Vec<_>>()
            })
            .collect(),
    };
    let mut ids = crate::engine::item_selection::select_items(
        &eligible,
        req.item_ids.as_deref(),
        req.subset,
        req.limit,
    )
    .map_err(EngineError::Selection)?;
    if let Some(seed) = req.shuffle_seed {
        crate::engine::item_selection::shuffle(&mut ids, seed);
    }
    Ok(ids)
}
