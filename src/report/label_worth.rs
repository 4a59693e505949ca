//! What the next label is worth (issue #33): per classification and judge
//! configuration, the half-width of the estimate now and after one more
//! label, under the random sample order (uniform PPI++) and the active
//! order, from `jury plan`'s variance formulas
//! ([`super::plan::plan_rows`] at 0 and 1 more labels). The workbench shows
//! it in the sample orders, "±0.061 → ±0.058".

use super::estimate::{self, Sampling};
use super::pairs::Builder;
use super::plan::plan_rows;
use crate::store::Store;

/// One estimate's half-widths: (now, after one more label) per order.
#[derive(Debug, Clone, PartialEq)]
pub struct Worth {
    pub classification: String,
    pub perspective: String,
    pub persona: String,
    pub judge: String,
    pub uniform: (Option<f64>, Option<f64>),
    pub active: (Option<f64>, Option<f64>),
    /// Labels each order's line uses now.
    pub n_uniform: usize,
    pub n_active: usize,
}

/// The worth of the next label for every estimate with labels, at the
/// 95 % level the workbench and `jury plan` default to.
pub fn label_worth(store: &Store) -> crate::store::Result<Vec<Worth>> {
    let alpha = 0.05;
    let readings = Builder::read(store)?.readings_with_confidence();
    let sampling = Sampling::read(store, false, false)?;
    let es = estimate::estimates(&readings, alpha, None, &sampling);
    // The width asked for does not change the widths after N more.
    let now = plan_rows(&es, &readings, 0.05, alpha, 0, None);
    let next = plan_rows(&es, &readings, 0.05, alpha, 1, None);
    Ok(now
        .into_iter()
        .zip(next)
        .map(|(a, b)| Worth {
            classification: a.classification,
            perspective: a.perspective,
            persona: a.persona,
            judge: a.judge,
            uniform: (a.width_at.uniform, b.width_at.uniform),
            active: (a.width_at.active, b.width_at.active),
            n_uniform: a.labels_now.uniform,
            n_active: a.labels_now.active,
        })
        .collect())
}
