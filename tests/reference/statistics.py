#!/usr/bin/env python3
"""Reference values for tests/reference/statistics.rs.

Computes every agreement figure for fixed datasets with independent
implementations (scikit-learn, scipy, the `krippendorff` package, numpy) and
prints Rust constants to paste into the test file.

    python3 -m venv /tmp/refvenv
    /tmp/refvenv/bin/pip install scikit-learn krippendorff scipy numpy
    /tmp/refvenv/bin/python tests/reference/statistics.py

Category indices are 0-based (Likert 1-5 -> 0..4). sklearn gets
labels=range(k) so kappa weights use positions on the full scale, and
krippendorff gets value_domain=range(k) for the same reason.

The bootstrap section re-implements jury's PRNG (xoshiro256++ seeded by
splitmix64, Lemire bounded draws, one stream per resample) to check that the
Rust intervals are reproducible from the published algorithm alone.
"""

import math

import krippendorff
import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score, confusion_matrix, precision_score, recall_score

# ---------------------------------------------------------------- datasets
# (name, k, first rater, second rater)
DATASETS = [
    # Likert 1-5 judge vs human, 30 items (values shifted to 0..4).
    (
        "LIKERT30",
        5,
        [4, 3, 2, 4, 1, 0, 3, 3, 2, 4, 1, 2, 3, 4, 0, 2, 3, 1, 4, 3, 2, 2, 3, 4, 1, 0, 3, 4, 2, 3],
        [4, 2, 2, 3, 1, 1, 3, 4, 2, 4, 0, 2, 2, 4, 0, 3, 3, 2, 4, 3, 1, 2, 4, 3, 1, 0, 2, 4, 3, 3],
    ),
    # Binary AGREE(0)/DISAGREE(1), 24 items.
    (
        "BINARY24",
        2,
        [0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0],
        [0, 1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 1, 0],
    ),
    # Degree no/partially/fully with heavy ties, 20 items.
    (
        "TIES20",
        3,
        [2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 0, 2, 2, 1, 2, 2, 2, 0],
        [2, 2, 1, 2, 2, 2, 1, 1, 2, 1, 2, 2, 0, 2, 1, 1, 2, 2, 2, 1],
    ),
    # 0-9 scores using few, far-apart categories (unused categories matter
    # for weighted kappa and the ordinal alpha), 16 items.
    (
        "SPARSE09",
        10,
        [0, 3, 9, 9, 3, 0, 9, 3, 3, 9, 0, 9, 3, 9, 9, 0],
        [0, 3, 9, 3, 3, 3, 9, 9, 3, 9, 0, 9, 0, 9, 3, 0],
    ),
    # Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability",
    # A: binary data, two observers, no missing data. Published alpha = 0.095.
    (
        "KRIPP2011_A",
        2,
        [0, 1, 0, 0, 0, 0, 0, 0, 1, 0],
        [1, 1, 1, 0, 0, 1, 0, 0, 0, 0],
    ),
    # Same paper, B: nominal data, two observers, no missing data
    # (values a..e -> 0..4). Published alpha = 0.692.
    (
        "KRIPP2011_B",
        5,
        [0, 0, 1, 1, 3, 2, 2, 2, 4, 3, 3, 0],
        [1, 0, 1, 1, 1, 2, 2, 2, 4, 3, 3, 3],
    ),
    # Wikipedia's Cohen's kappa example: 50 proposals, yes/yes 20, yes/no 5,
    # no/yes 10, no/no 15. Published p_o = 0.7, p_e = 0.5, kappa = 0.4.
    (
        "WIKI_KAPPA",
        2,
        [0] * 20 + [0] * 5 + [1] * 10 + [1] * 15,
        [0] * 20 + [1] * 5 + [0] * 10 + [1] * 15,
    ),
]

PUBLISHED = {
    ("KRIPP2011_A", "alpha_nominal"): 0.095,
    ("KRIPP2011_B", "alpha_nominal"): 0.692,
    ("WIKI_KAPPA", "cohen_kappa"): 0.4,
    ("WIKI_KAPPA", "percent_agreement"): 0.7,
}


def opt(x):
    return "None" if x is None or (isinstance(x, float) and math.isnan(x)) else f"Some({x!r})"


def figures(k, a, b):
    a, b = np.array(a), np.array(b)
    labels = list(range(k))
    diff = np.abs(a - b)
    data = [a.tolist(), b.tolist()]
    dom = labels
    out = {
        "percent_agreement": float(np.mean(diff == 0)),
        "within_one": float(np.mean(diff <= 1)),
        "mean_abs_diff": float(np.mean(diff)),
        "cohen_kappa": float(cohen_kappa_score(a, b, labels=labels)),
        "kappa_linear": float(cohen_kappa_score(a, b, labels=labels, weights="linear")),
        "kappa_quadratic": float(cohen_kappa_score(a, b, labels=labels, weights="quadratic")),
        "alpha_nominal": float(krippendorff.alpha(data, level_of_measurement="nominal", value_domain=dom)),
        "alpha_ordinal": float(krippendorff.alpha(data, level_of_measurement="ordinal", value_domain=dom)),
        "alpha_interval": float(krippendorff.alpha(data, level_of_measurement="interval", value_domain=dom)),
        "spearman": float(spearmanr(a, b).statistic),
    }
    cm = confusion_matrix(a, b, labels=labels)
    return out, cm


