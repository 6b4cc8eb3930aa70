"""The Fano step (accountant.protocols.ggkpv.fano): exact mutual information against a
float64 evaluation and the small-alpha expansion, and the alpha^2 law behind the slides'
"false for general R"."""

import math

import numpy as np
import pytest

from accountant.errors import ParameterError
from accountant.protocols.ggkpv import fano


def _float_mi(r, alpha):
    mean = r.mean(axis=0)
    p = alpha * r + (1 - alpha) * mean
    return float(np.mean(np.sum(p * np.log(p / mean), axis=1)))


@pytest.mark.parametrize("alpha", [0.05, 0.5, 1.0])
def test_matches_a_float_evaluation(alpha):
    r = fano.hadamard_matrix(B=7, epsilon=2.0)
    assert fano.mutual_information(r, alpha) == pytest.approx(_float_mi(r, alpha), rel=1e-10)


def test_small_alpha_expansion_of_binary_rr():
    # I = (alpha^2 / 2) chi^2 + O(alpha^3); binary RR: chi^2 = ((e-1)/(e+1))^2
    value = fano.mutual_information(fano.k_rr_matrix(B=2, epsilon=1.0), 1e-4)
    assert value == pytest.approx(1e-8 * (math.e - 1) ** 2 / (2 * (math.e + 1) ** 2),
                                  rel=1e-4)


def test_alpha_one_gives_the_information_of_the_randomizer_itself():
    # alpha = 1: X = V; an identity-like k-RR at huge eps reveals V: I -> ln B
    assert fano.mutual_information(fano.k_rr_matrix(B=8, epsilon=40.0), 1.0) == pytest.approx(
        math.log(8), rel=1e-9)


@pytest.mark.parametrize("make", [fano.k_rr_matrix, fano.hadamard_matrix])
def test_exponent_is_two_not_four(make):
    exponent = fano.fitted_exponent(make(B=15, epsilon=3.0), 1e-4, 1e-3)
    assert exponent == pytest.approx(2.0, abs=0.01)


def test_hadamard_rows_are_distributions_and_balanced():
    r = fano.hadamard_matrix(B=15, epsilon=1.0)
    assert r.shape == (15, 16)
    assert np.allclose(r.sum(axis=1), 1.0)
    keep = math.exp(1.0) / (1 + math.exp(1.0)) / 8
    assert np.all(np.sum(np.isclose(r, keep), axis=1) == 8)  # |C_x| = (B + 1)/2
    assert np.allclose(r[:, 0], keep)  # column 0 of Sylvester's matrix is all +1


@pytest.mark.parametrize("call", [
    lambda: fano.hadamard_matrix(B=10, epsilon=1.0),
    lambda: fano.k_rr_matrix(B=1, epsilon=1.0),
    lambda: fano.mutual_information([[0.5, 0.6]], 0.5),
    lambda: fano.mutual_information([[1.0]], 0.0),
    lambda: fano.fitted_exponent([[1.0]], 0.5, 0.1),
])
def test_bad_input(call):
    with pytest.raises(ParameterError):
        call()
