//! `jury report`: agreement figures for every comparison the store supports,
//! grouped as asked, rendered as a table, JSON, CSV or Markdown. The same
//! figures feed the workbench's agreement view.

pub mod consistency;
pub mod csv;
pub mod html;
pub mod pairs;
pub mod position;
pub mod prompt_change;
pub mod prompt_delta;

use crate::analytics;
use crate::domain::{Agreement, Mode, Scale, Side, Value};
use crate::store::Store;
use pairs::{Comparison, Pair};
use serde_json::{Map, json};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a report's groups are split by (`jury report --by`), besides the
/// comparison and its two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    Classification,
    Persona,
    Mode,
    Model,
    Perspective,
}

/// How a report is written out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    Table,
    Json,
    Csv,
    Md,
    /// One self-contained page with inline SVG charts (see [`html`]).
    Html,
    /// The table with one row per group and every column (wider than a
    /// terminal); [`ReportFormat::Table`] fits 80–120 columns.
    TableWide,
}

/// One group of one comparison, with its figures.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupFigures {
    pub comparison: Comparison,
    /// What the group holds, e.g. "awag mode 2 · gpt-4o-mini vs alice" or "urgency".
    pub group: String,
    /// The two sides compared (judge configuration, person, run, persona...).
    pub left: String,
    pub right: String,
    /// The scale the figures were computed on (agreement when scales differed).
    pub scale: Scale,
    /// The two sides answered on different scales and were read as AGREE /
    /// DISAGREE (Likert ≥ 4 AGREE, ≤ 2 DISAGREE): said in the group's scale
    /// name and in JSON, so it never shares a name with a same-scale group.
    pub mapped: bool,
    /// Pairs left out because one side was undecided (Likert 3 against a binary scale).
    pub undecided: usize,
    pub figures: analytics::Figures,
    /// Binary reading with "the classifier was wrong" as the positive class
    /// (judge vs human only; `None` when nothing was decided on both sides).
    pub evalgen: Option<analytics::EvalGen>,
    /// The classifier's accuracy as each side sees it, `[left, right]`
    /// (judge vs human: the judge's estimate next to the humans').
    pub accuracy: Option<[analytics::AccuracyEstimate; 2]>,
}

impl GroupFigures {
    /// The scale as a reader sees it: a mapped group says so.
    pub fn scale_name(&self) -> String {
        if self.mapped {
            format!("{} (mapped)", self.scale.as_str())
        } else {
            self.scale.as_str().to_string()
        }
    }
}

/// Computes every comparison's figures from the store.
pub fn compute(
    store: &Store,
    by: Option<GroupBy>,
    resamples: Option<usize>,
    seed: u64,
) -> crate::store::Result<Vec<GroupFigures>> {
    Ok(Report::build(store, by, resamples, seed, &mut ())?.groups)
}

/// Told when each stage of [`Report::build`] ends.
pub trait Stage {
    fn done(&mut self, what: &str);
}

/// No one listening.
impl Stage for () {
    fn done(&mut self, _: &str) {}
}

