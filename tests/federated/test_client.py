"""boxcoxstat.federated.client: a client's own data pass the package's gate at set-up (empty,
infinite, or <= 0 for Box-Cox), and the fit names the client or drops it."""

from __future__ import annotations

import numpy as np
import pytest

import boxcoxstat as bcs
from boxcoxstat import BoxCoxError

from .fedutil import sites as _sites


@pytest.mark.parametrize(
    ("data", "match"),
    [([], "empty client"), ([1.0, np.inf], "infinite"), ([1.0, -2.0], "<= 0")],
)
def test_bad_client_data(data, match):
    sites = _sites()
    with pytest.raises(BoxCoxError, match=f"client '#1'.*{match}"):
        bcs.federated.fit([sites[0], np.array(data), sites[1]])
    fed = bcs.federated.fit([sites[0], np.array(data), sites[1]], on_bad_client="drop")
    assert list(fed.federated["dropped"]) == ["#1"]
