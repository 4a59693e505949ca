//! `jury trust`'s threshold procedure against the paper's, on the paper's
//! own judgements: Jung, Brahman and Choi, "Trust or Escalate" (ICLR 2025),
//! `result/*.calibration.jsonl` of their code, kept (not committed) in
//! `../shared/external/trust-or-escalate/`. The reference figures come from
//! `tests/reference/trust_or_escalate.py` (scipy), which runs the paper's
//! procedure on the same seeded split.

use jury::analytics::trust::trust_threshold;
use jury::rng::SplitMix64;
use std::path::PathBuf;

/// Seed of the split (the script's SEED) and the levels of the paper's
/// example (`CascadedClassifier(..., alpha=0.15, delta=0.1)`).
pub(crate) const SEED: u64 = 1018;
const ALPHA: f64 = 0.15;
const DELTA: f64 = 0.1;

/// Pasted from `tests/reference/trust_or_escalate.py`: per judge, the
/// threshold, the calibration pairs at or above it and their
/// disagreements, the upper bound, and on the held-out half the items at
/// or above it and how many of them agree with people. gpt-4-turbo keeps
/// 53.6 % of the held-out half at agreement 0.940, gpt-3.5-turbo 49.6 % at
/// 0.887, mistral-7b-instruct no threshold.
type Reference = Option<(f64, usize, usize, f64, usize, usize)>;
const PAPER: &[(&str, Reference)] = &[
    (
        "gpt-4-turbo",
        Some((0.9955991198239648, 132, 14, 0.14891373267249872, 134, 126)),
    ),
    (
        "gpt-3.5-turbo",
        Some((0.8221644328865774, 132, 14, 0.14891373267249872, 124, 110)),
    ),
    ("mistral-7b-instruct", None),
];

pub(crate) fn data_dir() -> Option<PathBuf> {
    let dir =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/external/trust-or-escalate");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("JURY_REQUIRE_EXTERNAL").is_none_or(|v| v != "1"),
        "JURY_REQUIRE_EXTERNAL=1 but {} is absent",
        dir.display()
    );
    eprintln!(
        "skipped: {} is absent (the paper's judgements are not in the repository)",
        dir.display()
    );
    None
}

/// Per item, the judge's confidence (its larger probability over their sum)
/// and whether that answer is the one people preferred.
fn judgements(path: &std::path::Path) -> Vec<(f64, bool)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .map(|(n, line)| {
            let r: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{} line {}: {e}", path.display(), n + 1));
            let probs: Vec<f64> = r["probs"]
                .as_array()
                .unwrap_or_else(|| panic!("{} line {}: probs", path.display(), n + 1))
                .iter()
                .map(|p| p.as_f64().expect("a probability"))
                .collect();
            let human = r["preferences"]["human"]
                .as_u64()
                .expect("preferences.human");
            // The first of equal probabilities, as Python's max over indices.
            let mut top = 0;
            for (i, p) in probs.iter().enumerate() {
                if *p > probs[top] {
                    top = i;
                }
            }
            let sum: f64 = probs.iter().sum();
            (probs[top] / sum, top as u64 + 1 == human)
        })
        .collect()
}

/// The seeded half: a Fisher–Yates shuffle of `0..n` by splitmix64, the
/// first half calibrating (the script's `split`).
pub(crate) fn split(n: usize, seed: u64) -> (Vec<usize>, Vec<usize>) {
    let mut idx: Vec<usize> = (0..n).collect();
    let mut rng = SplitMix64::new(seed);
    for i in (1..n).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        idx.swap(i, j);
    }
    let (mut cal, mut test) = (idx[..n / 2].to_vec(), idx[n / 2..].to_vec());
    cal.sort_unstable();
    test.sort_unstable();
    (cal, test)
}

#[test]
fn the_thresholds_are_the_papers_on_its_judgements() {
    let Some(dir) = data_dir() else { return };
    let (cal_idx, test_idx) = split(500, SEED);
    assert_eq!(
        &cal_idx[..8],
        &[1, 4, 5, 6, 7, 9, 12, 13],
        "the script's split"
    );
    for (judge, want) in PAPER {
        let all = judgements(&dir.join(format!("{judge}.calibration.jsonl")));
        assert_eq!(all.len(), 500, "{judge}");
        let cal: Vec<(f64, bool)> = cal_idx.iter().map(|&i| all[i]).collect();
        let t = trust_threshold(&cal, ALPHA, DELTA, 30);
        let Some((lambda, m, k, bound, kept, agree)) = *want else {
            assert_eq!(t.threshold, None, "{judge}: {t:?}");
            continue;
        };
        assert_eq!(t.threshold, Some(lambda), "{judge}: {t:?}");
        assert_eq!((t.n_trusted, t.disagreements), (m, k), "{judge}");
        let got = t.upper_bound.expect("a bound");
        assert!((got - bound).abs() < 1e-10, "{judge}: {got} vs {bound}");
        let held: Vec<bool> = test_idx
            .iter()
            .map(|&i| all[i])
            .filter(|p| p.0 >= lambda)
            .map(|p| p.1)
            .collect();
        let agreeing = held.iter().filter(|&&a| a).count();
        assert_eq!((held.len(), agreeing), (kept, agree), "{judge}");
        eprintln!(
            "{judge}: threshold {lambda:.4} keeps {:.1} % of the held-out half at agreement {:.3}",
            100.0 * kept as f64 / test_idx.len() as f64,
            agree as f64 / kept as f64
        );
    }
}

/// The distinct-confidence walk this procedure replaced found no threshold
/// for gpt-4-turbo on this split (the issue saw 11 % kept on another); the
/// grid keeps 53.6 %. Spelled out so a return to it fails here, not only by
/// a changed threshold.
#[test]
fn the_grid_keeps_about_half_of_gpt_4_turbos_verdicts() {
    let Some(dir) = data_dir() else { return };
    let (cal_idx, test_idx) = split(500, SEED);
    let all = judgements(&dir.join("gpt-4-turbo.calibration.jsonl"));
    let cal: Vec<(f64, bool)> = cal_idx.iter().map(|&i| all[i]).collect();
    let lambda = trust_threshold(&cal, ALPHA, DELTA, 30)
        .threshold
        .expect("a threshold");
    let kept = test_idx.iter().filter(|&&i| all[i].0 >= lambda).count();
    let share = kept as f64 / test_idx.len() as f64;
    assert!((0.5..0.6).contains(&share), "kept {share}");
}