/// One group: `--by` value, left side, right side, scale.
type GroupKey = (Arc<str>, Arc<str>, Arc<str>, &'static str);

/// A group key by the identity of its shared names (by, left, right) and scale.
type NameIds = (usize, usize, usize, &'static str);

/// One group's key and its pairs.
type Group<'a> = (GroupKey, Vec<&'a Pair>);

/// Resamples for a report whose groups below
/// [`analytics::MULTINOMIAL_MIN_PAIRS`] hold `small_group_pairs` pairs in
/// all, when the user chose none. Larger groups resample their confusion
/// matrix at a cost independent of n, so only the small ones draw pair by
/// pair: the full [`analytics::DEFAULT_RESAMPLES`] while those draws fit in
/// [`analytics::DRAW_BUDGET`], fewer above (many small groups, e.g. `--by
/// classification` over thousands of classifications), never under 50.
pub fn auto_resamples(small_group_pairs: usize) -> usize {
    if small_group_pairs == 0 {
        return analytics::DEFAULT_RESAMPLES;
    }
    (analytics::DRAW_BUDGET / small_group_pairs).clamp(50, analytics::DEFAULT_RESAMPLES)
}

/// Groups pairs and computes figures per group (pure; used by tests too).
pub fn compute_from(
    all: &BTreeMap<Comparison, Vec<Pair>>,
    by: Option<GroupBy>,
    resamples: Option<usize>,
    seed: u64,
) -> Vec<GroupFigures> {
    // Comparisons are grouped, then groups computed, each spread over the cores.
    let grouped: Vec<(Comparison, Vec<Group<'_>>)> = crate::par::map_weighted(
        all.iter().collect(),
        |(_, pairs)| pairs.len(),
        |(comparison, pairs)| (*comparison, group_pairs(pairs, by)),
    );
    let resamples = resamples.unwrap_or_else(|| {
        auto_resamples(
            grouped
                .iter()
                .flat_map(|(_, gs)| gs.iter().map(|(_, ps)| ps.len()))
                .filter(|&n| n < analytics::MULTINOMIAL_MIN_PAIRS)
                .sum(),
        )
    });
    let jobs: Vec<(Comparison, GroupKey, Vec<&Pair>)> = grouped
        .into_iter()
        .flat_map(|(c, gs)| gs.into_iter().map(move |(k, ps)| (c, k, ps)))
        .collect();
    crate::par::map_weighted(
        jobs,
        |(_, _, ps)| ps.len(),
        |(comparison, key, ps)| group_figures(comparison, key, &ps, resamples, seed),
    )
}

/// One comparison's pairs by group: one pair of sides (e.g. "awag mode 2 ·
/// model" vs "alice") on one scale — pairs on a shared scale keep it,
/// cross-scale pairs are read as agreement — optionally split further by
/// `--by`; sorted, so the report reads the same every time.
fn group_pairs(pairs: &[Pair], by: Option<GroupBy>) -> Vec<Group<'_>> {
    // Pairs share their side names (one Arc per judge, person, run...), so
    // they are grouped by the names' identity first — no string hashing per
    // pair — and groups whose names are equal are then merged by value.
    let ptr = |a: &Arc<str>| Arc::as_ptr(a) as *const u8 as usize;
    let empty: Arc<str> = Arc::from("");
    let mut by_names: rustc_hash::FxHashMap<&str, Arc<str>> = Default::default();
    let mut fast: rustc_hash::FxHashMap<NameIds, (GroupKey, Vec<usize>)> = Default::default();
    for (i, p) in pairs.iter().enumerate() {
        let by_value: Arc<str> = match by {
            None => empty.clone(),
            Some(GroupBy::Classification) => intern(&mut by_names, &p.ctx.key.classification_id),
            Some(GroupBy::Perspective) => intern(&mut by_names, &p.ctx.key.perspective_id),
            Some(GroupBy::Persona) => p.ctx.persona.clone(),
            Some(GroupBy::Mode) => match p.ctx.mode {
                Some(Mode::One) => intern(&mut by_names, "mode 1"),
                Some(Mode::Two) => intern(&mut by_names, "mode 2"),
                Some(Mode::Three) => intern(&mut by_names, "mode 3"),
                None => intern(&mut by_names, "-"),
            },
            Some(GroupBy::Model) if p.ctx.model.is_empty() => intern(&mut by_names, "-"),
            Some(GroupBy::Model) => p.ctx.model.clone(),
        };
        let scale = if p.a.scale() == p.b.scale() {
            p.a.scale().as_str()
        } else {
            "cross-scale"
        };
        fast.entry((ptr(&by_value), ptr(&p.left), ptr(&p.right), scale))
            .or_insert_with(|| {
                (
                    (by_value, p.left.clone(), p.right.clone(), scale),
                    Vec::new(),
                )
            })
            .1
            .push(i);
    }
    let mut groups: BTreeMap<GroupKey, Vec<usize>> = BTreeMap::new();
    for (key, idx) in fast.into_values() {
        match groups.entry(key) {
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(idx);
            }
            // Equal names held in different Arcs: merged, in pair order, so
            // the figures never depend on where the Arcs were allocated.
            std::collections::btree_map::Entry::Occupied(mut o) => {
                o.get_mut().extend(idx);
                o.get_mut().sort_unstable();
            }
        }
    }
    groups
        .into_iter()
        .map(|(k, idx)| (k, idx.into_iter().map(|i| &pairs[i]).collect()))
        .collect()
}

