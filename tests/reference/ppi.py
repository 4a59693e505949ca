#!/usr/bin/env python3
"""Reference values for jury's prediction-powered estimates (src/analytics/ppi.rs).

Needs `pip install ppi-python==0.2.3 numpy`. Prints the PPI_CASES constant that
tests/reference/statistics/ppi.rs holds between the "generated PPI cases" markers:
four synthetic studies (a biased judge, a good one, a coin-flip one, very few
labels) with ppi_py's PPI++ lambda, point estimate and intervals, and the
labels-alone interval.
"""
import numpy as np
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate, classical_mean_ci
import ppi_py.ppi as m

rng = np.random.default_rng(20261126)


def make(n, N, acc, truth, says_right):
    """The classifier is right with probability `truth`; the judge reads it
    correctly with probability `acc`, and says "right" anyway with `says_right`."""
    y_all = (rng.random(n + N) < truth).astype(float)
    judge = np.where(rng.random(n + N) < acc, y_all, 1 - y_all)
    judge = np.where(rng.random(n + N) < says_right, 1.0, judge)
    return y_all[:n], judge[:n], judge[n:]


def main():
    cases = [
        ("biased_judge", *make(40, 200, 0.85, 0.7, 0.2)),
        ("good_judge", *make(100, 1000, 0.95, 0.6, 0.0)),
        ("noise_judge", *make(30, 300, 0.5, 0.65, 0.0)),
        ("few_labels", *make(8, 60, 0.8, 0.5, 0.1)),
    ]
    print("// ---- generated PPI cases ----")
    print("const PPI_CASES: &[PpiCase] = &[")
    for name, y, yh, yu in cases:
        ci = {}
        for alpha in (0.05, 0.1):
            lo, hi = ppi_mean_ci(y, yh, yu, alpha=alpha)
            ci[alpha] = (float(np.ravel(lo)[0]), float(np.ravel(hi)[0]))
        est = float(np.ravel(ppi_mean_pointestimate(y, yh, yu))[0])
        pt = ppi_mean_pointestimate(y, yh, yu, lam=1)
        lam = m._calc_lam_glm(
            y.reshape(-1, 1) - pt, yh.reshape(-1, 1) - pt, yu.reshape(-1, 1) - pt,
            np.eye(1), clip=True,
        )
        human = classical_mean_ci(y, alpha=0.05)
        b = lambda a: "&[" + ", ".join(str(int(x)) for x in a) + "]"
        print(
            f'    PpiCase {{ name: "{name}", y: {b(y)}, y_hat: {b(yh)}, y_hat_u: {b(yu)}, '
            f"lambda: {float(lam)!r}, estimate: {est!r}, "
            f"ci95: [{ci[0.05][0]!r}, {ci[0.05][1]!r}], ci90: [{ci[0.1][0]!r}, {ci[0.1][1]!r}], "
            f"human95: [{float(human[0])!r}, {float(human[1])!r}] }},"
        )
    print("];")
    print("// ---- end generated PPI cases ----")


if __name__ == "__main__":
    main()
