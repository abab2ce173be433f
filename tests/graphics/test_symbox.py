"""The symbox ladder (car's ``symbox``): each power's column standardised, car's start."""

from __future__ import annotations

import numpy as np

from boxcoxstat.graphics.symbox import symbox_frame


def test_symbox_ladder_is_standardised_and_shifted_as_car():
    frame = symbox_frame([-1.0, 0.0, 2.0, 5.0], powers=(0.0, 1.0))
    np.testing.assert_allclose(frame.mean(), 0.0, atol=1e-15)
    np.testing.assert_allclose(frame.std(ddof=1), 1.0, rtol=1e-14)
    # car's start |min| + 0.01 range = 1.06, so the log column is log(x + 1.06) standardised
    v = np.log(np.array([-1.0, 0.0, 2.0, 5.0]) + 1.06)
    np.testing.assert_allclose(frame["log"], (v - v.mean()) / v.std(ddof=1), rtol=1e-14)
