"""Collection rules for the doctests under ``boxcoxstat/`` (``testpaths`` includes it).

A module that exists only to run inside an optional engine is not collected when that
engine is not installed (the README's test command installs the ``dev`` extra only);
``.ci/run`` installs the extras, so CI collects and runs them.
"""

import importlib.util

collect_ignore = []
if importlib.util.find_spec("flwr") is None:  # the flower extra: Flower's apps
    collect_ignore.append("boxcoxstat/federated/flower.py")
