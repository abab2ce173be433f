"""boxcoxstat."""
