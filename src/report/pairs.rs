//! Pairing what the store holds into comparisons: judge vs human, human vs
//! human, mode vs mode, persona vs persona, model vs model, prompt version vs
//! prompt version and run vs run (test-retest). Values on different scales are
//! compared on the agreement reading (Likert ≥4 AGREE, ≤2 DISAGREE, 3 undecided
//! and counted apart).

use crate::domain::{ComboKey, Label, Mode, Protocol, Run, Value};
use crate::store::VerdictValue;
use rustc_hash::FxHashMap as HashMap;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Which comparison a set of pairs belongs to (the JSON contract's keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Comparison {
    JudgeVsHuman,
    HumanVsHuman,
    ModeVsMode,
    PersonaVsPersona,
    ModelVsModel,
    PromptVsPrompt,
    RunVsRun,
}

impl Comparison {
    pub const ALL: [Comparison; 7] = [
        Comparison::JudgeVsHuman,
        Comparison::HumanVsHuman,
        Comparison::ModeVsMode,
        Comparison::PersonaVsPersona,
        Comparison::ModelVsModel,
        Comparison::PromptVsPrompt,
        Comparison::RunVsRun,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Comparison::JudgeVsHuman => "judge_vs_human",
            Comparison::HumanVsHuman => "human_vs_human",
            Comparison::ModeVsMode => "mode_vs_mode",
            Comparison::PersonaVsPersona => "persona_vs_persona",
            Comparison::ModelVsModel => "model_vs_model",
            Comparison::PromptVsPrompt => "prompt_vs_prompt",
            Comparison::RunVsRun => "run_vs_run",
        }
    }
}

/// What a pair is about, for grouping (`--by`). Shared, not copied: a
/// report over a million verdicts holds millions of pairs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PairContext {
    pub key: Arc<ComboKey>,
    /// The judge's protocol (human-vs-human pairs: the protocol the
    /// labels' perspective names, AwAg otherwise).
    pub protocol: Protocol,
    pub persona: Arc<str>,
    pub mode: Option<Mode>,
    pub model: Arc<str>,
}

/// One compared pair: who/what is on each side, and their values.
#[derive(Debug, Clone, PartialEq)]
pub struct Pair {
    pub ctx: PairContext,
    /// e.g. "awag mode 2 · gpt-4o-mini" vs "alice".
    pub left: Arc<str>,
    pub right: Arc<str>,
    pub a: Value,
    pub b: Value,
}

/// One judge configuration: what must match for two verdicts to come from
/// "the same judge".
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Judge {
    protocol: Protocol,
    mode: Option<Mode>,
    model: u32,
    prompt: u32,
}

/// A verdict reduced to ids (24 bytes): what pairing needs.
#[derive(Debug, Clone, Copy)]
struct Judged {
    judge: u32,
    combo: u32,
    persona: u32,
    run_id: i64,
    value: Value,
    /// Place in its request, 0 (first) to 1 (last); None for single-item requests.
    rel: Option<f32>,
}

/// One judge's verdicts placed in multi-item requests, for the position-bias
/// figures: every placed verdict, and the combinations judged at more than
/// one place (each as its verdicts in run order).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PositionSeries {
    pub judge: Arc<str>,
    pub placed: Vec<(f32, Value)>,
    pub repeats: Vec<Vec<(f32, Value)>>,
}

/// Every comparison's pairs.
pub type PairsByComparison = BTreeMap<Comparison, Vec<Pair>>;

/// Strings and combinations interned to small ids, so a million verdicts
/// cost a million small records, not a million sets of strings.
#[derive(Default)]
struct Interner {
    ids: HashMap<Arc<str>, u32>,
    names: Vec<Arc<str>>,
}

impl Interner {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.ids.get(s) {
            return i;
        }
        let a: Arc<str> = Arc::from(s);
        let i = self.names.len() as u32;
        self.names.push(a.clone());
        self.ids.insert(a, i);
        i
    }
}

/// From this many verdicts on, [`Builder::read`] reads on two connections.
pub const PARALLEL_READ_MIN: i64 = 100_000;

/// Collects verdicts and labels, then pairs them ([`Builder::finish_with_positions`]).
pub struct Builder {
    strings: Interner,
    combo_ids: HashMap<(u32, u32, u32), u32>,
    combos: Vec<Arc<ComboKey>>,
    judge_ids: HashMap<Judge, u32>,
    judges: Vec<Judge>,
    prompt_of_run: HashMap<i64, u32>,
    last_combo: Option<u32>,
    verdicts: Vec<Judged>,
    labels: Vec<(u32, u32, Arc<str>, Value)>,
}

