"""Benchmark: pure-DP (max-divergence) verification of the GKM counting protocol.

Target (issue 6): n = 10, epsilon = 1, Condition-7-minimal s and lam, the worst case over
the other users' count of ones and both orders, in <= 30 s. Two evaluations:

- rays: `gkm.max_divergence` (1-D losses along the rays of the view, O(k* B0 J) work);
- box:  `gkm_view.pure_epsilon(view_pair(...))` (the full 2-D view on the certified box,
        O(A^2 J) work and memory; the view that (epsilon, delta) and Renyi use).

Then the scaling with lam (through epsilon': smaller epsilon - epsilon' forces larger s and
lam), one dataset (ones = 4), both methods where the box fits in memory.

Prints medians of repeated runs. Run: python benchmarks/bench_gkm.py [--quick] [--full]
(--full adds the worst case over datasets at Theorem 6's constants, which the scan budget
refuses: it says so).
"""

from __future__ import annotations

import sys

from timing import timed

from accountant.errors import ParameterError
from accountant.protocols import gkm
from accountant.protocols.gkm import view as gkm_view


def worst_case(params: gkm.GkmParameters, method: str) -> float:
    worst = 0.0
    for ones in range(params.n):
        if method == "rays":
            r = gkm.max_divergence(params, ones=ones)
        else:
            r = gkm_view.pure_epsilon(gkm.view_pair(params, ones=ones))
        worst = max(worst, float(r))
    return worst


def main(quick: bool = False, full: bool = False) -> None:
    repeats = 1 if quick else 3
    params = gkm.gkm_parameters(n=10, epsilon=1.0, epsilon_prime=0.5, q=0.1)
    _, box = gkm_view.box_size(n=10, epsilon_prime=0.5, s=params.s, lam=params.lam)
    print(f"n=10 epsilon=1 epsilon'=0.5 q=0.1: minimal s={params.s} lam={params.lam:.2f}, "
          f"box side {box}")
    for method in ("rays", "box"):
        t, value = timed(lambda m=method: worst_case(params, m), repeats)
        print(f"  worst case over ones=0..9, both orders, {method:>4}: d_inf <= {value:.9f}"
              f"  median {t:.3f} s")
    print("scaling with lam (n=10, epsilon=1, q=0.1, ones=4; s, lam Condition-7-minimal):")
    print("  epsilon'     s        lam      mu=lam/r^2    box   rays[s]    box[s]")
    for epsilon_prime in (0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98):
        p = gkm.gkm_parameters(n=10, epsilon=1.0, epsilon_prime=epsilon_prime, q=0.1)
        b0, side = gkm_view.box_size(n=10, epsilon_prime=epsilon_prime, s=p.s, lam=p.lam)
        t_rays, r = timed(lambda p=p: gkm.max_divergence(p, ones=4), repeats)
        if side <= 4000 and not (quick and side > 2000):
            t_box, _ = timed(
                lambda p=p: gkm_view.pure_epsilon(gkm.view_pair(p, ones=4)), repeats)
            box_text = f"{t_box:9.3f}"
        else:
            box_text = "   (skip)"
        mu = p.lam / (2.718281828459045 ** (-2 * epsilon_prime))
        print(f"  {epsilon_prime:7.2f} {p.s:6d} {p.lam:12.1f} {mu:12.1f} {side:7d} "
              f"{t_rays:9.3f} {box_text}   d_inf <= {float(r):.6f}")

    print("Theorem 6 constants (n=10, epsilon=1, rho=0.5), rays only (the box would be "
          "~5e6 wide); ones=0, the one count within the scan budget:")
    for corrected in (False, True):
        p = gkm.theorem6_parameters(n=10, epsilon=1.0, rho=0.5, corrected_q=corrected)
        t, r = timed(lambda p=p: gkm.max_divergence(p, ones=0), 1)
        print(f"  {p.choice:22s} q={p.q:.4g} s={p.s} lam={p.lam:.4g}: ones=0 d_inf <= "
              f"{float(r):.7f} (budget {r.error_budget:.1e})  {t:.1f} s")
        if full:
            try:
                t, value = timed(lambda p=p: worst_case(p, "rays"), 1)
            except ParameterError as exc:   # beyond MAX_RAYS_WORK: said, not run
                print(f"    worst case over ones=0..9: refused ({exc})")
                continue
            print(f"    worst case over ones=0..9: d_inf <= {value:.7f}  {t:.1f} s")


if __name__ == "__main__":
    main(quick="--quick" in sys.argv, full="--full" in sys.argv)
