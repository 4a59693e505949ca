//! `jury report`: agreement figures for every comparison the store supports,
//! grouped as asked, rendered as a table, JSON, CSV or Markdown. The same
//! figures feed the workbench's agreement view.

pub mod active_order;
pub mod active_walk;
pub mod cascade;
pub mod cascade_queue;
pub mod cascade_run;
pub mod consistency;
pub mod csv;
pub mod disagreements;
pub mod escalation;
pub mod estimate;
mod groups;
pub mod headline;
pub mod html;
pub mod label_worth;
pub mod page;
pub mod paired;
pub mod pairs;
pub mod people;
pub mod plan;
pub mod position;
pub mod prompt_change;
pub mod prompt_names;
pub mod prompt_versions;
pub mod rank;
mod render;
pub mod same_figure;
pub mod trust;

use crate::analytics;
use crate::domain::{Scale, Side};
use crate::store::Store;
pub use groups::{auto_resamples, cell_of, compute_from, group_members};
use pairs::Comparison;
pub use render::{figure_text, to_json, value_with_ci};

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

/// One pair of a group, placed in its confusion matrix: which combination,
/// and the judge configuration it was judged under (so a drill-down opens
/// the item as the pair was made).
#[derive(Debug, Clone, PartialEq)]
pub struct CellPair {
    /// `(row, column)` in the group's matrix; `None` for a pair left out of
    /// it as undecided (Likert 3 against AGREE/DISAGREE), which the group
    /// still counts (its `undecided`).
    pub cell: Option<(usize, usize)>,
    pub key: std::sync::Arc<crate::domain::ComboKey>,
    pub persona: std::sync::Arc<str>,
    pub mode: Option<crate::domain::Mode>,
    pub protocol: crate::domain::Protocol,
    /// The run of the pair's judge verdict (`None` for two people).
    pub run: Option<i64>,
}

/// One group's pairs as confusion-matrix cells.
pub type GroupCells = Vec<CellPair>;

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
    /// Where pairs were undecided: agreement over every pair, an undecided
    /// answer read as 0.5 (half agreement with a decided one), so a judge
    /// that hedges on the hard cases is not measured on the easy ones alone.
    pub agreement_undecided_half: Option<crate::analytics::Figure>,
    pub figures: analytics::Figures,
    /// Binary reading with "the classifier was wrong" as the positive class
    /// (judge vs human only; `None` when nothing was decided on both sides).
    pub evalgen: Option<analytics::EvalGen>,
    /// The classifier's accuracy as each side sees it, `[left, right]`
    /// (judge vs human: the judge's estimate next to the humans').
    pub accuracy: Option<[analytics::AccuracyEstimate; 2]>,
    /// Judge vs human only: how well people agree with each other where
    /// this judge was measured (see [`Ceiling`]).
    pub ceiling: Option<Ceiling>,
    /// Judge vs human only: per tag, how many of the group's disagreeing
    /// pairs (judge and person in different cells) carry it on the
    /// person's label — why the judge was wrong, as people said. Sorted by
    /// tag; empty when no such label is tagged.
    pub disagreement_tags: Vec<(String, usize)>,
}

/// The human ceiling of a judge-vs-human group, defined once: every pair of
/// two different people who labelled the same combination under the same
/// persona, pooled over the combinations the group covers, on the group's
/// scale (read as AGREE/DISAGREE where the group is). A judge cannot be
/// shown to agree with people better than they agree with each other.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Ceiling {
    /// Pairs of people pooled.
    pub n: usize,
    /// Distinct people among them.
    pub people: usize,
    pub percent_agreement: analytics::Figure,
    pub cohen_kappa: analytics::Figure,
    /// Combinations (and personas) two people or more labelled.
    pub units: usize,
    /// **The ceiling's figure**: Krippendorff's α over every person on
    /// those units at once (missing labels allowed; ordinal on ordinal
    /// scales, nominal on AGREE/DISAGREE or a mapped group), comparable with
    /// the judge's own α against people.
    pub krippendorff_alpha: analytics::Figure,
    /// Fleiss' κ (unweighted, generalised to missing labels) on the same units.
    pub fleiss_kappa: analytics::Figure,
}

