"""Literal implementations of the papers' pseudocode: randomizer -> uniform shuffle of all
messages -> analyzer (one module per protocol, same names as accountant/protocols)."""
