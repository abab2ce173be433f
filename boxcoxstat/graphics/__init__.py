"""car's diagnostic plots for choosing a power: symbox, spread-level, QQ with an envelope."""
