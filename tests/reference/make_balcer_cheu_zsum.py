"""Generator of balcer_cheu_zsum.csv: exact epsilon(delta) of Balcer-Cheu zsum, by an
evaluation independent of the library.

Method (mpmath, 40 digits): B(k) = C(n,k) p^k (1-p)^(n-k) from loggamma at every k of the
window [np - 40 sd - 50, np + 40 sd + 50] (the mass outside is below 1e-300, negligible
at delta >= 1e-12); H_PQ(eps) = sum_k [B(k) - e^eps B(k-1)]_+ (Bin || 1+Bin) and
H_QP(eps) = sum_k [B(k-1) - e^eps B(k)]_+ (1+Bin || Bin), each summed directly over the
window (docs/divergences.md#hockey-stick-divergence, docs/balcer-cheu-2020.md#exact-zsum-view);
epsilon(delta) of each order by bisection on eps to 1e-18
absolute (H is continuous and decreasing); the reported value is the max of both orders.
No code of `accountant` is used. p is written in float.hex so the test uses the same p.

Run: python tests/reference/make_balcer_cheu_zsum.py  (about a minute)
"""

import csv
import math
from pathlib import Path

import mpmath

mpmath.mp.dps = 40

# (n, epsilon, delta) with p from Fig. 1 in float (g first, then p = 1 - g), or (n, p)
CASES = [
    (10**3, None, 1e-6, 0.9),
    (10**3, None, 1e-9, 0.75),
    (10**4, 1.0, 1e-6, None),
    (10**4, 0.5, 1e-9, None),
    (10**5, 1.0, 1e-6, None),
    (10**6, 0.5, 1e-6, None),
    (10**6, 0.25, 1e-9, None),
    (10**7, 1.0, 1e-9, None),
    (10**8, 1.0, 1e-6, None),
    (10**9, 1.0, 1e-6, None),
    (10**9, 0.5, 1e-9, None),
]


def window_pmf(n, p):
    pm = mpmath.mpf(p)
    q = 1 - pm
    mean, sd = n * float(p), math.sqrt(n * float(p) * (1 - float(p)))
    lo = max(0, int(mean - 40 * sd - 50))
    hi = min(n, int(mean + 40 * sd + 50))
    lgn = mpmath.loggamma(n + 1)
    B = {k: mpmath.exp(lgn - mpmath.loggamma(k + 1) - mpmath.loggamma(n - k + 1)
                       + k * mpmath.log(pm) + (n - k) * mpmath.log(q)) for k in range(lo, hi + 1)}
    return lo, hi, B


def hockey(B, lo, hi, eps, order):
    g = mpmath.exp(eps)
    total = mpmath.mpf(0)
    for k in range(lo, hi + 2):
        a, b = B.get(k, 0), B.get(k - 1, 0)
        if order == "QP":
            a, b = b, a
        term = a - g * b
        if term > 0:
            total += term
    return total


def epsilon_for_delta(B, lo, hi, delta, order):
    if hockey(B, lo, hi, 0, order) <= delta:
        return mpmath.mpf(0)
    a, b = mpmath.mpf(0), mpmath.mpf(1)
    while hockey(B, lo, hi, b, order) > delta:
        a, b = b, 2 * b
    while b - a > mpmath.mpf(10) ** -18:
        m = (a + b) / 2
        a, b = (a, m) if hockey(B, lo, hi, m, order) <= delta else (m, b)
    return b


def main():
    rows = []
    for n, epsilon, delta, p in CASES:
        if p is None:
            g = 50.0 * math.log(2.0 / delta) / (epsilon * epsilon * n)
            p = 1.0 - g
        lo, hi, B = window_pmf(n, p)
        pq = epsilon_for_delta(B, lo, hi, mpmath.mpf(delta), "PQ")
        qp = epsilon_for_delta(B, lo, hi, mpmath.mpf(delta), "QP")
        rows.append({"n": n, "p_hex": float(p).hex(), "p": repr(float(p)), "delta": repr(delta),
                     "epsilon_pq": mpmath.nstr(pq, 20), "epsilon_qp": mpmath.nstr(qp, 20),
                     "epsilon": mpmath.nstr(max(pq, qp), 20),
                     "source": "mpmath 40 digits, direct hockey-stick sum + bisection"})
        print(rows[-1])
    out = Path(__file__).with_name("balcer_cheu_zsum.csv")
    with out.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