impl Builder {
    /// `runs` give each verdict's prompt set (prompt versions are compared).
    pub fn new(runs: &[Run]) -> Builder {
        let mut strings = Interner::default();
        let prompt_of_run = runs
            .iter()
            .map(|r| (r.id, strings.id(&r.spec.prompt_hash)))
            .collect();
        Builder {
            strings,
            combo_ids: HashMap::default(),
            combos: Vec::new(),
            judge_ids: HashMap::default(),
            judges: Vec::new(),
            prompt_of_run,
            last_combo: None,
            verdicts: Vec::new(),
            labels: Vec::new(),
        }
    }

    fn combo(&mut self, item: &str, classification: &str, perspective: &str) -> u32 {
        // Consecutive verdicts of one request are often about the same
        // combination or item: compare before hashing.
        if let Some(c) = self.last_combo
            && let k = &self.combos[c as usize]
            && k.item_id == item
            && k.classification_id == classification
            && k.perspective_id == perspective
        {
            return c;
        }
        let c = self.combo_uncached(item, classification, perspective);
        self.last_combo = Some(c);
        c
    }

    fn combo_uncached(&mut self, item: &str, classification: &str, perspective: &str) -> u32 {
        let k = (
            self.strings.id(item),
            self.strings.id(classification),
            self.strings.id(perspective),
        );
        if let Some(&c) = self.combo_ids.get(&k) {
            return c;
        }
        let c = self.combos.len() as u32;
        self.combos
            .push(Arc::new(ComboKey::new(item, classification, perspective)));
        self.combo_ids.insert(k, c);
        c
    }

    /// Verdicts in insertion order: a later one of the same judge on the
    /// same combination and persona stands for that judge.
    pub fn add_verdict(&mut self, v: VerdictValue<'_>) {
        let combo = self.combo(v.item_id, v.classification_id, v.perspective_id);
        let empty = self.strings.id("");
        let judge = Judge {
            protocol: v.protocol,
            mode: v.mode,
            model: self.strings.id(v.model),
            prompt: self.prompt_of_run.get(&v.run_id).copied().unwrap_or(empty),
        };
        let next = self.judges.len() as u32;
        let judge = *self.judge_ids.entry(judge.clone()).or_insert_with(|| {
            self.judges.push(judge);
            next
        });
        let persona = self.strings.id(v.persona_id);
        self.verdicts.push(Judged {
            judge,
            combo,
            persona,
            run_id: v.run_id,
            value: v.value,
            rel: v.position.and_then(|p| p.relative()).map(|r| r as f32),
        });
    }

    /// Appends what `later` collected (read after everything in `self`, e.g.
    /// the second half of the verdict ids), re-keying its interned ids.
    pub fn append(&mut self, later: Builder) {
        let strings: Vec<u32> = later
            .strings
            .names
            .iter()
            .map(|n| self.strings.id(n))
            .collect();
        let combos: Vec<u32> = later
            .combos
            .iter()
            .map(|k| self.combo_uncached(&k.item_id, &k.classification_id, &k.perspective_id))
            .collect();
        let judges: Vec<u32> = later
            .judges
            .iter()
            .map(|j| {
                let judge = Judge {
                    protocol: j.protocol,
                    mode: j.mode,
                    model: strings[j.model as usize],
                    prompt: strings[j.prompt as usize],
                };
                let next = self.judges.len() as u32;
                *self.judge_ids.entry(judge.clone()).or_insert_with(|| {
                    self.judges.push(judge);
                    next
                })
            })
            .collect();
        self.verdicts.reserve(later.verdicts.len());
        self.verdicts.extend(later.verdicts.iter().map(|v| Judged {
            judge: judges[v.judge as usize],
            combo: combos[v.combo as usize],
            persona: strings[v.persona as usize],
            ..*v
        }));
        self.labels
            .extend(later.labels.into_iter().map(|(c, p, who, v)| {
                let who_id = self.strings.id(&who);
                (
                    combos[c as usize],
                    strings[p as usize],
                    self.strings.names[who_id as usize].clone(),
                    v,
                )
            }));
        self.last_combo = None;
    }

