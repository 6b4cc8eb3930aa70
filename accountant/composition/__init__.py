"""Composition: RDP curves, subsampling, RDP -> (epsilon, delta) conversions, PLD and
optimal (epsilon, delta) composition."""
