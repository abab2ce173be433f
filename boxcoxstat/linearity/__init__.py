"""Powers for linearity: Box-Tidwell predictor powers and the inverse response plot."""
