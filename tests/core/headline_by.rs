//! `jury report --by classification` ranks each classification apart; the
//! headline of classification B must not rank its candidates in the order
//! of classification A's ranking (issue #30 §3).

use super::headline_world::{World, key};
use jury::report::GroupBy;
use jury::report::estimate::{self, Sampling};
use jury::report::headline;

const X: &str = "awag mode 3 · x-model";
const Y: &str = "awag mode 3 · y-model";

/// On `a` X is wrong on 1 in 10 and Y on 2; on `b` X on 5 in 10 and Y on
/// none: X leads `a`, Y leads `b` and all of it.
fn world() -> World {
    let mut w = World::default();
    for (class, x_wrong, y_wrong) in [("a", 1, 2), ("b", 5, 0)] {
        for i in 0..60 {
            let k = key(i, class, "p");
            let labelled = i < 40;
            if labelled {
                w.label("kenton", "alice", &k, true);
            }
            let people: &[(&str, bool)] = if labelled { &[("alice", true)] } else { &[] };
            w.verdict(X, "kenton", &k, i % 10 >= x_wrong, 0.9, people);
            w.verdict(Y, "kenton", &k, i % 10 >= y_wrong, 0.9, people);
        }
    }
    w
}

#[test]
fn by_classification_a_headline_is_not_ranked_in_another_classifications_order() {
    let w = world();
    let split = w.rankings(Some(GroupBy::Classification));
    let first: Vec<(&str, &str)> = split
        .iter()
        .map(|r| (r.scope.as_str(), r.configurations[0].judge.as_str()))
        .collect();
    assert_eq!(first, [("awag · a", X), ("awag · b", Y)]);
    let pooled = w.rankings(None);
    assert_eq!(pooled[0].configurations[0].judge, Y);
    let pairs = w.pairs();
    let readings = w.finish();
    let es = estimate::estimates(&readings, 0.05, None, &Sampling::default());
    let named = |choice: &headline::Choice| -> Vec<(String, String)> {
        headline::trusts(&[], &es, choice)
            .into_iter()
            .map(|(c, n)| (c.to_string(), n.judge.to_string()))
            .collect()
    };
    let by = headline::for_report(&pairs, Some(GroupBy::Classification), &split, 50, 1);
    let without = headline::for_report(&pairs, None, &pooled, 50, 1);
    // Classification b's headline names b's leader, not the one a's
    // ranking (first in the flattened order) puts first; and the same
    // configurations as without --by.
    let b = named(&by);
    assert_eq!(
        b.iter().find(|(c, _)| c == "b").map(|(_, j)| j.as_str()),
        Some(Y)
    );
    assert_eq!(b, named(&without));
}
