//! Who labels what (`jury assign`): each item goes to `overlap` distinct
//! people, the least loaded first, so the people's counts differ by at most
//! one; ties are broken by who waited longest, then by a seeded order of
//! the people, so the same seed, people and items give the same plan on
//! every machine. Pure: the store and the command line are elsewhere.

use crate::rng::splitmix64;
use std::collections::{HashMap, HashSet};

/// Why a plan cannot be made (said as the command line says it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssignError {
    #[error("--who: {0}")]
    BadName(String),
    #[error("--who names {0} twice")]
    Twice(String),
    #[error("--overlap must be at least 1")]
    NoOverlap,
    #[error(
        "--overlap {overlap} needs at least {overlap} people, and --who names {people}: each item goes to {overlap} different people"
    )]
    TooFewPeople { overlap: usize, people: usize },
    #[error("--items: no item '{0}' in the store (see `jury list items`)")]
    UnknownItem(String),
    #[error("--sample must be at least 1")]
    EmptySample,
}

/// The people from `--who` (trimmed), each a name jury accepts and named once.
pub fn people(names: &[String]) -> Result<Vec<String>, AssignError> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        let n = n.trim();
        if let Some(why) = crate::domain::refused_who(n) {
            return Err(AssignError::BadName(why));
        }
        if out.iter().any(|o| o == n) {
            return Err(AssignError::Twice(crate::sanitize::one_line(n, 60)));
        }
        out.push(n.to_string());
    }
    Ok(out)
}

/// FNV-1a over a string, mixed with the seed: a platform-independent rank.
fn rank(s: &str, seed: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    splitmix64(h ^ splitmix64(seed))
}

/// The items to assign: `--items` (each must exist; in the order given,
/// each once), else a seeded sample of `n` of `all` (the same `n` items
/// for the same seed, whatever order the store lists them in), else all.
pub fn choose_items(
    all: &[String],
    explicit: Option<&[String]>,
    sample: Option<(usize, u64)>,
) -> Result<Vec<String>, AssignError> {
    if let Some(wanted) = explicit {
        let known: HashSet<&String> = all.iter().collect();
        if let Some(missing) = wanted.iter().find(|w| !known.contains(w)) {
            return Err(AssignError::UnknownItem(crate::sanitize::one_line(
                missing, 120,
            )));
        }
        return Ok(crate::domain::first_of_each(wanted.to_vec()).0);
    }
    match sample {
        Some((0, _)) => Err(AssignError::EmptySample),
        Some((n, seed)) => {
            let mut ranked: Vec<(u64, &String)> = all.iter().map(|i| (rank(i, seed), i)).collect();
            ranked.sort();
            ranked.truncate(n);
            // Back in the store's order, which the workbench lists.
            let keep: HashSet<&String> = ranked.into_iter().map(|(_, i)| i).collect();
            Ok(all.iter().filter(|i| keep.contains(i)).cloned().collect())
        }
        None => Ok(all.to_vec()),
    }
}

/// What `plan` decided.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Plan {
    /// (item, person), in item order.
    pub pairs: Vec<(String, String)>,
    /// Items left as they were: someone holds them already.
    pub already: Vec<String>,
}

