"""The API reference shows each docstring's References as a list, one entry per item, not
run together into one paragraph (issue 29, item 5)."""

from __future__ import annotations

import re

import pytest
from numpydoc.docscrape import FunctionDoc

import boxcoxstat as bcs

# an entry starts with "Surname, I." (a line of its own in the numpydoc section)
ENTRY = re.compile(r"^(- )?[A-Z][\w'-]+(?: [A-Z][\w'-]+)*, [A-Z]\.")


@pytest.mark.parametrize("name", ["fit", "lm", "fit_joint", "box_tidwell", "inverse_response",
                                  "guerrero", "sensitivity_curve", "robust_pca"])
def test_references_are_a_list_gh29(name):
    refs = FunctionDoc(getattr(bcs, name))["References"]
    entries = [ln for ln in refs if ENTRY.match(ln)]
    assert entries, f"{name} cites no reference"
    assert all(ln.startswith("- ") for ln in entries), refs
