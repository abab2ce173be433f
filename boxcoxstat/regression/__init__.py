"""``bcs.lm``: a linear model with a transformed response; ``bc()`` / ``yj()`` formula terms."""