/// A shared `Arc` per distinct `--by` value.
fn intern<'a>(names: &mut rustc_hash::FxHashMap<&'a str, Arc<str>>, s: &'a str) -> Arc<str> {
    names.entry(s).or_insert_with(|| Arc::from(s)).clone()
}

/// The figures of one group.
fn group_figures(
    comparison: Comparison,
    (by_value, left, right, _): GroupKey,
    ps: &[&Pair],
    resamples: usize,
    seed: u64,
) -> GroupFigures {
    let sides = format!("{left} vs {right}");
    let group = if by_value.is_empty() {
        sides
    } else {
        format!("{by_value} · {sides}")
    };
    let (scale, values, undecided, mapped) = common_scale(ps);
    let (pairs, k, ordinal) = analytics::pairs_from_values(&values);
    let k = if values.is_empty() {
        scale.values().len()
    } else {
        k
    };
    let figures = analytics::Figures::compute(&pairs, k, ordinal, resamples, seed)
        .expect("indices come from the scale itself");
    let (evalgen, accuracy) = if comparison == Comparison::JudgeVsHuman {
        let readings: Vec<_> = ps
            .iter()
            .map(|p| (p.a.as_agreement(), p.b.as_agreement()))
            .collect();
        (
            Some(wrong_as_positive(&readings)),
            Some(analytics::accuracy_by_rater(&readings, resamples, seed)),
        )
    } else {
        (None, None)
    };
    GroupFigures {
        comparison,
        group,
        left: left.to_string(),
        right: right.to_string(),
        scale,
        mapped,
        undecided,
        figures,
        evalgen,
        accuracy,
    }
}

/// EvalGen counts with DISAGREE ("the classifier was wrong") as positive,
/// over the pairs both sides decided.
fn wrong_as_positive(readings: &[(Option<Agreement>, Option<Agreement>)]) -> analytics::EvalGen {
    let decided: Vec<(bool, bool)> = readings
        .iter()
        .filter_map(|r| match r {
            (Some(a), Some(b)) => Some((*a == Agreement::Disagree, *b == Agreement::Disagree)),
            _ => None,
        })
        .collect();
    analytics::evalgen(&decided)
}

/// The pairs on one scale: their own when both sides share it, else the
/// agreement reading, with undecided pairs counted and left out.
fn common_scale(ps: &[&Pair]) -> (Scale, Vec<(Value, Value)>, usize, bool) {
    let first = ps.first().map(|p| p.a.scale());
    let same = ps
        .iter()
        .all(|p| Some(p.a.scale()) == first && Some(p.b.scale()) == first);
    if let (true, Some(scale)) = (same, first) {
        return (scale, ps.iter().map(|p| (p.a, p.b)).collect(), 0, false);
    }
    let mut values = Vec::new();
    let mut undecided = 0;
    for p in ps {
        match (p.a.as_agreement(), p.b.as_agreement()) {
            (Some(a), Some(b)) => values.push((Value::Agreement(a), Value::Agreement(b))),
            _ => undecided += 1,
        }
    }
    (Scale::Agreement, values, undecided, true)
}

/// Everything `jury report` prints and the workbench's agreement view shows,
/// computed in one pass over the store.
pub struct Report {
    /// Kept so that a process about to exit can leave them to the OS.
    pub pairs: pairs::PairsByComparison,
    pub groups: Vec<GroupFigures>,
    pub flips: Vec<consistency::FlipRate>,
    pub deltas: Vec<prompt_delta::PromptDelta>,
    pub positions: Vec<position::PositionBias>,
    /// Each prompt version's change from the one before, paired.
    pub changes: Vec<prompt_change::PromptChange>,
    /// The side of the held-out split the figures cover; `None`: all pairs.
    pub side: Option<Side>,
}