# ------------------------------------------------------------ jury's PRNG
M64 = (1 << 64) - 1


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


class Xoshiro:
    def __init__(self, seed):
        s, out = seed, []
        for _ in range(4):
            s = (s + 0x9E3779B97F4A7C15) & M64
            out.append(mix64(s))
        self.s = out if any(out) else [1, 0, 0, 0]

    @classmethod
    def for_stream(cls, seed, index):
        return cls(mix64(seed ^ mix64((index + 0xD1B54A32D192ED03) & M64)))

    def next(self):
        s = self.s
        rotl = lambda x, r: ((x << r) | (x >> (64 - r))) & M64
        result = (rotl((s[0] + s[3]) & M64, 23) + s[0]) & M64
        t = (s[1] << 17) & M64
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = rotl(s[3], 45)
        return result

    def below(self, bound):
        m = self.next() * bound
        low = m & M64
        if low < bound:
            threshold = ((1 << 64) - bound) % bound
            while low < threshold:
                m = self.next() * bound
                low = m & M64
        return m >> 64


def bootstrap(k, a, b, stat, resamples, seed):
    n = len(a)
    vals = []
    for r in range(resamples):
        rng = Xoshiro.for_stream(seed, r)
        idx = [rng.below(n) for _ in range(n)]
        v = stat(k, [a[i] for i in idx], [b[i] for i in idx])
        if v is not None and not math.isnan(v):
            vals.append(v)
    if not vals:
        return None
    lo, hi = np.percentile(vals, [2.5, 97.5])
    return (float(lo), float(hi))


def stat_percent(k, a, b):
    return float(np.mean(np.array(a) == np.array(b)))


def stat_kappa_quadratic(k, a, b):
    if len(set(a) | set(b)) < 2:
        return None
    return float(cohen_kappa_score(a, b, labels=list(range(k)), weights="quadratic"))


def main():
    print("// ---- generated by tests/reference/statistics.py ----")
    for name, k, a, b in DATASETS:
        assert len(a) == len(b), name
        f, cm = figures(k, a, b)
        for (pname, fig), want in PUBLISHED.items():
            if pname == name:
                assert abs(f[fig] - want) < 5e-4, (name, fig, f[fig], want)
        pairs = ", ".join(f"({x}, {y})" for x, y in zip(a, b))
        print(f"const {name}: Dataset = Dataset {{")
        print(f"    k: {k},")
        print(f"    pairs: &[{pairs}],")
        for key, val in f.items():
            print(f"    {key}: {opt(val)},")
        rows = ", ".join("&[" + ", ".join(str(int(x)) for x in row) + "]" for row in cm)
        print(f"    confusion: &[{rows}],")
        print("};")

    # EvalGen: (judge_says_wrong, human_says_wrong); positive = wrong.
    judge = [1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 1, 0, 0]
    human = [1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1]
    cov = recall_score(human, judge)
    prec = precision_score(human, judge)
    tn, fp, fn, tp = confusion_matrix(human, judge, labels=[0, 1]).ravel()
    ffr = fp / (fp + tn)
    align = 2 * cov * (1 - ffr) / (cov + (1 - ffr))
    print("const EVALGEN_JUDGE: &[u8] = &[" + ", ".join(map(str, judge)) + "];")
    print("const EVALGEN_HUMAN: &[u8] = &[" + ", ".join(map(str, human)) + "];")
    print(f"const EVALGEN_COUNTS: [u64; 4] = [{tp}, {fp}, {fn}, {tn}]; // tp, fp, fn, tn")
    print(f"const EVALGEN_COVERAGE: f64 = {float(cov)!r};")
    print(f"const EVALGEN_FFR: f64 = {float(ffr)!r};")
    print(f"const EVALGEN_PRECISION: f64 = {float(prec)!r};")
    print(f"const EVALGEN_ALIGNMENT: f64 = {float(align)!r};")

    # Bootstrap with jury's PRNG, LIKERT30, 200 resamples, seed 20240601.
    _, k, a, b = DATASETS[0]
    pa = bootstrap(k, a, b, stat_percent, 200, 20240601)
    kq = bootstrap(k, a, b, stat_kappa_quadratic, 200, 20240601)
    print(f"const BOOT_SEED: u64 = 20240601;")
    print(f"const BOOT_PERCENT: (f64, f64) = {pa!r};")
    print(f"const BOOT_KAPPA_QUADRATIC: (f64, f64) = {kq!r};")
    # First draws of the generator, for a direct check.
    rng = Xoshiro.for_stream(BOOT_SEED := 20240601, 0)
    print("const STREAM0_FIRST: [u64; 3] = [" + ", ".join(str(rng.next()) for _ in range(3)) + "];")
    # Wilson score intervals of shares (statsmodels' proportion_confint).
    from statsmodels.stats.proportion import proportion_confint
    print("const WILSON: &[(u64, u64, f64, f64)] = &[")
    for s, n in [(0, 1), (1, 1), (0, 2), (2, 2), (1, 2), (3, 7), (13, 17), (0, 30), (30, 30),
                 (41, 100), (999, 1000), (5, 12345)]:
        lo, hi = proportion_confint(s, n, alpha=0.05, method="wilson")
        print(f"    ({s}, {n}, {float(lo)!r}, {float(hi)!r}),")
    print("];")
    print("// ---- end generated ----")


if __name__ == "__main__":
    main()
