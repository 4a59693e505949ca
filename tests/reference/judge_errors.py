# Reference for tests/reference/judge_errors.rs: a judge's true-positive and
# true-negative rates with exact (Clopper-Pearson) one-sided lower bounds, the
# Rogan-Gladen corrected rate, its bootstrap interval (judgy 0.1.0, and the
# same with the unlabelled set resampled too), and 1/(1 - rho^2).
import numpy as np
from scipy.stats import beta
import judgy

n, N = 80, 400
rng = np.random.default_rng(7)
# Deterministic data, written out in the Rust test: people's readings,
# the judge's on the same, the judge's on the rest.
y = np.array([1 if (i * 37 % 100) < 70 else 0 for i in range(n)])
yh = np.array([
    (1 if (i * 53 % 100) < 90 else 0) if y[i] == 1 else (0 if (i * 29 % 100) < 75 else 1)
    for i in range(n)
])
yu = np.array([1 if (i * 61 % 100) < 68 else 0 for i in range(N)])
n1, n0 = y.sum(), n - y.sum()
tp = ((y == 1) & (yh == 1)).sum(); tn = ((y == 0) & (yh == 0)).sum()
q1, q0 = tp / n1, tn / n0
lo = lambda k, m: 0.0 if k == 0 else beta.ppf(0.05, k, m - k + 1)
p = (yh.sum() + yu.sum()) / (n + N)
theta = np.clip((p + q0 - 1) / (q0 + q1 - 1), 0, 1)
rho = np.corrcoef(y, yh)[0, 1]
print("n1 n0 tp tn", n1, n0, tp, tn)
print("q1 %.15f q0 %.15f" % (q1, q0))
print("q1_lo %.15f q0_lo %.15f" % (lo(tp, n1), lo(tn, n0)))
print("p %.15f theta %.15f" % (p, theta))
print("rho %.15f most %.15f" % (rho, 1 / (1 - rho**2)))
np.random.seed(3)
t, a, b = judgy.estimate_success_rate(y, yh, np.concatenate([yh, yu]), bootstrap_iterations=20000)
print("judgy %.6f [%.6f, %.6f]" % (t, a, b))
# Both sets resampled.
ths = []
for _ in range(20000):
    i = rng.integers(0, n, n); j = rng.integers(0, N, N)
    yb, hb, ub = y[i], yh[i], yu[j]
    m1, m0 = yb.sum(), n - yb.sum()
    if m1 == 0 or m0 == 0: continue
    a1 = ((yb == 1) & (hb == 1)).sum() / m1; a0 = ((yb == 0) & (hb == 0)).sum() / m0
    d = a1 + a0 - 1
    if d <= 0: continue
    pb = (hb.sum() + ub.sum()) / (n + N)
    ths.append(np.clip((pb + a0 - 1) / d, 0, 1))
print("both %.6f %.6f" % tuple(np.percentile(ths, [2.5, 97.5])))
