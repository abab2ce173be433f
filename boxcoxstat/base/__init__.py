"""What every result shares: the report (``Summary``) and the diagnostics the plots draw."""
