"""Write the JSON documents of ``d03779f_documents.json`` with boxcoxstat at commit d03779f,
before the results' storage fields became private (issue 28), so that a test can check that
documents written then still load::

    git worktree add /tmp/old d03779f
    cd /tmp/old && PYTHONPATH=/tmp/old python <this file> <out.json>
"""

from __future__ import annotations

import json
import sys
import warnings


def main(path: str) -> None:
    import numpy as np
    import pandas as pd

    import boxcoxstat as bcs

    warnings.simplefilter("ignore")
    cars = bcs.datasets.load("topgear")[["MPG", "Weight"]]
    rng = np.random.default_rng(3)
    u = rng.lognormal(size=80) - 1.5
    docs = {
        "PowerTransformResult": bcs.fit(cars),
        "PowerTransformResult (federated)": bcs.federated.fit(
            np.array_split(rng.lognormal(size=300), 5)),
        "PowerTransformResult (bcnpower)": bcs.fit(pd.Series(u, name="u"), family="bcnpower"),
        "PowerTransformResult (fixed)": bcs.fit(cars, lmbda=0),
        "RobustTransformResult": bcs.fit(cars, method="rewml"),
        "LmResult": bcs.lm("Volume ~ np.log(Height) + np.log(Girth)",
                           bcs.datasets.load("trees")),
        "JointTransformResult": bcs.fit_joint(bcs.datasets.load("highway1"),
                                              ["len", "adt", "trks"], design="~ htype"),
    }
    out = {}
    for key, r in docs.items():
        out[key] = {"class": type(r).__name__, "document": json.loads(r.to_json()),
                    "lmbda": np.atleast_1d(np.asarray(r.params, dtype=float)).tolist(),
                    "summary": str(r.summary())}
    with open(path, "w") as f:
        json.dump({"written_by": f"boxcoxstat {bcs.__file__} at commit d03779f "
                                 "(tests/base/data/write_old_documents.py)",
                   "results": out}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1])
