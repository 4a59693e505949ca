#!/usr/bin/env python3
"""Reference thresholds for tests/calibration/trust_grid.rs.

The procedure of Jung, Brahman and Choi, "Trust or Escalate" (ICLR 2025), as
their code (`cascaded_evaluation/util.py`) runs it for one judge:

- candidates: 5 000 points evenly in [0, 1], keeping those with at least 30
  calibration items at or above;
- from the highest down, the Clopper-Pearson upper bound of the
  disagreement rate at level 1 - delta (scipy's beta.ppf(1 - delta, k + 1,
  m - k), 1 when k = m) must stay <= alpha; the threshold is the last that
  passed (fixed-sequence testing); none passed: no threshold.

On the paper's calibration judgements (../shared/external/trust-or-escalate,
not in this repository): the judge's confidence is max(probs) normalised by
their sum, it agrees when that answer is the one people preferred
(`preferences.human`, 1 or 2). Half the 500 items calibrate, the other half
is held out: the split is a Fisher-Yates shuffle of 0..500 by jury's
splitmix64 (src/rng.rs; `below(n)` = next % n) seeded with SEED, the first
250 calibrating. SEED = 1018 is one whose held-out figures are those the
data's README reports (gpt-4-turbo 53 % at 0.94, gpt-3.5-turbo 49 % at 0.89);
across splits they vary widely (see the end of the output).

    /work/refvenv/bin/python tests/reference/trust_or_escalate.py
"""

import json
import math
import os

from scipy.stats import beta

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "..", "shared", "external", "trust-or-escalate")
JUDGES = ["gpt-4-turbo", "gpt-3.5-turbo", "mistral-7b-instruct"]
SEED, ALPHA, DELTA, MIN_CAL = 1018, 0.15, 0.1, 30

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def mix64(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK

    def next_u64(self):
        self.state = (self.state + GAMMA) & MASK
        return mix64(self.state)

    def below(self, n):
        return 0 if n == 0 else self.next_u64() % n


def split(n, seed):
    idx = list(range(n))
    rng = SplitMix64(seed)
    for i in range(n - 1, 0, -1):
        j = rng.below(i + 1)
        idx[i], idx[j] = idx[j], idx[i]
    return sorted(idx[: n // 2]), sorted(idx[n // 2 :])


def upper(k, m, delta):
    return 1.0 if k >= m else float(beta.ppf(1 - delta, k + 1, m - k))


def procedure(cal, alpha, delta, min_cal=MIN_CAL):
    grid = [i / 4999 for i in range(5000)]
    candidates = [lam for lam in grid if sum(1 for c, _ in cal if c >= lam) >= min_cal]
    best = None
    for lam in reversed(candidates):
        kept = [a for c, a in cal if c >= lam]
        m, k = len(kept), sum(1 for a in kept if not a)
        b = upper(k, m, delta)
        if b > alpha:
            break
        best = (lam, m, k, b)
    return best


def load(judge):
    out = []
    with open(os.path.join(DATA, judge + ".calibration.jsonl")) as f:
        for line in f:
            r = json.loads(line)
            probs = r["probs"]
            top = max(range(len(probs)), key=lambda i: probs[i])
            out.append((probs[top] / sum(probs), top + 1 == r["preferences"]["human"]))
    return out


def held_out(test, lam):
    kept = [a for c, a in test if c >= lam]
    return len(kept), sum(kept)


def main():
    data = {j: load(j) for j in JUDGES}
    cal_idx, test_idx = split(500, SEED)
    print(f"// split seed {SEED}: calibration indices start {cal_idx[:8]}")
    for j in JUDGES:
        cal = [data[j][i] for i in cal_idx]
        test = [data[j][i] for i in test_idx]
        best = procedure(cal, ALPHA, DELTA)
        if best is None:
            print(f'("{j}", None),')
            continue
        lam, m, k, b = best
        n, agree = held_out(test, lam)
        print(
            f'("{j}", Some(({lam!r}, {m}, {k}, {b!r}, {n}, {agree}))), '
            f"// held out: {n / len(test):.3f} kept at agreement {agree / n:.3f}"
        )
    # How much the figures depend on the split (not pasted: for the record).
    for j in JUDGES[:2]:
        cov, none = [], 0
        for seed in range(200):
            ci, ti = split(500, seed)
            best = procedure([data[j][i] for i in ci], ALPHA, DELTA)
            if best is None:
                none += 1
                continue
            n, _ = held_out([data[j][i] for i in ti], best[0])
            cov.append(n / len(ti))
        print(
            f"// {j} over splits 0..200: no threshold in {none}; held-out coverage "
            f"median {sorted(cov)[len(cov) // 2]:.3f}, min {min(cov):.3f}, max {max(cov):.3f}"
        )
    # Where alpha is reachable at all: ln(delta) / ln(1 - alpha).
    for a, d in [(0.05, 0.1), (0.1, 0.1), (0.15, 0.1), (0.1, 0.01)]:
        m = math.ceil(math.log(d) / math.log(1 - a))
        print(f"// alpha {a}, delta {d}: reachable from {m} pairs (bound {upper(0, m, d)!r}, at {m - 1}: {upper(0, m - 1, d)!r})")


if __name__ == "__main__":
    main()
