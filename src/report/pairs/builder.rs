//! Collecting verdicts and labels as small interned records, read from the
//! store on one or two connections, then handed to pairing.

use super::pairing::Collected;
use super::{Comparison, Judge, Judged, PairsByComparison, PositionSeries};
use crate::domain::{ComboKey, Label, Mode, Protocol, Run, Value};
use crate::store::VerdictValue;
use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

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
    /// Standing adjudications: (combination, persona, value).
    adjudications: Vec<(u32, u32, Value)>,
    /// Stored confidences refused on reading: outside [0, 1] or not finite.
    refused_confidences: usize,
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
            adjudications: Vec::new(),
            refused_confidences: 0,
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
        let conf = self.confidence(v.confidence);
        self.verdicts.push(Judged {
            judge,
            combo,
            persona,
            run_id: v.run_id,
            value: v.value,
            rel: v.position.and_then(|p| p.relative()).map(|r| r as f32),
            conf,
            // Verdicts stored before sources were kept had token probabilities.
            conf_source: v
                .confidence_source
                .unwrap_or(crate::domain::ConfidenceSource::Logprobs),
        });
    }

    /// A stored confidence as read: a probability in [0, 1]; anything else
    /// (a hand-edited store, an import) is refused and counted, never read
    /// as "no confidence" unnoticed.
    fn confidence(&mut self, c: Option<f64>) -> Option<f64> {
        let c = c?;
        if c.is_finite() && (0.0..=1.0).contains(&c) {
            Some(c)
        } else {
            self.refused_confidences += 1;
            None
        }
    }

    /// Stored confidences refused on reading (outside [0, 1] or not finite).
    pub fn refused_confidences(&self) -> usize {
        self.refused_confidences
    }

    /// Appends what `later` collected (read after everything in `self`, e.g.
    /// the second half of the verdict ids), re-keying its interned ids.
    pub fn append(&mut self, later: Builder) {
        self.refused_confidences += later.refused_confidences;
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
            first.add_adjudications(store)?;
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
        first.add_adjudications(store)?;
        let second = second?;
        first.append(second);
        Ok(first)
    }

    /// The store's standing adjudications (the reference where people disagreed).
    fn add_adjudications(&mut self, store: &crate::store::Store) -> crate::store::Result<()> {
        for a in store.adjudications()? {
            self.add_adjudication(&a);
        }
        Ok(())
    }

    pub fn add_adjudication(&mut self, a: &crate::domain::Adjudication) {
        let combo = self.combo(
            &a.key.item_id,
            &a.key.classification_id,
            &a.key.perspective_id,
        );
        let persona = self.strings.id(&a.persona_id);
        self.adjudications.push((combo, persona, a.value));
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

    /// Where each (combination, persona, scale) reference of the
    /// judge-vs-reference pairs comes from; `None` while the store holds no
    /// adjudication (no such pairs are made).
    pub fn reference_counts(&self) -> Option<crate::domain::ReferenceCounts> {
        if self.adjudications.is_empty() {
            return None;
        }
        let mut labels_by: HashMap<(u32, u32), Vec<usize>> = HashMap::default();
        for (i, l) in self.labels.iter().enumerate() {
            labels_by.entry((l.0, l.1)).or_default().push(i);
        }
        Some(super::reference::references_counted(&self.labels, &labels_by, &self.adjudications).1)
    }

    /// Every label collected, as [`Readings::labels`] holds them, without
    /// the verdicts (people's agreement with each other needs only these).
    pub fn label_readings(&self) -> Vec<LabelReading> {
        let names = &self.strings.names;
        self.labels
            .iter()
            .map(|(c, p, who, value)| {
                (
                    names[*p as usize].clone(),
                    self.combos[*c as usize].clone(),
                    who.clone(),
                    *value,
                )
            })
            .collect()
    }

    /// Pairs for every comparison, and each judge's placed verdicts.
    pub fn finish_with_positions(self) -> (PairsByComparison, Vec<PositionSeries>) {
        let Builder {
            strings,
            combos,
            judges,
            verdicts,
            labels,
            adjudications,
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
            adjudications: &adjudications,
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

/// What the store holds, reduced to readings for the estimates: every
/// standing verdict (the latest of each judge per combination and persona)
/// and every label.
pub struct Readings {
    pub verdicts: Vec<StandingVerdict>,
    pub labels: Vec<LabelReading>,
    /// Beside each standing verdict (same index): how sure the judge was,
    /// when that is known (see [`Confident`]); empty unless read with
    /// [`Builder::finish_readings_with_confidence`].
    pub confidences: Vec<Option<Confident>>,
}

/// A standing verdict's confidence and the value it is the confidence of:
/// the verdict's own value with its stored token-probability confidence;
/// or, where the same judge configuration judged the combination several
/// times (runs differing only in their shuffle seed, repeats) and no token
/// probabilities were kept, the majority value and its share (no majority,
/// a tie: none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Confident {
    pub value: Value,
    pub confidence: crate::domain::Confidence,
}

impl Readings {
    /// Where repeats of one judge configuration give a majority, that
    /// majority stands for the judge instead of its latest verdict (what
    /// `confidence = "repeats"` asks of the estimates).
    pub fn use_majority(&mut self) {
        use crate::domain::ConfidenceSource;
        for (v, c) in self.verdicts.iter_mut().zip(&self.confidences) {
            if let Some(c) = c
                && c.confidence.source == ConfidenceSource::Repeats
            {
                v.3 = c.value;
            }
        }
    }
}

/// `(judge name, persona, combination, value)`, the judge named as the
/// report names it.
pub type StandingVerdict = (Arc<str>, Arc<str>, Arc<ComboKey>, Value);

/// `(persona, combination, who, value)`.
pub type LabelReading = (Arc<str>, Arc<ComboKey>, Arc<str>, Value);

/// The majority of repeated verdicts and its share, by their right/wrong
/// reading: a Likert 4 and a 5 are the same answer ("the classifier was
/// right"), so 4, 5, 4 is a unanimous AGREE, not 2 in 3. Values with no
/// such reading (a Likert 3, a degree, a score) count by their own value.
/// The value returned is the most given among the majority's (the first of
/// equals); None on a tie.
pub(super) fn majority(values: &[Value]) -> Option<(Value, f64)> {
    #[derive(PartialEq)]
    enum Answer {
        Reading(crate::domain::Agreement),
        Exact(Value),
    }
    let answer = |v: &Value| v.as_agreement().map_or(Answer::Exact(*v), Answer::Reading);
    let mut counts: Vec<(Answer, usize)> = Vec::new();
    for v in values {
        let a = answer(v);
        match counts.iter_mut().find(|(x, _)| *x == a) {
            Some((_, n)) => *n += 1,
            None => counts.push((a, 1)),
        }
    }
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    let (top, n) = match counts.as_slice() {
        [(a, n)] => (a, *n),
        [(a, n), (_, m), ..] if n > m => (a, *n),
        _ => return None,
    };
    let mut exact: Vec<(Value, usize)> = Vec::new();
    for v in values.iter().filter(|v| answer(v) == *top) {
        match exact.iter_mut().find(|(x, _)| x == v) {
            Some((_, k)) => *k += 1,
            None => exact.push((*v, 1)),
        }
    }
    let value = exact
        .iter()
        .fold(None::<(Value, usize)>, |best, &(v, k)| match best {
            Some((_, b)) if b >= k => best,
            _ => Some((v, k)),
        })?;
    Some((value.0, n as f64 / values.len() as f64))
}

impl Builder {
    /// The standing verdicts and the labels (see [`Readings`]), without
    /// confidences.
    pub fn finish_readings(self) -> Readings {
        self.readings(false)
    }

    /// The readings of what was collected, leaving the builder to pair
    /// ([`Builder::finish_with_positions`]): a report that heads with the
    /// estimates reads the store once for both.
    pub fn readings_with_confidence(&self) -> Readings {
        self.readings(true)
    }

    /// As [`Builder::finish_readings`], with each standing verdict's
    /// confidence (stored, or from repeats).
    pub fn finish_readings_with_confidence(self) -> Readings {
        self.readings(true)
    }

    fn readings(&self, with_confidence: bool) -> Readings {
        use crate::domain::{Confidence, ConfidenceSource};
        let judge_names = judge_names(&self.judges, &self.strings.names);
        // Per judge, combination and persona: the latest verdict and how
        // many there are.
        let mut latest: HashMap<(u32, u32, u32), (usize, u32)> = HashMap::default();
        for (i, v) in self.verdicts.iter().enumerate() {
            let e = latest
                .entry((v.judge, v.combo, v.persona))
                .or_insert((i, 0));
            *e = (i, e.1 + 1);
        }
        // The values of combinations judged more than once (repeats).
        let mut repeated: HashMap<(u32, u32, u32), Vec<Value>> = HashMap::default();
        if with_confidence && latest.values().any(|(_, n)| *n > 1) {
            for v in &self.verdicts {
                let k = (v.judge, v.combo, v.persona);
                if latest.get(&k).is_some_and(|(_, n)| *n > 1) {
                    repeated.entry(k).or_default().push(v.value);
                }
            }
        }
        let mut standing: Vec<usize> = latest.into_values().map(|(i, _)| i).collect();
        standing.sort_unstable();
        let names = &self.strings.names;
        let mut confidences = Vec::with_capacity(if with_confidence { standing.len() } else { 0 });
        let verdicts = standing
            .into_iter()
            .map(|i| {
                let v = &self.verdicts[i];
                let confident = match v.conf {
                    Some(c) => Some(Confident {
                        value: v.value,
                        confidence: Confidence {
                            value: c,
                            source: v.conf_source,
                            expected_score: None,
                        },
                    }),
                    None => repeated
                        .get(&(v.judge, v.combo, v.persona))
                        .and_then(|vs| majority(vs))
                        .map(|(value, share)| Confident {
                            value,
                            confidence: Confidence {
                                value: share,
                                source: ConfidenceSource::Repeats,
                                expected_score: None,
                            },
                        }),
                };
                if with_confidence {
                    confidences.push(confident);
                }
                (
                    judge_names[v.judge as usize].clone(),
                    names[v.persona as usize].clone(),
                    self.combos[v.combo as usize].clone(),
                    v.value,
                )
            })
            .collect();
        let labels = self
            .labels
            .iter()
            .map(|(c, p, who, value)| {
                (
                    names[*p as usize].clone(),
                    self.combos[*c as usize].clone(),
                    who.clone(),
                    *value,
                )
            })
            .collect();
        Readings {
            verdicts,
            labels,
            confidences,
        }
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

#[cfg(test)]
mod majority_tests {
    use super::*;

    /// Before, 4, 5, 4 read as 4 with share 2/3: the exact values split a
    /// unanimous "the classifier was right".
    #[test]
    fn repeats_agree_by_reading_not_by_exact_value() {
        let l = Value::Likert;
        assert_eq!(majority(&[l(4), l(5), l(4)]), Some((l(4), 1.0)));
        let (v, share) = majority(&[l(5), l(1), l(4)]).unwrap();
        assert!(v.as_agreement() == Some(crate::domain::Agreement::Agree));
        assert!((share - 2.0 / 3.0).abs() < 1e-12);
        // An undecided answer is its own: 3, 3, 5 is a majority of 3.
        assert_eq!(majority(&[l(3), l(3), l(5)]).map(|m| m.0), Some(l(3)));
        assert_eq!(majority(&[l(2), l(4)]), None);
    }
}