/// Gives each of `items` not in `assigned` to `overlap` of `people`.
/// `counts` is what each person holds already (the new work evens it out).
pub fn plan(
    people: &[String],
    items: &[String],
    overlap: usize,
    seed: u64,
    counts: &HashMap<String, usize>,
    assigned: &HashSet<String>,
) -> Result<Plan, AssignError> {
    if overlap == 0 {
        return Err(AssignError::NoOverlap);
    }
    if overlap > people.len() {
        return Err(AssignError::TooFewPeople {
            overlap,
            people: people.len(),
        });
    }
    // Per person: (load, step last given an item, seeded rank).
    let mut state: Vec<(usize, usize, u64)> = people
        .iter()
        .map(|p| (counts.get(p).copied().unwrap_or(0), 0, rank(p, seed)))
        .collect();
    let mut out = Plan::default();
    for (step, item) in items.iter().enumerate() {
        if assigned.contains(item) {
            out.already.push(item.clone());
            continue;
        }
        let mut order: Vec<usize> = (0..people.len()).collect();
        order.sort_by_key(|&p| state[p]);
        for &p in &order[..overlap] {
            state[p].0 += 1;
            state[p].1 = step + 1;
            out.pairs.push((item.clone(), people[p].clone()));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    fn loads(p: &Plan) -> HashMap<String, usize> {
        let mut m = HashMap::new();
        for (_, w) in &p.pairs {
            *m.entry(w.clone()).or_default() += 1;
        }
        m
    }

    #[test]
    fn each_item_goes_to_overlap_distinct_people_and_the_loads_stay_within_one() {
        let people = names(&["alice", "bob", "carol"]);
        for n in [1, 2, 5, 7, 10] {
            for overlap in 1..=3 {
                let items: Vec<String> = (0..n).map(|i| format!("k-{i}")).collect();
                let p = plan(
                    &people,
                    &items,
                    overlap,
                    7,
                    &HashMap::new(),
                    &HashSet::new(),
                )
                .unwrap();
                assert_eq!(p.pairs.len(), n * overlap);
                for it in &items {
                    let who: HashSet<&String> = p
                        .pairs
                        .iter()
                        .filter(|(i, _)| i == it)
                        .map(|(_, w)| w)
                        .collect();
                    assert_eq!(who.len(), overlap, "{it}");
                }
                let l = loads(&p);
                let (lo, hi) = people.iter().fold((usize::MAX, 0), |(lo, hi), w| {
                    let c = l.get(w).copied().unwrap_or(0);
                    (lo.min(c), hi.max(c))
                });
                assert!(hi - lo <= 1, "n {n} overlap {overlap}: {l:?}");
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_plan_and_another_seed_may_not() {
        let people = names(&["alice", "bob", "carol", "dan"]);
        let items: Vec<String> = (0..9).map(|i| format!("k-{i}")).collect();
        let none = HashMap::new();
        let a = plan(&people, &items, 2, 1, &none, &HashSet::new()).unwrap();
        let b = plan(&people, &items, 2, 1, &none, &HashSet::new()).unwrap();
        assert_eq!(a, b);
        let differs =
            (2..20).any(|s| plan(&people, &items, 2, s, &none, &HashSet::new()).unwrap() != a);
        assert!(differs);
    }

    #[test]
    fn items_held_already_are_left_and_the_new_work_evens_the_loads() {
        let people = names(&["alice", "bob"]);
        let items = names(&["a", "b", "c"]);
        let counts = HashMap::from([("alice".to_string(), 2)]);
        let held = HashSet::from(["a".to_string()]);
        let p = plan(&people, &items, 1, 3, &counts, &held).unwrap();
        assert_eq!(p.already, names(&["a"]));
        // Bob held nothing: both new items go to him.
        assert_eq!(
            p.pairs,
            vec![("b".into(), "bob".into()), ("c".into(), "bob".into())]
        );
    }

    #[test]
    fn bad_people_overlap_and_items_are_refused_with_what_to_do() {
        let e = plan(
            &names(&["alice"]),
            &names(&["a"]),
            2,
            1,
            &HashMap::new(),
            &HashSet::new(),
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("--overlap 2 needs at least 2 people"),
            "{e}"
        );
        assert_eq!(
            plan(&names(&["a"]), &[], 0, 1, &HashMap::new(), &HashSet::new()),
            Err(AssignError::NoOverlap)
        );
        for bad in [&["alice", " "][..], &["a:b"], &[""]] {
            assert!(
                matches!(people(&names(bad)), Err(AssignError::BadName(_))),
                "{bad:?}"
            );
        }
        assert_eq!(
            people(&names(&["alice", " alice"])),
            Err(AssignError::Twice("alice".into()))
        );
        let all = names(&["a", "b"]);
        let e = choose_items(&all, Some(&names(&["a", "zz"])), None).unwrap_err();
        assert_eq!(e, AssignError::UnknownItem("zz".into()));
    }

    #[test]
    fn a_sample_is_seeded_and_kept_in_store_order() {
        let all: Vec<String> = (0..50).map(|i| format!("k-{i:02}")).collect();
        let a = choose_items(&all, None, Some((10, 4))).unwrap();
        assert_eq!(a.len(), 10);
        assert_eq!(a, choose_items(&all, None, Some((10, 4))).unwrap());
        let mut sorted = a.clone();
        sorted.sort();
        assert_eq!(a, sorted);
        assert_ne!(a, choose_items(&all, None, Some((10, 5))).unwrap());
        // The same items whatever order the store lists them in.
        let mut rev = all.clone();
        rev.reverse();
        let mut b = choose_items(&rev, None, Some((10, 4))).unwrap();
        b.reverse();
        assert_eq!(a, b);
    }
}