/// Why a report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(
        "this workspace has no held-out split yet: `jury split --holdout 0.3 --seed 1` makes one (then `--split test` reports on the held-out pairs)"
    )]
    NoSplit,
    #[error(
        "prompt version {version} shows {count} {side} pair(s) as few-shot examples (e.g. {example}): figures on {side} would flatter it. \
         Build the few-shot set again from the current split (`jury fewshot --from-labels`) and run it"
    )]
    SeenExamples {
        version: String,
        side: &'static str,
        count: usize,
        example: String,
    },
}

impl Report {
    /// Reads the store once and computes every section. `stage` is told
    /// when each stage ends (the CLI times them under JURY_DEBUG).
    pub fn build(
        store: &Store,
        by: Option<GroupBy>,
        resamples: Option<usize>,
        seed: u64,
        stage: &mut dyn Stage,
    ) -> crate::store::Result<Report> {
        Report::compute(store, by, resamples, seed, None, stage)
    }

    /// [`Report::build`] on one side of the workspace's held-out split only
    /// (`jury report --split test`): every pair whose (item, classification)
    /// is on the other side is left out before anything is computed. The
    /// double-check flip counts and position bias carry no item ids and are
    /// left out on a split rather than shown for all items.
    pub fn build_on(
        store: &Store,
        by: Option<GroupBy>,
        resamples: Option<usize>,
        seed: u64,
        side: Side,
        stage: &mut dyn Stage,
    ) -> Result<Report, ReportError> {
        let split = store.split()?.ok_or(ReportError::NoSplit)?;
        // A prompt version that shows a held-out pair as an example has seen
        // the answer: its figures on `test` would flatter it. (On `train`
        // the examples are expected.)
        let examples = match side {
            Side::Test => store.prompt_examples()?,
            Side::Train => Default::default(),
        };
        for (hash, pairs) in examples {
            let seen: Vec<&(String, String)> = pairs
                .iter()
                .filter(|(item, cls)| split.side_of(item, cls) == side)
                .collect();
            if let Some((item, cls)) = seen.first() {
                return Err(ReportError::SeenExamples {
                    version: hash.chars().take(8).collect(),
                    side: side.as_str(),
                    count: seen.len(),
                    example: format!("{item}/{cls}"),
                });
            }
        }
        Ok(Report::compute(
            store,
            by,
            resamples,
            seed,
            Some((&split, side)),
            stage,
        )?)
    }

    fn compute(
        store: &Store,
        by: Option<GroupBy>,
        resamples: Option<usize>,
        seed: u64,
        on: Option<(&crate::store::Split, Side)>,
        stage: &mut dyn Stage,
    ) -> crate::store::Result<Report> {
        let runs = store.runs()?;
        let builder = pairs::Builder::read_with_runs(store, &runs, pairs::PARALLEL_READ_MIN)?;
        stage.done("read verdicts and labels");
        let (mut pairs, placed) = builder.finish_with_positions();
        if let Some((split, side)) = on {
            for ps in pairs.values_mut() {
                ps.retain(|p| {
                    split.side_of(&p.ctx.key.item_id, &p.ctx.key.classification_id) == side
                });
            }
            pairs.retain(|_, ps| !ps.is_empty());
        }
        stage.done("pair");
        let (flips, positions) = if on.is_some() {
            (consistency::retest_flip_rates(&pairs), Vec::new())
        } else {
            (
                consistency::flip_rates(&pairs, store)?,
                position::position_bias(&placed, resamples, seed),
            )
        };
        drop(placed);
        stage.done("self-consistency, position bias");
        let first_run_of = |hash_prefix: &str| {
            runs.iter()
                .find(|r| r.spec.prompt_hash.starts_with(hash_prefix))
                .map_or(i64::MAX, |r| r.id)
        };
        let deltas = prompt_delta::deltas(&pairs, &first_run_of);
        let changes = prompt_change::changes(
            &pairs,
            &first_run_of,
            resamples.unwrap_or(analytics::DEFAULT_RESAMPLES),
            seed,
        );
        let groups = compute_from(&pairs, by, resamples, seed);
        stage.done("figures");
        Ok(Report {
            pairs,
            groups,
            flips,
            deltas,
            positions,
            changes,
            side: on.map(|(_, side)| side),
        })
    }

