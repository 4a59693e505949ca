#!/usr/bin/env python3
"""Reference values for tests/reference/several_raters.rs.

Fleiss' kappa generalised to missing ratings (irrCAC 0.4.4,
`CAC(df, categories=range(k), digits=15).fleiss()`, unweighted and
quadratic) and Krippendorff's alpha (krippendorff 0.9.0,
`alpha(reliability_data, level_of_measurement=..., value_domain=range(k))`,
nominal, ordinal, interval), with irrCAC's own `krippendorff()` as a second
reference for the nominal alpha.

    /work/refvenv/bin/python tests/reference/several_raters.py

Prints each dataset (units x raters, -1 = missing) and its figures as Rust
constants. Values are 0-based category positions on a full scale of k.
"""

import krippendorff
import numpy as np
import pandas as pd
from irrCAC.raw import CAC


def generated(units, raters, k, keep, agree, seed):
    """A deterministic matrix: each unit has a 'true' category; a rater gives
    it with probability `agree`, else a neighbour or any category; a rating is
    kept with probability `keep` (missing otherwise)."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(units):
        truth = int(rng.integers(0, k))
        row = []
        for _ in range(raters):
            if rng.random() >= keep:
                row.append(-1)
            elif rng.random() < agree:
                row.append(truth)
            elif rng.random() < 0.5:
                row.append(int(min(k - 1, max(0, truth + rng.choice([-1, 1])))))
            else:
                row.append(int(rng.integers(0, k)))
        rows.append(row)
    return rows


DATASETS = [
    # Krippendorff (2011) section C, also irrCAC's raw_4raters: 4 raters,
    # 12 units, values 1-5 as 0-4, one unit with a single rating.
    ("KRIPPENDORFF_C", 5, [
        [0, 0, -1, 0], [1, 1, 2, 1], [2, 2, 2, 2], [2, 2, 2, 2],
        [1, 1, 1, 1], [0, 1, 2, 3], [3, 3, 3, 3], [0, 0, 1, 0],
        [1, 1, 1, 1], [-1, 4, 4, 4], [-1, -1, 0, 0], [-1, -1, 2, -1],
    ]),
    # AGREE(0)/DISAGREE(1), three people, a third of labels missing.
    ("BINARY_3", 2, generated(40, 3, 2, 0.67, 0.8, 1)),
    # Likert 1-5, five people, half the labels missing (some units with one).
    ("LIKERT_5", 5, generated(35, 5, 5, 0.5, 0.6, 2)),
    # Degree no/partially/fully, four people, "partially" never used.
    ("DEGREE_GAP", 3, [[c if c != 1 else 2 for c in r] for r in generated(25, 4, 3, 0.7, 0.7, 3)]),
]


def figures(k, rows):
    m = np.array(rows, dtype=float)
    m[m < 0] = np.nan
    df = pd.DataFrame(m)
    cats = list(range(k))
    out = {
        "fleiss": CAC(df, categories=cats, digits=15).fleiss()["est"]["coefficient_value"],
        "fleiss_quadratic": CAC(df, weights="quadratic", categories=cats, digits=15)
        .fleiss()["est"]["coefficient_value"],
    }
    for level in ("nominal", "ordinal", "interval"):
        out["alpha_" + level] = krippendorff.alpha(
            reliability_data=m.T, level_of_measurement=level, value_domain=cats
        )
    irr = CAC(df, categories=cats, digits=15).krippendorff()["est"]["coefficient_value"]
    assert abs(irr - out["alpha_nominal"]) < 1e-9, (irr, out["alpha_nominal"])
    return out


for name, k, rows in DATASETS:
    f = figures(k, rows)
    print(f"const {name}: [&[i8]; {len(rows)}] = [")
    for r in rows:
        print("    &[" + ", ".join(str(v) for v in r) + "],")
    print("];")
    print(f"// {name}: k = {k}")
    print(
        f"const {name}_WANT: Want = Want {{ k: {k}, "
        + ", ".join(f"{key}: {value!r}" for key, value in f.items())
        + " };"
    )
