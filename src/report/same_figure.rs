//! One interval per figure in a report. A judge configuration's agreement
//! and kappa against people appear twice when the ranking's units are the
//! very pairs of a group of the comparison table (one person, every unit
//! shared): computed twice, the two bootstraps drew the pairs in different
//! orders and printed two intervals for one figure (0.70 [0.51, 0.85]
//! beside 0.705 [0.52, 0.86]). The ranking takes the group's figure, so the
//! report shows one. Only then: with several people per combination the
//! ranking's intervals resample the combination (clustered) and the
//! group's each pair, so equal counts are not the same figure; each
//! combination must appear once.

use super::GroupFigures;
use super::pairs::{Comparison, Pair};
use super::rank::Ranking;
use crate::domain::Scale;

/// Gives each ranked configuration whose units are exactly one group's
/// pairs that group's agreement and kappa (`members[i]` made `groups[i]`).
pub fn share_group_figures(
    rankings: &mut [Ranking],
    groups: &[GroupFigures],
    members: &[Vec<&Pair>],
) {
    for r in rankings.iter_mut() {
        let n_shared = r.n_shared;
        for c in r.configurations.iter_mut() {
            // Every unit of its own is shared: its own and its shared
            // figures are about the same units.
            if c.n_own != n_shared || n_shared == 0 {
                continue;
            }
            let same = groups.iter().zip(members).find(|(g, ps)| {
                g.comparison == Comparison::JudgeVsHuman
                    && g.scale == Scale::Agreement
                    && g.undecided == 0
                    && g.left == c.judge
                    && g.figures.n == n_shared
                    && ps.len() == n_shared
                    && ps.iter().all(|p| persona_of(&c.persona, &p.ctx.persona))
                    && once_each(ps)
            });
            if let Some((g, _)) = same {
                c.agreement = g.figures.percent_agreement;
                c.agreement_own = g.figures.percent_agreement;
                c.kappa = g.figures.cohen_kappa;
            }
        }
    }
}

/// Whether each combination (persona, item, classification, perspective)
/// appears in one pair only: one person per combination, so resampling
/// pairs is resampling combinations.
fn once_each(ps: &[&Pair]) -> bool {
    let mut seen = std::collections::HashSet::with_capacity(ps.len());
    ps.iter()
        .all(|p| seen.insert((&*p.ctx.persona, &*p.ctx.key)))
}

/// Whether a pair's persona is the configuration's (one persona, or one of
/// those of a configuration run under each item's owner).
fn persona_of(config: &str, persona: &str) -> bool {
    config == persona
        || config
            .strip_prefix("one persona per item (")
            .and_then(|s| s.strip_suffix(')'))
            .is_some_and(|names| names.split(", ").any(|n| n == persona) || names.contains(" more"))
}