    /// Reads every verdict and label of `store`. Large stores are read on two
    /// connections at once (the first half of the verdict ids here, the
    /// second on a scoped thread), then joined in id order.
    pub fn read(store: &crate::store::Store) -> crate::store::Result<Builder> {
        Self::read_with_runs(store, &store.runs()?, PARALLEL_READ_MIN)
    }

    /// [`Builder::read`] with the runs already read and its own threshold
    /// for reading on two connections (tests split small stores).
    pub fn read_with_runs(
        store: &crate::store::Store,
        runs: &[Run],
        min_verdicts: i64,
    ) -> crate::store::Result<Builder> {
        let mut first = Builder::new(runs);
        let split = match store.verdict_id_range()? {
            Some((lo, hi)) if hi - lo >= min_verdicts && store.path().is_file() => {
                Some((lo, lo + (hi - lo) / 2, hi))
            }
            _ => None,
        };
        let Some((lo, mid, hi)) = split else {
            store.for_each_verdict_value(|v| first.add_verdict(v))?;
            store.for_each_label(|l| first.add_label(&l))?;
            return Ok(first);
        };
        let path = store.path().to_path_buf();
        let (read, second) = crate::par::join(
            || -> crate::store::Result<()> {
                store.for_each_verdict_value_in(lo, mid, |v| first.add_verdict(v))?;
                store.for_each_label(|l| first.add_label(&l))
            },
            || -> crate::store::Result<Builder> {
                let other = crate::store::Store::open(&path)?;
                let mut b = Builder::new(runs);
                other.for_each_verdict_value_in(mid + 1, hi, |v| b.add_verdict(v))?;
                Ok(b)
            },
        );
        read?;
        let second = second?;
        first.append(second);
        Ok(first)
    }

    pub fn add_label(&mut self, l: &Label) {
        let combo = self.combo(
            &l.key.item_id,
            &l.key.classification_id,
            &l.key.perspective_id,
        );
        let persona = self.strings.id(&l.persona_id);
        let who_id = self.strings.id(&l.who);
        let who = self.strings.names[who_id as usize].clone();
        self.labels.push((combo, persona, who, l.value));
    }

    /// Pairs for every comparison, and each judge's placed verdicts.
    pub fn finish_with_positions(self) -> (PairsByComparison, Vec<PositionSeries>) {
        let Builder {
            strings,
            combos,
            judges,
            verdicts,
            labels,
            ..
        } = self;
        let judge_names = judge_names(&judges, &strings.names);
        let done = Collected {
            names: &strings.names,
            combos: &combos,
            judges: &judges,
            judge_names: &judge_names,
            verdicts: &verdicts,
            labels: &labels,
        };
        // Run vs run and the position series need every verdict sorted, the
        // rest only the standing ones: the two run side by side.
        let (mut out, (retest, mut series)) = crate::par::join(
            || done.standing_comparisons(),
            || done.retest_and_positions(),
        );
        if !retest.is_empty() {
            out.insert(Comparison::RunVsRun, retest);
        }
        series.sort_by(|a, b| a.judge.cmp(&b.judge));
        (out, series)
    }
}

/// A judge is named by protocol, mode and model; where one of those ran with
/// several prompt sets, the prompt set is named too, so prompt versions are
/// never pooled (their delta is the point).
fn judge_names(judges: &[Judge], names: &[Arc<str>]) -> Vec<Arc<str>> {
    let mut prompts_per: HashMap<(Protocol, Option<Mode>, u32), u32> = HashMap::default();
    for j in judges {
        *prompts_per
            .entry((j.protocol, j.mode, j.model))
            .or_default() += 1;
    }
    judges
        .iter()
        .map(|j| {
            let base = crate::domain::judge_name(j.protocol, j.mode, &names[j.model as usize]);
            Arc::from(if prompts_per[&(j.protocol, j.mode, j.model)] > 1 {
                let hash = &names[j.prompt as usize];
                format!(
                    "{base} · prompts {}",
                    hash.chars().take(8).collect::<String>()
                )
            } else {
                base
            })
        })
        .collect()
}

/// What a finished [`Builder`] collected, borrowed, for pairing.
struct Collected<'a> {
    names: &'a [Arc<str>],
    combos: &'a [Arc<ComboKey>],
    judges: &'a [Judge],
    judge_names: &'a [Arc<str>],
    verdicts: &'a [Judged],
    labels: &'a [(u32, u32, Arc<str>, Value)],
}

