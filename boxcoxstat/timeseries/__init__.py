"""Time series: forecast's lambda (Guerrero 1993, or the seasonal-trend likelihood)
and its back-transform."""