    /// The sections below the comparison table, as table lines.
    pub fn notes(&self) -> Vec<String> {
        consistency::table(&self.flips)
            .into_iter()
            .chain(prompt_delta::table(&self.deltas))
            .chain(prompt_change::table(&self.changes))
            .chain(position::table(&self.positions))
            .collect()
    }
}

impl Report {
    /// Says which side of the split the figures cover (nothing for all pairs).
    fn split_line(&self) -> String {
        match self.side {
            Some(side) => format!(
                "on the {} side of the held-out split only (self-consistency counts retests only; no position bias)\n",
                side.as_str()
            ),
            None => String::new(),
        }
    }

    /// The whole report in `format`; the table carries the sections below it.
    pub fn render(&self, format: ReportFormat) -> serde_json::Result<String> {
        Ok(match format {
            ReportFormat::Json => {
                let mut v = to_json(&self.groups);
                v["self_consistency"] = json!(self.flips);
                v["prompt_versions"] = json!(self.deltas);
                v["prompt_version_changes"] = json!(self.changes);
                v["position_bias"] = json!(self.positions);
                v["split"] = json!(self.side.map(Side::as_str));
                serde_json::to_string_pretty(&v)?
            }
            ReportFormat::Csv => to_csv(&self.groups),
            ReportFormat::Html => html::to_html(self),
            ReportFormat::Md => format!("{}{}", self.split_line(), to_table(&self.groups, true)),
            ReportFormat::Table => {
                let mut t = self.split_line();
                t.push_str(&to_blocks(&self.groups));
                for l in self.notes() {
                    t.push('\n');
                    t.push_str(&l);
                }
                t
            }
            ReportFormat::TableWide => {
                let mut t = self.split_line();
                t.push_str(&to_table(&self.groups, false));
                for l in self.notes() {
                    t.push('\n');
                    t.push_str(&l);
                }
                t
            }
        })
    }
}

/// The JSON contract (DESIGN §5): per comparison, groups with n and figures.
pub fn to_json(groups: &[GroupFigures]) -> serde_json::Value {
    let mut root = Map::new();
    for c in Comparison::ALL {
        let list: Vec<serde_json::Value> = groups
            .iter()
            .filter(|g| g.comparison == c)
            .map(|g| {
                let mut v = serde_json::to_value(&g.figures).unwrap_or_else(|_| json!({}));
                if let Some(o) = v.as_object_mut() {
                    o.insert("group".into(), json!(g.group));
                    o.insert("scale".into(), json!(g.scale.as_str()));
                    o.insert("scale_mapped".into(), json!(g.mapped));
                    o.insert("undecided".into(), json!(g.undecided));
                    o.insert("left".into(), json!(g.left));
                    o.insert("right".into(), json!(g.right));
                    if let Some(e) = &g.evalgen {
                        o.insert("evalgen".into(), json!(e));
                    }
                    if let Some([l, r]) = &g.accuracy {
                        o.insert("classifier_accuracy".into(), json!({"left": l, "right": r}));
                    }
                }
                v
            })
            .collect();
        root.insert(c.key().into(), json!(list));
    }
    serde_json::Value::Object(root)
}

fn fmt(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "–".into())
}

fn fmt_ci(f: &analytics::Figure) -> String {
    value_with_ci(f.value, f.ci95)
}

/// "0.812 [0.74,0.88]", or the value alone (or "–") without an interval:
/// how the report and the agreement view write a figure.
pub fn value_with_ci(value: Option<f64>, ci95: Option<[f64; 2]>) -> String {
    match (value, ci95) {
        (Some(v), Some([lo, hi])) => format!("{v:.3} [{lo:.2},{hi:.2}]"),
        (v, _) => fmt(v),
    }
}

const HEADERS: [&str; 13] = [
    "comparison",
    "group",
    "scale",
    "n",
    "agree",
    "within-1",
    "kappa",
    "w-kappa(q)",
    "alpha",
    "spearman",
    "base rate L/R",
    "accuracy L/R",
    "coverage/FFR/align",
];

fn share(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2}")).unwrap_or_else(|| "–".into())
}

