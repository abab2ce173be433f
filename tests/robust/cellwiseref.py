"""The cellWise 2.5.3 reference numbers of the robust tests (test helper).

``tests/reference/cellwise_reference.json``, written by ``cellwise_reference.R`` (R 4.2.2 +
cellWise 2.5.3 ``transfo()``, all defaults; see ``CELLWISE_NOTES.md``): the test vectors
T1..T4 of RewML_SPEC.md section 10 with their data, both families, robust and not, and the
TopGear MPG and Weight fits.

Tolerances for the robust vectors: R's ``optimize()`` stops at 2**-13, but
``rfmin.fmin`` takes R's steps on the same criterion, so the two land on the same point and
differ only by the rounding of the criterion's values (at most 1e-11 on these data, Y
included); 1e-9 leaves room for other platforms' rounding. The old tolerance, 2e-6, was set
by the 6 printed decimals of RewML_SPEC's table, which the full-precision JSON replaces.
"""

from __future__ import annotations

import json
from pathlib import Path

REF = json.loads((Path(__file__).parent.parent / "reference" / "cellwise_reference.json")
                 .read_text())
FAMILY = {"BC": "boxcox", "YJ": "yeojohnson"}
ROBUST = [c for c in REF["cases"] if c["robust"]]
NONROBUST = [c for c in REF["cases"] if not c["robust"]]
TOPGEAR = [c for c in REF["real_data"] if isinstance(c["variable"], str)]
TOPGEAR_BOTH = [c for c in REF["real_data"] if not isinstance(c["variable"], str)]
TOL = 1e-9  # see the module docstring
