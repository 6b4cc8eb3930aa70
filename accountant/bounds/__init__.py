"""Closed-form bounds, one module per paper; each result is a `Result` tagged upper/lower
with the paper's theorem and equation in `source`."""