impl Collected<'_> {
    fn name(&self, i: u32) -> Arc<str> {
        self.names[i as usize].clone()
    }

    fn ctx(&self, v: &Judged) -> PairContext {
        let j = &self.judges[v.judge as usize];
        PairContext {
            key: self.combos[v.combo as usize].clone(),
            protocol: j.protocol,
            persona: self.name(v.persona),
            mode: j.mode,
            model: self.name(j.model),
        }
    }

    fn pair(&self, v: &Judged, left: Arc<str>, right: Arc<str>, b: Value) -> Pair {
        Pair {
            ctx: self.ctx(v),
            left,
            right,
            a: v.value,
            b,
        }
    }

    /// Run vs run (test-retest): the same judge configuration run twice on
    /// the same combination and persona; and each judge's verdicts placed in
    /// multi-item requests (position bias).
    fn retest_and_positions(&self) -> (Vec<Pair>, Vec<PositionSeries>) {
        let mut all: Vec<&Judged> = self.verdicts.iter().collect();
        all.sort_by_key(|v| (v.combo, v.persona, v.judge, v.run_id));
        // One shared name per run (the report groups pairs by name identity).
        let mut run_names: HashMap<i64, Arc<str>> = HashMap::default();
        let mut run_name = |r: i64| -> Arc<str> {
            run_names
                .entry(r)
                .or_insert_with(|| Arc::from(format!("run {r}")))
                .clone()
        };
        let mut retest = Vec::new();
        let mut series: Vec<PositionSeries> = Vec::new();
        let mut series_of: HashMap<u32, usize> = HashMap::default();
        for same in
            all.chunk_by(|a, b| (a.combo, a.persona, a.judge) == (b.combo, b.persona, b.judge))
        {
            let placed: Vec<(f32, Value)> = same
                .iter()
                .filter_map(|v| v.rel.map(|r| (r, v.value)))
                .collect();
            if !placed.is_empty() {
                let judge = same[0].judge;
                let i = *series_of.entry(judge).or_insert_with(|| {
                    series.push(PositionSeries {
                        judge: self.judge_names[judge as usize].clone(),
                        ..PositionSeries::default()
                    });
                    series.len() - 1
                });
                let s = &mut series[i];
                s.placed.extend_from_slice(&placed);
                if placed.iter().any(|p| p.0 != placed[0].0) {
                    s.repeats.push(placed);
                }
            }
            for (i, a) in same.iter().enumerate() {
                for b in same[i + 1..].iter().filter(|b| b.run_id != a.run_id) {
                    retest.push(self.pair(a, run_name(a.run_id), run_name(b.run_id), b.value));
                }
            }
        }
        (retest, series)
    }

    /// Judge vs human, human vs human and judge vs judge, on the standing
    /// verdicts (the latest of each judge per combination and persona).
    fn standing_comparisons(&self) -> PairsByComparison {
        let mut latest: HashMap<(u32, u32, u32), usize> =
            HashMap::with_capacity_and_hasher(self.verdicts.len(), Default::default());
        for (i, v) in self.verdicts.iter().enumerate() {
            latest.insert((v.judge, v.combo, v.persona), i);
        }
        let mut standing: Vec<&Judged> = latest.values().map(|&i| &self.verdicts[i]).collect();
        drop(latest);
        standing.sort_by_key(|v| (v.combo, v.persona, v.judge, v.run_id));
        let mut labels_by: HashMap<(u32, u32), Vec<usize>> = HashMap::default();
        for (i, l) in self.labels.iter().enumerate() {
            labels_by.entry((l.0, l.1)).or_default().push(i);
        }
        let mut out = PairsByComparison::new();
        self.judge_vs_human(&standing, &labels_by, &mut out);
        self.human_vs_human(&labels_by, &mut out);
        self.judge_vs_judge(&standing, &mut out);
        out
    }

    /// Every standing verdict against every label on the same combination
    /// and persona; a person who gave a label on the verdict's own scale is
    /// compared on that one only.
    fn judge_vs_human(
        &self,
        standing: &[&Judged],
        labels_by: &HashMap<(u32, u32), Vec<usize>>,
        out: &mut PairsByComparison,
    ) {
        let labels = self.labels;
        for v in standing {
            let Some(ls) = labels_by.get(&(v.combo, v.persona)) else {
                continue;
            };
            for &li in ls {
                let (_, _, who, value) = &labels[li];
                let same_scale_exists = ls
                    .iter()
                    .any(|&o| labels[o].2 == *who && labels[o].3.scale() == v.value.scale());
                if same_scale_exists && value.scale() != v.value.scale() {
                    continue;
                }
                let judge = self.judge_names[v.judge as usize].clone();
                out.entry(Comparison::JudgeVsHuman)
                    .or_default()
                    .push(self.pair(v, judge, who.clone(), *value));
            }
        }
    }

    /// Two people, same combination, persona and scale.
    fn human_vs_human(
        &self,
        labels_by: &HashMap<(u32, u32), Vec<usize>>,
        out: &mut PairsByComparison,
    ) {
        let (labels, combos) = (self.labels, self.combos);
        let mut keys: Vec<&(u32, u32)> = labels_by.keys().collect();
        keys.sort_by(|a, b| {
            (&combos[a.0 as usize], &self.names[a.1 as usize])
                .cmp(&(&combos[b.0 as usize], &self.names[b.1 as usize]))
        });
        for k in keys {
            let ls = &labels_by[k];
            for (i, &ai) in ls.iter().enumerate() {
                for &bi in &ls[i + 1..] {
                    let (a, b) = (&labels[ai], &labels[bi]);
                    if a.2 == b.2 || a.3.scale() != b.3.scale() {
                        continue;
                    }
                    let (a, b) = if a.2 <= b.2 { (a, b) } else { (b, a) };
                    let key = combos[k.0 as usize].clone();
                    out.entry(Comparison::HumanVsHuman).or_default().push(Pair {
                        ctx: PairContext {
                            protocol: key.perspective_id.parse().unwrap_or(Protocol::Awag),
                            key,
                            persona: self.name(k.1),
                            mode: None,
                            model: Arc::from(""),
                        },
                        left: a.2.clone(),
                        right: b.2.clone(),
                        a: a.3,
                        b: b.3,
                    });
                }
            }
        }
    }

    /// Standing verdicts on the same combination that differ in exactly one
    /// respect (linear in verdicts: grouped by combination first).
    fn judge_vs_judge(&self, standing: &[&Judged], out: &mut PairsByComparison) {
        let judges = self.judges;
        // One shared name per prompt set (the report groups pairs by name identity).
        let prompt_names: Vec<Arc<str>> = judges
            .iter()
            .map(|j| Arc::from(format!("prompts {}", self.names[j.prompt as usize])))
            .collect();
        for same in standing.chunk_by(|a, b| a.combo == b.combo) {
            for (i, a) in same.iter().enumerate() {
                for b in &same[i + 1..] {
                    let (ja, jb) = (&judges[a.judge as usize], &judges[b.judge as usize]);
                    if ja.protocol != jb.protocol {
                        continue;
                    }
                    let which = match (
                        a.persona == b.persona,
                        ja.mode == jb.mode,
                        ja.model == jb.model,
                        ja.prompt == jb.prompt,
                    ) {
                        (true, false, true, _) => Comparison::ModeVsMode,
                        (false, true, true, true) => Comparison::PersonaVsPersona,
                        (true, true, false, true) => Comparison::ModelVsModel,
                        (true, true, true, false) => Comparison::PromptVsPrompt,
                        _ => continue,
                    };
                    let (a, b) = order(a, b, which, judges, self.names);
                    let side = |v: &Judged| match which {
                        Comparison::PersonaVsPersona => self.name(v.persona),
                        Comparison::PromptVsPrompt => prompt_names[v.judge as usize].clone(),
                        _ => self.judge_names[v.judge as usize].clone(),
                    };
                    out.entry(which)
                        .or_default()
                        .push(self.pair(a, side(a), side(b), b.value));
                }
            }
        }
    }
}

/// A stable order inside a pair (lower mode / name first) so labels read the same every time.
fn order<'a>(
    a: &'a Judged,
    b: &'a Judged,
    which: Comparison,
    judges: &[Judge],
    names: &[Arc<str>],
) -> (&'a Judged, &'a Judged) {
    let (ja, jb) = (&judges[a.judge as usize], &judges[b.judge as usize]);
    let n = |i: u32| &names[i as usize];
    let swap = match which {
        Comparison::ModeVsMode => ja.mode > jb.mode,
        Comparison::PersonaVsPersona => n(a.persona) > n(b.persona),
        Comparison::ModelVsModel => n(ja.model) > n(jb.model),
        Comparison::PromptVsPrompt => n(ja.prompt) > n(jb.prompt),
        _ => false,
    };
    if swap { (b, a) } else { (a, b) }
}