fn row(g: &GroupFigures) -> [String; 13] {
    let f = &g.figures;
    [
        g.comparison.key().to_string(),
        crate::sanitize::one_line(&g.group, 60),
        g.scale_name(),
        if g.undecided > 0 {
            format!("{} (+{} undecided)", f.n, g.undecided)
        } else {
            f.n.to_string()
        },
        fmt_ci(&f.percent_agreement),
        fmt_ci(&f.within_one),
        fmt_ci(&f.cohen_kappa),
        fmt_ci(&f.weighted_kappa_quadratic),
        fmt_ci(&f.krippendorff_alpha),
        fmt_ci(&f.spearman),
        format!(
            "{}/{}",
            share(f.base_rate.first.mode_share),
            share(f.base_rate.second.mode_share)
        ),
        match &g.accuracy {
            Some([l, r]) => format!("{}/{}", share(l.accuracy), share(r.accuracy)),
            None => "–".into(),
        },
        match &g.evalgen {
            Some(e) => format!(
                "{}/{}/{}",
                share(e.coverage),
                share(e.false_failure_rate),
                share(e.alignment)
            ),
            None => "–".into(),
        },
    ]
}

fn to_table(groups: &[GroupFigures], markdown: bool) -> String {
    if groups.is_empty() {
        return "nothing to compare yet: judge some items and label some (jury run, jury label or the workbench)".into();
    }
    let rows: Vec<[String; 13]> = groups.iter().map(row).collect();
    let mut widths = HEADERS.map(|h| h.chars().count());
    for r in &rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: &[String]| -> String {
        let padded: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = widths[i]))
            .collect();
        if markdown {
            format!("| {} |", padded.join(" | "))
        } else {
            padded.join("  ")
        }
    };
    let mut out = vec![line(&HEADERS.map(String::from))];
    if markdown {
        out.push(format!(
            "|{}|",
            widths
                .iter()
                .map(|w| "-".repeat(w + 2))
                .collect::<Vec<_>>()
                .join("|")
        ));
    }
    out.extend(rows.iter().map(|r| line(r)));
    if !markdown {
        out.push(String::new());
        out.push("agree is raw agreement and within-1 the share at most one step apart; kappa and alpha correct agreement for chance.\n\
base rate L/R is each side's share of its most common value (a rater that always gives it scores that raw agreement with zero kappa).\n\
accuracy L/R is the classifier's accuracy as each side reads it (AGREE share); coverage/FFR/align treat \"the classifier was wrong\" as positive, the human as reference.\n\
[a,b] is a seeded bootstrap 95 % interval; n counts pairs, undecided pairs (Likert 3 against AGREE/DISAGREE) are left out and counted.".into());
    }
    out.join("\n")
}

/// Columns a figures line may take before the next figure goes on a new line.
const NARROW: usize = 100;

