"""Linear mixed models with an estimated response power (``bcs.lmer``)."""
