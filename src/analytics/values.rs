//! From domain [`Value`]s to the `(u8, u8)` category pairs the statistics use.

use crate::domain::{Agreement, Value};
use serde::Serialize;

/// Pairs of values on one scale → `(pairs, k, ordinal)`, with each value at
/// its 0-based [`Value::ordinal`] position, `k` the scale's category count
/// and `ordinal` from [`Scale::is_ordinal`](crate::domain::Scale::is_ordinal).
///
/// The scale is taken from the first value of the first pair. Pairs with a
/// value on another scale are left out (comparing across scales is done by
/// reading both sides as agreement, see [`agreement_pairs`]); callers who
/// must know compare `pairs.len()` with the input length. An empty input
/// gives `(vec![], 0, false)`, which every figure reports as n = 0.
pub fn pairs_from_values(values: &[(Value, Value)]) -> (Vec<(u8, u8)>, usize, bool) {
    let Some(&(first, _)) = values.first() else {
        return (Vec::new(), 0, false);
    };
    let scale = first.scale();
    let pairs = values
        .iter()
        .filter(|(a, b)| a.scale() == scale && b.scale() == scale)
        .map(|(a, b)| (a.ordinal(), b.ordinal()))
        .collect();
    (pairs, scale.values().len(), scale.is_ordinal())
}

/// Category index of an agreement reading: AGREE = 0, DISAGREE = 1 (the
/// same positions as [`Value::ordinal`] for the agreement scale).
pub fn agreement_index(a: Agreement) -> u8 {
    match a {
        Agreement::Agree => 0,
        Agreement::Disagree => 1,
    }
}

/// The right/wrong reading of a value as a number: AGREE, Likert ≥ 4 and
/// true are 1; DISAGREE, Likert ≤ 2 and false are 0; the undecided Likert 3
/// is 0.5 (half right: STATISTICS.md, "undecided answers are data").
/// `None` for a value with no such reading (a degree, a 0–9 score).
pub fn agreement_reading(v: Value) -> Option<f64> {
    match (v.as_agreement(), v) {
        (Some(Agreement::Agree), _) => Some(1.0),
        (Some(Agreement::Disagree), _) => Some(0.0),
        (None, Value::Likert(3)) => Some(0.5),
        _ => None,
    }
}

/// Pairs read across scales (docs/design.md §7: Likert ≥ 4 is AGREE, ≤ 2 DISAGREE,
/// 3 undecided).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgreementPairs {
    /// Decided pairs as `(first, second)` agreement indices; k = 2, nominal.
    pub pairs: Vec<(u8, u8)>,
    /// Pairs left out because at least one side had no agreement reading.
    pub undecided: usize,
}

/// Reads both sides with [`Value::as_agreement`] so values on different
/// scales can be compared; pairs with an undecided side are counted apart.
pub fn agreement_pairs(values: &[(Value, Value)]) -> AgreementPairs {
    let mut pairs = Vec::with_capacity(values.len());
    let mut undecided = 0;
    for (a, b) in values {
        match (a.as_agreement(), b.as_agreement()) {
            (Some(x), Some(y)) => pairs.push((agreement_index(x), agreement_index(y))),
            _ => undecided += 1,
        }
    }
    AgreementPairs { pairs, undecided }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Degree;

    #[test]
    fn likert_pairs() {
        let v = [
            (Value::Likert(1), Value::Likert(5)),
            (Value::Likert(3), Value::Likert(3)),
        ];
        assert_eq!(pairs_from_values(&v), (vec![(0, 4), (2, 2)], 5, true));
    }

    #[test]
    fn scales_and_mixing() {
        let v = [
            (
                Value::Agreement(Agreement::Disagree),
                Value::Agreement(Agreement::Agree),
            ),
            (Value::Agreement(Agreement::Agree), Value::Likert(4)),
        ];
        assert_eq!(pairs_from_values(&v), (vec![(1, 0)], 2, false));
        let d = [(Value::Degree(Degree::Fully), Value::Degree(Degree::No))];
        assert_eq!(pairs_from_values(&d), (vec![(2, 0)], 3, true));
        let s = [(Value::Score(9), Value::Score(0))];
        assert_eq!(pairs_from_values(&s), (vec![(9, 0)], 10, true));
        let b = [(Value::Bool(true), Value::Bool(false))];
        assert_eq!(pairs_from_values(&b), (vec![(0, 1)], 2, false));
        assert_eq!(pairs_from_values(&[]), (vec![], 0, false));
    }

    #[test]
    fn cross_scale() {
        let v = [
            (Value::Likert(5), Value::Agreement(Agreement::Agree)),
            (Value::Likert(3), Value::Agreement(Agreement::Agree)),
            (Value::Likert(2), Value::Bool(true)),
        ];
        let a = agreement_pairs(&v);
        assert_eq!(a.pairs, vec![(0, 0), (1, 0)]);
        assert_eq!(a.undecided, 1);
    }
}
