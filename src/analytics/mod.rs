//! Agreement statistics (docs/design.md §7): pure functions over pairs of ratings.
//!
//! Input is a slice of `(first, second)` 0-based category indices plus the
//! category count `k` (build them from domain values with
//! [`pairs_from_values`], or across scales with [`agreement_pairs`]). Each
//! figure is a function `fn(&[(u8, u8)], usize) -> Option<f64>` — so any of
//! them can be handed to [`bootstrap_ci`] — and a method on
//! [`ConfusionMatrix`], which is how they are computed: one O(n) pass, then
//! O(k²). A figure is `None` when it is undefined (no pairs, no variation, an
//! out-of-range index); it is never NaN and nothing here panics. Each
//! module's docs say exactly when `None` is returned.
//!
//! [`Figures::compute`] bundles everything for one comparison group with
//! seeded, platform-independent bootstrap intervals.

mod ac1;
mod accuracy;
pub mod accuracy_ci;
pub mod active;
pub mod active_design;
pub mod active_plan;
mod agreement;
mod alpha;
mod base_rate;
pub mod bca;
pub mod betting;
mod binomial;
mod bootstrap;
pub mod cascade;
mod confusion;
mod evalgen;
mod figures;
mod fleiss;
mod interval;
mod kappa;
mod krippendorff;
mod ledger;
pub mod ppi;
pub mod stratified;
pub mod trust;
pub mod usage_text;
// The generators live in the crate's one home of randomness.
use crate::rng;
mod spearman;
mod units;
mod values;

pub use ac1::{DOMINANT_SHARE, MIN_OFF_DOMINANT, pabak_of, prevalence_note};
pub use accuracy::{AccuracyEstimate, accuracy_by_rater};
pub use agreement::{mean_abs_diff, percent_agreement, within_one};
pub use alpha::{
    AlphaMetric, krippendorff_alpha, krippendorff_alpha_interval, krippendorff_alpha_nominal,
    krippendorff_alpha_ordinal,
};
pub use base_rate::{BaseRate, Marginal, base_rate};
pub use binomial::{binomial, multinomial};
pub use bootstrap::{
    DEFAULT_RESAMPLES, DRAW_BUDGET, MULTINOMIAL_MIN_PAIRS, bootstrap_ci, percentile_interval,
    recommended_resamples,
};
pub use confusion::{ConfusionMatrix, MAX_K, PairsError};
pub use evalgen::{EvalGen, evalgen};
pub use figures::{Figure, Figures};
pub use fleiss::fleiss_kappa;
pub use interval::{
    CiMethod, MIN_PAIRS_FOR_BOOTSTRAP, NoInterval, Z95, bootstrap_rule, exact_share,
    exact_share_real, wilson, wilson_real, wilson_z,
};
pub use kappa::{
    KappaWeights, cohen_kappa, weighted_kappa, weighted_kappa_linear, weighted_kappa_quadratic,
};
pub use krippendorff::krippendorff_alpha_units;
pub use ledger::{Ledger, LedgerLine, config_name, ledger};
pub use rng::{SplitMix64, Xoshiro256pp};
pub use spearman::spearman;
pub use units::{SeveralRaters, UnitCounts};
pub use values::{
    AgreementPairs, agreement_index, agreement_pairs, agreement_reading, pairs_from_values,
};
