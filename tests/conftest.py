"""Shared test set-up: every plot is drawn on the Agg backend (no display is needed)."""

import matplotlib

matplotlib.use("Agg")
