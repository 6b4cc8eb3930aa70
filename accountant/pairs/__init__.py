"""Pair families shared by protocols: each builds two view distributions whose divergences
bound (or equal) those of a protocol's neighbouring datasets.

- `binomial_shift`: Bin(n, p) against 1 + Bin(n, p) (Balcer-Cheu zsum; docs/balcer-cheu-2020.md).
- `clones`: mixtures over a clone count C (Feldman-McMillan-Talwar's clones pair and the
  k-RR blanket pair; docs/clones-and-blankets.md).
- `heterogeneous_clones`: the clones pair with a Poisson-binomial clone count (users with
  different randomizers; docs/heterogeneous.md).
- `product`: pairs of independent coordinates, composed from their coordinates' PLDs.
"""

from accountant.pairs import clones, heterogeneous_clones
from accountant.pairs.binomial_shift import binomial_shift_loss, binomial_shift_pair
from accountant.pairs.clones import ClonePair, blanket_k_rr, fmt_clones
from accountant.pairs.product import ProductPair

__all__ = ["ClonePair", "ProductPair", "binomial_shift_loss", "binomial_shift_pair",
           "blanket_k_rr", "clones", "fmt_clones", "heterogeneous_clones"]
