"""Independent float oracle for the binary-RR special pair's epsilon(delta)
(docs/single-message.md#binary-randomized-response, §1.1).

Under D' = (0,...,0) the number of ones is k ~ Bin(n, p), p = 1/(e^eps0+1), and the other
view is P(k) = Q(k) L(k), L(k) = (k e^eps0 + (n-k) e^-eps0)/n. Then
H_g(P||Q) = sum_k Q(k) [L(k) - g]_+ and H_g(Q||P) = sum_k Q(k) [1 - g L(k)]_+; epsilon(delta)
is found by bisection on the larger of the two (a lower bound on the mechanism's epsilon).
Written with scipy only, apart from the library.
"""

import math

import numpy as np
from scipy.stats import binom


def special_pair_epsilon(n, epsilon0, delta):
    p = 1.0 / (math.exp(epsilon0) + 1.0)
    k = np.arange(n + 1)
    q = binom.pmf(k, n, p)
    L = (k * math.exp(epsilon0) + (n - k) * math.exp(-epsilon0)) / n

    def hockey(epsilon):
        gamma = math.exp(epsilon)
        return max(float(np.sum(q * np.maximum(L - gamma, 0.0))),
                   float(np.sum(q * np.maximum(1.0 - gamma * L, 0.0))))

    lo, hi = 0.0, epsilon0
    if hockey(0.0) <= delta:
        return 0.0
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if hockey(mid) > delta else (lo, mid)
    return lo