/// The table for a terminal: each group a heading line (comparison, group,
/// scale, n) and its figures wrapped under it, so it reads at 80–120
/// columns whatever the names (`--wide` gives one row per group).
fn to_blocks(groups: &[GroupFigures]) -> String {
    if groups.is_empty() {
        return "nothing to compare yet: judge some items and label some (jury run, jury label or the workbench)".into();
    }
    let mut out = Vec::new();
    for g in groups {
        let f = &g.figures;
        let n = if g.undecided > 0 {
            format!("n {} (+{} undecided)", f.n, g.undecided)
        } else {
            format!("n {}", f.n)
        };
        let name = format!(
            "{} · {}",
            g.comparison.key(),
            crate::sanitize::one_line(&g.group, 110)
        );
        let rest = format!("{} · {n}", g.scale_name());
        if name.chars().count() + 3 + rest.chars().count() <= 120 {
            out.push(format!("{name} · {rest}"));
        } else {
            out.push(name);
            out.push(format!("   {rest}"));
        }
        let mut cells: Vec<String> = vec![format!("agree {}", fmt_ci(&f.percent_agreement))];
        if f.ordinal {
            cells.push(format!("within-1 {}", fmt_ci(&f.within_one)));
        }
        cells.push(format!("kappa {}", fmt_ci(&f.cohen_kappa)));
        if f.ordinal {
            cells.push(format!(
                "w-kappa(q) {}",
                fmt_ci(&f.weighted_kappa_quadratic)
            ));
        }
        cells.push(format!("alpha {}", fmt_ci(&f.krippendorff_alpha)));
        if f.ordinal {
            cells.push(format!("spearman {}", fmt_ci(&f.spearman)));
        }
        cells.push(format!(
            "base rate L/R {}/{}",
            share(f.base_rate.first.mode_share),
            share(f.base_rate.second.mode_share)
        ));
        if let Some([l, r]) = &g.accuracy {
            cells.push(format!(
                "accuracy L/R {}/{}",
                share(l.accuracy),
                share(r.accuracy)
            ));
        }
        if let Some(e) = &g.evalgen {
            cells.push(format!(
                "coverage/FFR/align {}/{}/{}",
                share(e.coverage),
                share(e.false_failure_rate),
                share(e.alignment)
            ));
        }
        let mut line = String::from("   ");
        for c in cells {
            if line.chars().count() + 2 + c.chars().count() > NARROW && !line.trim().is_empty() {
                out.push(std::mem::replace(&mut line, String::from("   ")));
            }
            line.push_str("  ");
            line.push_str(&c);
        }
        out.push(line);
    }
    out.push(String::new());
    out.push("agree is raw agreement and within-1 the share at most one step apart; kappa and alpha correct\n\
agreement for chance. base rate L/R is each side's share of its most common value (a rater that\n\
always gives it scores that raw agreement with zero kappa). accuracy L/R is the classifier's\n\
accuracy as each side reads it (AGREE share); coverage/FFR/align treat \"the classifier was wrong\"\n\
as positive, the human as reference. [a,b] is a seeded bootstrap 95 % interval; n counts pairs,\n\
undecided pairs (Likert 3 against AGREE/DISAGREE) are left out and counted. A scale marked\n\
(mapped) compares answers given on different scales, read as AGREE/DISAGREE. --wide: one row\n\
per group.".into());
    out.join("\n")
}

fn to_csv(groups: &[GroupFigures]) -> String {
    // Group and side names are persona, classification and model names
    // from the store: untrusted text, treated as `jury export` treats it.
    let esc = csv::text;
    let mut out = vec!["comparison,group,left,right,scale,n,undecided,percent_agreement,percent_agreement_lo,percent_agreement_hi,within_one,cohen_kappa,cohen_kappa_lo,cohen_kappa_hi,weighted_kappa_quadratic,krippendorff_alpha,spearman,mean_abs_diff,base_rate_left,base_rate_right,accuracy_left,accuracy_right,coverage,false_failure_rate,alignment,scale_mapped".to_string()];
    for g in groups {
        let f = &g.figures;
        let ci =
            |x: &analytics::Figure, i: usize| x.ci95.map(|c| c[i].to_string()).unwrap_or_default();
        let v = |x: Option<f64>| x.map(|v| v.to_string()).unwrap_or_default();
        let acc = |i: usize| g.accuracy.as_ref().and_then(|a| a[i].accuracy);
        let eg = |pick: fn(&analytics::EvalGen) -> Option<f64>| g.evalgen.as_ref().and_then(pick);
        let cells = [
            g.comparison.key().to_string(),
            esc(&g.group),
            esc(&g.left),
            esc(&g.right),
            g.scale.as_str().to_string(),
            f.n.to_string(),
            g.undecided.to_string(),
            v(f.percent_agreement.value),
            ci(&f.percent_agreement, 0),
            ci(&f.percent_agreement, 1),
            v(f.within_one.value),
            v(f.cohen_kappa.value),
            ci(&f.cohen_kappa, 0),
            ci(&f.cohen_kappa, 1),
            v(f.weighted_kappa_quadratic.value),
            v(f.krippendorff_alpha.value),
            v(f.spearman.value),
            v(f.mean_abs_diff.value),
            v(f.base_rate.first.mode_share),
            v(f.base_rate.second.mode_share),
            v(acc(0)),
            v(acc(1)),
            v(eg(|e| e.coverage)),
            v(eg(|e| e.false_failure_rate)),
            v(eg(|e| e.alignment)),
            g.mapped.to_string(),
        ];
        out.push(cells.join(","));
    }
    out.join("\n")
}
