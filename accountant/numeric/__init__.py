"""Numerical building blocks: log-space arithmetic, directed rounding, special functions."""
