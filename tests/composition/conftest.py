"""Shared pairs for the composition tests (independent constructions, written out here)."""

import math

import pytest

from accountant.view import ViewPair


def rr_pair(epsilon: float) -> ViewPair:
    """Binary randomized response: P = (e^e, 1)/(1+e^e), Q = (1, e^e)/(1+e^e)."""
    p = math.exp(epsilon) / (1 + math.exp(epsilon))
    return ViewPair.from_arrays([p, 1 - p], [1 - p, p])


@pytest.fixture
def rr():
    return rr_pair
