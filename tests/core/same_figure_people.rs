//! One interval per figure, but not a wrong one: the ranking takes a
//! comparison group's agreement and kappa only when they are the same
//! figure — with three people per combination the ranking's intervals
//! resample combinations (clustered), the group's each pair, and equal
//! counts do not make them one (issue #30 §3). Today's groups are one
//! person each, so the counts cannot match with three people per
//! combination; the test pools the people into one group (as a comparison
//! table of "people" would) to hold the guard when they can.

use super::headline_world::{World, key};
use jury::report::{compute_from, group_members, same_figure};

const X: &str = "awag mode 3 · x-model";
const Y: &str = "awag mode 3 · y-model";

/// Two judges on 40 combinations, each read by `people`; the people
/// disagree among themselves on some, so clustering matters.
fn world(people: &[&str]) -> World {
    let mut w = World::default();
    for i in 0..40 {
        let k = key(i, "c", "p");
        let truth = i % 10 < 7;
        let readings: Vec<(&str, bool)> = people
            .iter()
            .enumerate()
            .map(|(n, p)| (*p, truth ^ (n == 1 && i % 8 == 0)))
            .collect();
        for (p, r) in &readings {
            w.label("kenton", p, &k, *r);
        }
        w.verdict(X, "kenton", &k, truth ^ (i % 5 == 0), 0.9, &readings);
        w.verdict(Y, "kenton", &k, truth ^ (i % 4 == 0), 0.9, &readings);
    }
    w
}

type Rankings = Vec<jury::report::rank::Ranking>;

/// The rankings before and after they take the groups' figures, and
/// judge X's group agreement.
fn shared(people: &[&str]) -> (Rankings, Rankings, jury::analytics::Figure) {
    let w = world(people);
    let before = w.rankings(None);
    // The people pooled into one side: one group per judge, every unit.
    let mut pairs = w.pairs();
    for ps in pairs.values_mut() {
        for p in ps.iter_mut() {
            p.right = std::sync::Arc::from("people");
        }
    }
    let groups = compute_from(&pairs, None, Some(200), 1);
    let x = groups
        .iter()
        .find(|g| g.left == X)
        .map(|g| g.figures.percent_agreement)
        .expect("X's group");
    let mut after = before.clone();
    same_figure::share_group_figures(&mut after, &groups, &group_members(&pairs, None));
    (before, after, x)
}

fn x_agreement(r: &Rankings) -> &jury::analytics::Figure {
    &r[0]
        .configurations
        .iter()
        .find(|c| c.judge == X)
        .expect("X ranked")
        .agreement
}

#[test]
fn three_people_per_combination_keep_the_rankings_clustered_intervals() {
    let (before, after, group) = shared(&["alice", "bob", "carol"]);
    // Every unit is shared and the counts match a group's: only the three
    // people per combination tell the figures apart.
    let c = &before[0].configurations[0];
    assert_eq!((c.n_own, before[0].n_shared), (120, 120));
    assert_eq!(before, after);
    assert_ne!(x_agreement(&after), &group);
}

#[test]
fn one_person_per_combination_shows_the_groups_figure() {
    let (_, after, group) = shared(&["alice"]);
    assert_eq!(after[0].n_shared, 40);
    // The same figure as the group's: one interval in the report.
    assert_eq!(x_agreement(&after), &group);
}