impl Ceiling {
    /// "α 0.610 [0.41,0.78] on 40 unit(s) of 3 people · pairs agree 0.780
    /// [0.60,0.90] · kappa 0.52 [0.3,0.7] on 80": the ceiling (Krippendorff's
    /// α over all the people) and the pooled pairs; or that no two people
    /// labelled these combinations.
    pub fn describe(&self) -> String {
        if self.n == 0 {
            return "no two people labelled these combinations".into();
        }
        // α first: it is the ceiling; the pooled pairs follow.
        format!(
            "α {} on {} unit(s) of {} people · pairs agree {} · kappa {} on {}",
            render::figure_text(&self.krippendorff_alpha),
            self.units,
            self.people,
            render::figure_text(&self.percent_agreement),
            render::figure_text(&self.cohen_kappa),
            self.n,
        )
    }
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

/// Fills each judge-vs-human group's [`GroupFigures::disagreement_tags`]:
/// the tags of the person's label on every pair the two sides disagree on.
fn count_disagreement_tags(
    store: &Store,
    pairs: &pairs::PairsByComparison,
    by: Option<GroupBy>,
    groups: &mut [GroupFigures],
) -> crate::store::Result<()> {
    type Place = (crate::domain::ComboKey, String, String, Scale);
    let mut tagged: rustc_hash::FxHashMap<Place, Vec<String>> = Default::default();
    store.for_each_tagged_label(|l| {
        if !l.tags.is_empty() {
            let scale = l.value.scale();
            tagged.insert((l.key, l.persona_id, l.who, scale), l.tags);
        }
    })?;
    if tagged.is_empty() {
        return Ok(());
    }
    for (ps, g) in group_members(pairs, by).into_iter().zip(groups.iter_mut()) {
        if g.comparison != Comparison::JudgeVsHuman {
            continue;
        }
        let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
        for p in ps {
            if cell_of(p, g.mapped).is_none_or(|(r, c)| r == c) {
                continue;
            }
            let place = (
                (*p.ctx.key).clone(),
                p.ctx.persona.to_string(),
                p.right.to_string(),
                p.b.scale(),
            );
            for t in tagged.get(&place).into_iter().flatten() {
                *counts.entry(t.clone()).or_default() += 1;
            }
        }
        g.disagreement_tags = counts.into_iter().collect();
    }
    Ok(())
}

impl GroupFigures {
    /// "persona-misread 3 · ignored-context 1": the tags on the group's
    /// disagreements (empty when none).
    pub fn tags_text(&self) -> String {
        self.disagreement_tags
            .iter()
            .map(|(t, n)| format!("{} {n}", crate::sanitize::one_line(t, 40)))
            .collect::<Vec<_>>()
            .join(" · ")
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

/// The bootstrap seed `jury report` uses unless told otherwise, and the
/// workbench always: one seed, the same intervals in every view.
pub const DEFAULT_SEED: u64 = 42;

/// Item ids a report is limited to.
pub type ItemSet = rustc_hash::FxHashSet<String>;

/// What a report covers: one side of the held-out split or all pairs, and
/// every item or only these (the workbench's listed items).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scope {
    pub side: Option<Side>,
    pub items: Option<std::sync::Arc<ItemSet>>,
    /// Also the classifier's accuracy and the trust thresholds per
    /// classification ([`Report::estimates`], [`Report::trust`]), from the
    /// same read of the store: the views that head with them ask for it.
    pub estimates: bool,
    /// The estimates and trust on every item even when `items` narrows
    /// the figures: the listed items were chosen by the judge's verdicts
    /// (judge≠human, a trusted judge's "needs a person", a `judge:`
    /// search), and accuracy or trust on a population the judge chose is
    /// biased. The headlines say so.
    pub heads_on_all: bool,
}

impl Scope {
    /// One side of the split (or all pairs), every item.
    pub fn on(side: Option<Side>) -> Scope {
        Scope {
            side,
            items: None,
            estimates: false,
            heads_on_all: false,
        }
    }
}

/// The headlines' first line when they are on every item while the
/// figures are on the listed ones ([`Scope::heads_on_all`]).
fn heads_note(scope: &Scope) -> Option<String> {
    let n = scope.items.as_ref()?.len();
    scope.heads_on_all.then(|| {
        format!(
            "accuracy and trust on every item, not the {n} listed: the list is made of the judge's verdicts, which would choose the population"
        )
    })
}

/// Told when each stage of [`Report::build`] ends.
pub trait Stage {
    fn done(&mut self, what: &str);
}

/// No one listening.
impl Stage for () {
    fn done(&mut self, _: &str) {}
}

/// Everything `jury report` prints and the workbench's agreement view shows,
/// computed in one pass over the store.
pub struct Report {
    /// Kept so that a process about to exit can leave them to the OS.
    pub pairs: pairs::PairsByComparison,
    pub groups: Vec<GroupFigures>,
    pub flips: Vec<consistency::FlipRate>,
    pub deltas: Vec<prompt_versions::PromptDelta>,
    pub positions: Vec<position::PositionBias>,
    /// Each prompt version's change from the one before, paired.
    pub changes: Vec<prompt_change::PromptChange>,
    /// Which judge configuration agrees best with people, per protocol.
    pub rankings: Vec<rank::Ranking>,
    /// The classifier's accuracy per classification (`estimate::headlines`),
    /// when the scope asked for it ([`Scope::estimates`]).
    pub estimates: Vec<String>,
    /// Per classification, the headline configuration's errors against
    /// people and the rate corrected for them (`estimate::render::error_lines`).
    pub estimate_details: Vec<String>,
    /// Configurations no ranking lists because nothing they judged is
    /// labelled (`headline::unranked`), with the estimates.
    pub unranked: Vec<String>,
    /// Per classification, the confidence threshold above which verdicts
    /// can stand without a person (`trust::headlines`, α = δ = 0.1), with
    /// the estimates.
    pub trust: Vec<String>,
    /// The side of the held-out split the figures cover; `None`: all pairs.
    pub side: Option<Side>,
    /// How many items the figures were limited to (the workbench's listed
    /// items); `None`: every item.
    pub items: Option<usize>,
    /// How the groups were split (`--by`).
    pub by: Option<GroupBy>,
    /// Where the judge-vs-reference pairs' references came from (adjudicated,
    /// people's majority, one person; ties left out); `None` while the store
    /// holds no adjudication.
    pub reference: Option<crate::domain::ReferenceCounts>,
    /// People's agreement with each other per classification (all people,
    /// missing labels allowed; [`people`]).
    pub people: Vec<people::PeopleAgreement>,
    /// The α below which the report warns that people disagree (config
    /// `min_human_agreement`; the caller sets it, default
    /// [`people::DEFAULT_MIN_HUMAN_AGREEMENT`]).
    pub min_human_agreement: f64,
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
        "the stored split was made by (item, classification) pair: {count} item(s) have pairs on both sides (e.g. {example}), \
         so an item's text can be a few-shot example while another of its pairs is scored as held-out. \
         `jury split --replace --holdout {holdout} --seed {seed}` remakes it by item (then build few-shot sets again)"
    )]
    PairLevelSplit {
        count: usize,
        example: String,
        holdout: f64,
        seed: u64,
    },
    #[error(
        "prompt version {version} shows {count} {side} item(s) as few-shot examples (e.g. {example}): figures on {side} would flatter it. \
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
        Report::compute(store, by, resamples, seed, None, &Scope::default(), stage)
    }

    /// [`Report::build`] on one side of the workspace's held-out split only
    /// (`jury report --split test`): every pair whose item is on the other
    /// side is left out before anything is computed (the split is by item;
    /// a stored pair-level split is refused). The
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
        let scope = Scope::on(Some(side));
        Report::build_in(store, by, resamples, seed, &scope, stage)
    }

    /// The one entry every view uses (`jury report`, the workbench's
    /// agreement view and its drill-down): the figures on `scope`, with the
    /// same seed and resamples giving the same numbers everywhere.
    pub fn build_in(
        store: &Store,
        by: Option<GroupBy>,
        resamples: Option<usize>,
        seed: u64,
        scope: &Scope,
        stage: &mut dyn Stage,
    ) -> Result<Report, ReportError> {
        let Some(side) = scope.side else {
            return Ok(Report::compute(
                store, by, resamples, seed, None, scope, stage,
            )?);
        };
        let split = store.split()?.ok_or(ReportError::NoSplit)?;
        if let Some(first) = split.mixed_items().first() {
            return Err(ReportError::PairLevelSplit {
                count: split.mixed_items().len(),
                example: first.clone(),
                holdout: split.rule.holdout,
                seed: split.rule.seed,
            });
        }
        // A prompt version that shows a held-out item as an example (any of
        // its classifications: the text and the reasoning are the item's)
        // has seen the answer: its figures on `test` would flatter it. (On
        // `train` the examples are expected.)
        let examples = match side {
            Side::Test => store.prompt_examples()?,
            Side::Train => Default::default(),
        };
        for (hash, pairs) in examples {
            let seen: std::collections::BTreeSet<&str> = pairs
                .iter()
                .filter(|(item, _)| split.item_side(item) == side)
                .map(|(item, _)| item.as_str())
                .collect();
            if let Some(item) = seen.first() {
                return Err(ReportError::SeenExamples {
                    version: hash.chars().take(8).collect(),
                    side: side.as_str(),
                    count: seen.len(),
                    example: item.to_string(),
                });
            }
        }
        Ok(Report::compute(
            store,
            by,
            resamples,
            seed,
            Some((&split, side)),
            scope,
            stage,
        )?)
    }

    fn compute(
        store: &Store,
        by: Option<GroupBy>,
        resamples: Option<usize>,
        seed: u64,
        on: Option<(&crate::store::Split, Side)>,
        scope: &Scope,
        stage: &mut dyn Stage,
    ) -> crate::store::Result<Report> {
        let items = scope.items.as_deref();
        let runs = store.runs()?;
        let builder = pairs::Builder::read_with_runs(store, &runs, pairs::PARALLEL_READ_MIN)?;
        stage.done("read verdicts and labels");
        // The estimates and trust thresholds from the same read (a view
        // heading with them would otherwise read the whole store a second
        // time); their lines are written once the ranking says which
        // configuration they name.
        let heads = if scope.estimates {
            let mut readings = builder.readings_with_confidence();
            // On a list the judge chose, the headlines stay on every item.
            let head_items = if scope.heads_on_all { None } else { items };
            estimate::restrict(&mut readings, on, head_items);
            let sampling = estimate::Sampling::read(store, false, false)?;
            let es = estimate::estimates(&readings, 0.05, None, &sampling);
            let pooled = estimate::pooled(&readings, 0.05, None, &sampling);
            // Which verdicts can stand without a person, at α = δ = 0.1.
            let ts = trust::thresholds(
                &readings,
                trust::VIEW_ALPHA,
                trust::VIEW_DELTA,
                trust::VIEW_MIN_CALIBRATION,
                None,
                &sampling,
            );
            Some((readings, es, pooled, ts))
        } else {
            None
        };
        let reference = builder.reference_counts();
        // People's own labels, on the same items as the pairs below.
        let mut labels = builder.label_readings();
        labels.retain(|(_, key, _, _)| {
            on.is_none_or(|(split, side)| split.item_side(&key.item_id) == side)
                && items.is_none_or(|items| items.contains(&key.item_id))
        });
        let people = people::people_agreement(
            &labels,
            resamples.unwrap_or(analytics::DEFAULT_RESAMPLES),
            seed,
        );
        drop(labels);
        let (mut pairs, placed) = builder.finish_with_positions();
        if let Some((split, side)) = on {
            for ps in pairs.values_mut() {
                ps.retain(|p| split.item_side(&p.ctx.key.item_id) == side);
            }
            pairs.retain(|_, ps| !ps.is_empty());
        }
        if let Some(items) = items {
            for ps in pairs.values_mut() {
                ps.retain(|p| items.contains(&p.ctx.key.item_id));
            }
            pairs.retain(|_, ps| !ps.is_empty());
        }
        stage.done("pair");
        // The double-check counts and position bias carry no item ids: on
        // a part of the items they are left out rather than shown for all.
        let (flips, positions) = if on.is_some() || items.is_some() {
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
        let paired_resamples = resamples.unwrap_or(analytics::DEFAULT_RESAMPLES);
        let deltas = prompt_versions::deltas(&pairs, &first_run_of, paired_resamples, seed);
        stage.done("prompt versions");
        let changes = prompt_change::changes(&pairs, &first_run_of, paired_resamples, seed);
        stage.done("prompt version changes");
        let rankings = rank::rankings(&pairs, by, paired_resamples, seed);
        stage.done("ranking");
        let choice = headline::for_report(&pairs, by, &rankings, paired_resamples, seed);
        let (estimates, estimate_details, trust, unranked) = match heads {
            Some((readings, es, pooled, ts)) => (
                heads_note(scope)
                    .into_iter()
                    .chain(estimate::headlines(&es, &pooled, &choice))
                    .collect(),
                estimate::render::error_lines(&es, &choice),
                trust::headlines(&ts, &es, &choice),
                headline::unranked(&readings, &rankings),
            ),
            None => Default::default(),
        };
        let mut groups = compute_from(&pairs, by, resamples, seed);
        count_disagreement_tags(store, &pairs, by, &mut groups)?;
        // One interval per figure: the ranking shows a group's figure when
        // both are about the same pairs.
        let mut rankings = rankings;
        same_figure::share_group_figures(&mut rankings, &groups, &group_members(&pairs, by));
        stage.done("figures");
        let mut report = Report {
            pairs,
            groups,
            flips,
            deltas,
            positions,
            changes,
            rankings,
            estimates,
            estimate_details,
            trust,
            unranked,
            side: on.map(|(_, side)| side),
            items: items.map(|i| i.len()),
            by,
            reference,
            people,
            min_human_agreement: people::DEFAULT_MIN_HUMAN_AGREEMENT,
        };
        // Prompt versions by name beside their hashes (`prompts-v2 (34eb1475)`).
        prompt_names::PromptNames::new(&runs).name_report(&mut report);
        Ok(report)
    }

    /// Each group's pairs as confusion-matrix cells (`groups[i]` ↔ `[i]`),
    /// undecided pairs with no cell: which combinations make each cell, and
    /// every pair the group counts.
    pub fn cells(&self) -> Vec<GroupCells> {
        group_members(&self.pairs, self.by)
            .into_iter()
            .zip(&self.groups)
            .map(|(ps, g)| {
                ps.into_iter()
                    .map(|p| CellPair {
                        cell: cell_of(p, g.mapped),
                        key: p.ctx.key.clone(),
                        persona: p.ctx.persona.clone(),
                        mode: p.ctx.mode,
                        protocol: p.ctx.protocol,
                        run: p.ctx.run,
                    })
                    .collect()
            })
            .collect()
    }

    /// Where people agree with each other less than
    /// [`Report::min_human_agreement`]: one line per classification.
    pub fn low_human_agreement(&self) -> Vec<String> {
        people::low_agreement(&self.people, self.min_human_agreement)
    }

    /// The sections below the comparison table, as table lines.
    pub fn notes(&self) -> Vec<String> {
        consistency::table(&self.flips)
            .into_iter()
            .chain(prompt_versions::table(&self.deltas))
            .chain(prompt_change::table(&self.changes))
            .chain(position::table(&self.positions))
            // Last: the workbench's agreement view shows the others first.
            .chain(people::table(&self.people))
            .collect()
    }
}
