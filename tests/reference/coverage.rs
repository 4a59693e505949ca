//! Seeded coverage checks of the intervals jury prints as valid, on the
//! cells where a normal approximation fails (accuracy near 1, a judge that
//! leans or hedges, few labels) and on three people per combination. The
//! full grid, with more studies per cell, is `cargo bench --bench coverage`
//! (its table is in README's statistics section). Counts here are modest
//! (the dev profile builds jury at opt-level 0): a cell passes at ≥ 90 %
//! over 200 studies, which a true 95 % interval fails with chance < 0.5 %.

use super::sim::*;

fn share(hits: usize, of: usize) -> f64 {
    hits as f64 / of as f64
}

#[test]
fn accuracy_intervals_cover_near_one_with_a_leaning_or_hedging_judge() {
    let studies = 200;
    for (accuracy, judge, n) in [
        (0.97, JudgeKind::Leaning, 30),
        (0.97, JudgeKind::Leaning, 100),
        (0.9, JudgeKind::Leaning, 100),
        (0.7, JudgeKind::Hedging, 100),
    ] {
        let (mut labels, mut ppi) = (0, 0);
        for s in 0..studies {
            let o = estimate_study(accuracy, judge, n, 500, 1, 9_000 + s);
            labels += usize::from(o.labels_cover);
            ppi += usize::from(o.ppi_cover);
        }
        let cell = format!("accuracy {accuracy}, {} judge, n {n}", judge.name());
        assert!(
            share(labels, studies as usize) >= 0.90,
            "{cell}: labels alone {labels}/{studies}"
        );
        assert!(
            share(ppi, studies as usize) >= 0.90,
            "{cell}: PPI++ {ppi}/{studies}"
        );
    }
}

/// With three people per combination, resampling (combination × person)
/// units covered 76.5 % and called an equal judge "behind" in 37.7 % of
/// studies; by combination it holds.
#[test]
fn rankings_resample_combinations_with_three_people_each() {
    let studies = 200;
    let (mut covers, mut behind, mut agree) = (0, 0, 0);
    for s in 0..studies {
        let o = rank_study(0.7, 100, 3, 77_000 + s);
        covers += usize::from(o.delta_covers);
        behind += usize::from(o.behind);
        agree += usize::from(o.agreement_covers[0]) + usize::from(o.agreement_covers[1]);
    }
    assert!(
        share(covers, studies as usize) >= 0.90,
        "difference covered {covers}/{studies}"
    );
    assert!(
        share(behind, studies as usize) <= 0.08,
        "equal judge behind {behind}/{studies}"
    );
    assert!(
        share(agree, 2 * studies as usize) >= 0.90,
        "agreement covered {agree}/{}",
        2 * studies
    );
}
