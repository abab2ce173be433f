"""Robust power transformations (Raymaekers & Rousseeuw 2021): RewML, Carroll, MTL."""
