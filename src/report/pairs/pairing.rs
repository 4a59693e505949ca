//! Pairing the collected verdicts and labels: test-retest and position
//! series over every verdict, the other comparisons over the standing ones.

use super::{Comparison, Judge, Judged, Pair, PairContext, PairsByComparison, PositionSeries};
use crate::domain::{ComboKey, Protocol, Value};
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

/// What a finished [`Builder`] collected, borrowed, for pairing.
pub(super) struct Collected<'a> {
    pub(super) names: &'a [Arc<str>],
    pub(super) combos: &'a [Arc<ComboKey>],
    pub(super) judges: &'a [Judge],
    pub(super) judge_names: &'a [Arc<str>],
    pub(super) verdicts: &'a [Judged],
    pub(super) labels: &'a [(u32, u32, Arc<str>, Value)],
    pub(super) adjudications: &'a [(u32, u32, Value)],
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
            run: Some(v.run_id),
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
    pub(super) fn retest_and_positions(&self) -> (Vec<Pair>, Vec<PositionSeries>) {
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
    pub(super) fn standing_comparisons(&self) -> PairsByComparison {
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
        if !self.adjudications.is_empty() {
            self.judge_vs_reference(&standing, &labels_by, &mut out);
        }
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

    /// Every standing verdict against its combination's reference on the
    /// verdict's scale where there is one (else on another scale, read as
    /// AGREE/DISAGREE): see [`super::reference::references`].
    fn judge_vs_reference(
        &self,
        standing: &[&Judged],
        labels_by: &HashMap<(u32, u32), Vec<usize>>,
        out: &mut PairsByComparison,
    ) {
        let refs = super::reference::references(self.labels, labels_by, self.adjudications);
        let right: Arc<str> = Arc::from(super::REFERENCE);
        for v in standing {
            let Some(rs) = refs.get(&(v.combo, v.persona)) else {
                continue;
            };
            let pick = rs
                .iter()
                .find(|r| r.0.scale() == v.value.scale())
                .or_else(|| rs.first());
            if let Some(&(value, _)) = pick {
                let judge = self.judge_names[v.judge as usize].clone();
                out.entry(Comparison::JudgeVsReference)
                    .or_default()
                    .push(self.pair(v, judge, right.clone(), value));
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
                            run: None,
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
