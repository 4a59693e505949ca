//! One interval per figure in a report (issue #30 §3): a judge's agreement
//! and kappa against the one person who labelled, shown in the ranking and
//! in the comparison table, are one figure with one interval.

use crate::common;

use jury::report::Report;
use jury::report::pairs::Comparison;
use jury::store::Store;

#[test]
fn the_ranking_and_the_comparison_table_show_one_interval_for_one_kappa() {
    let (_dir, db) = common::judged_by_two(60);
    let s = Store::open(&db).expect("store");
    let report =
        Report::build(&s, None, None, jury::report::DEFAULT_SEED, &mut ()).expect("report");
    assert_eq!(report.rankings.len(), 1);
    let ranked = &report.rankings[0].configurations;
    assert_eq!(ranked.len(), 2);
    for c in ranked {
        let g = report
            .groups
            .iter()
            .find(|g| g.comparison == Comparison::JudgeVsHuman && g.left == c.judge)
            .expect("the judge's group");
        assert_eq!(g.figures.n, 60);
        assert!(c.kappa.ci95.is_some());
        assert_eq!(c.kappa, g.figures.cohen_kappa, "{}", c.judge);
        assert_eq!(c.agreement, g.figures.percent_agreement, "{}", c.judge);
    }
}
