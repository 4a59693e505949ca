//! Which items a run covers: explicit ids, a seeded percentage subset, a limit.

// splitmix64 as a well-mixed, platform-independent hash, so a seeded subset
// is the same on every machine and every jury version.
use crate::rng::splitmix64;

/// FNV-1a over the id bytes.
fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// True when `id` falls in the `percent` subset chosen by `seed`. Membership is
/// decided per id, so adding items never reshuffles who was already in.
pub fn in_subset(id: &str, percent: f64, seed: u64) -> bool {
    let h = splitmix64(fnv1a(id) ^ splitmix64(seed));
    (h as f64 / u64::MAX as f64) * 100.0 < percent
}

pub use crate::domain::first_of_each;

/// Applies the item selection flags to the store's items (in store order).
pub fn select_items(
    all: &[String],
    explicit: Option<&[String]>,
    subset: Option<(f64, u64)>,
    limit: Option<usize>,
) -> Result<Vec<String>, String> {
    let mut ids: Vec<String> = match explicit {
        Some(wanted) => {
            let known: std::collections::HashSet<&String> = all.iter().collect();
            if let Some(missing) = wanted.iter().find(|w| !known.contains(w)) {
                return Err(format!("no item '{missing}' in the store"));
            }
            first_of_each(wanted.to_vec()).0
        }
        None => all.to_vec(),
    };
    if let Some((p, seed)) = subset {
        if !(0.0..=100.0).contains(&p) {
            return Err(format!(
                "--subset-percent must be between 0 and 100, got {p}"
            ));
        }
        ids.retain(|id| in_subset(id, p, seed));
    }
    if let Some(n) = limit {
        ids.truncate(n);
    }
    Ok(ids)
}

/// A seeded Fisher–Yates shuffle (splitmix64 as the generator), the same on
/// every machine: a repeat run with the same seed puts items at the same places.
pub fn shuffle<T>(v: &mut [T], seed: u64) {
    let mut state = splitmix64(seed);
    for i in (1..v.len()).rev() {
        state = splitmix64(state);
        let j = (state % (i as u64 + 1)) as usize;
        v.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subset_is_seeded_and_roughly_proportional() {
        let ids: Vec<String> = (0..10_000).map(|i| format!("item-{i}")).collect();
        let a = select_items(&ids, None, Some((10.0, 7)), None).unwrap();
        let b = select_items(&ids, None, Some((10.0, 7)), None).unwrap();
        let c = select_items(&ids, None, Some((10.0, 8)), None).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!((800..1200).contains(&a.len()), "{}", a.len());
    }

    #[test]
    fn shuffle_is_seeded_and_a_permutation() {
        let ids: Vec<u32> = (0..50).collect();
        let (mut a, mut b, mut c) = (ids.clone(), ids.clone(), ids.clone());
        shuffle(&mut a, 1);
        shuffle(&mut b, 1);
        shuffle(&mut c, 2);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_ne!(a, ids);
        a.sort();
        assert_eq!(a, ids);
    }

    /// The draws of every seeded choice, pinned: a seeded subset or order
    /// must pick the same items on every machine and every jury version.
    #[test]
    fn seeded_draws_are_pinned() {
        assert_eq!(
            [0, 1, 42].map(splitmix64),
            [
                0xe220_a839_7b1d_cdaf,
                0x910a_2dec_8902_5cc1,
                0xbdd7_3226_2feb_6e95
            ]
        );
        let picked: Vec<usize> = (0..20)
            .filter(|i| in_subset(&format!("item-{i}"), 30.0, 7))
            .collect();
        assert_eq!(picked, vec![0, 1, 2, 9, 13, 14, 15, 17]);
        let mut order: Vec<u32> = (0..10).collect();
        shuffle(&mut order, 1);
        assert_eq!(order, vec![2, 1, 9, 7, 3, 4, 5, 6, 0, 8]);
        let mut order: Vec<u32> = (0..10).collect();
        shuffle(&mut order, 2);
        assert_eq!(order, vec![4, 8, 9, 2, 3, 0, 1, 7, 5, 6]);
    }

    #[test]
    fn an_id_named_twice_is_kept_once_at_its_first_place() {
        let v = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert_eq!(
            first_of_each(v(&["b", "a", "b", "c", "a", "b"])),
            (v(&["b", "a", "c"]), v(&["b", "a"]))
        );
        let all = v(&["a", "b"]);
        assert_eq!(
            select_items(&all, Some(&v(&["b", "a", "b"])), None, None).unwrap(),
            v(&["b", "a"])
        );
    }

    #[test]
    fn explicit_ids_must_exist() {
        let ids = vec!["a".to_string(), "b".to_string()];
        assert!(select_items(&ids, Some(&["c".to_string()]), None, None).is_err());
        assert_eq!(
            select_items(&ids, Some(&["b".to_string()]), None, Some(5)).unwrap(),
            vec!["b"]
        );
    }
}
