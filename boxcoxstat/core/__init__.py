"""The one estimation core: data as log-ratios, the stable likelihood, the solver, inference.

Pure NumPy/SciPy (no pandas, statsmodels or matplotlib). Every model presents its profile
likelihood to this core; see ``DESIGN.md``, "The core".
"""
