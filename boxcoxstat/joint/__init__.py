"""``bcs.fit_joint``: one power per column, chosen jointly for multivariate normality."""
