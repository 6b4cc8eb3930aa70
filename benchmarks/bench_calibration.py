"""Benchmark (issue 21, calibration): the noise multiplier for (epsilon = 1, delta = 1e-5),
Poisson rate q = 0.01, T = 1e4 rounds, add/remove (DP-SGD), in one run.

Ours: `composition.calibration.noise_multiplier` (bisection on certified brackets: the
returned sigma's certified upper epsilon is <= 1, `missed` is a sigma whose certified lower
end exceeds 1). Peers: dp_accounting's `calibrate_dp_mechanism` with its `PLDAccountant`
(defaults) and with its `RdpAccountant` (the RDP method of Opacus's
`get_noise_multiplier`, whose orders and conversion it shares; Opacus needs torch, which
this project does not install). Targets: ours <= the RDP sigma, within 1 % of the PLD sigma,
certified epsilon at ours <= 1 (recomputed here by a fresh composition).

    python benchmarks/bench_calibration.py [--rounds T]
"""

from __future__ import annotations

import sys
import time

import dp_accounting as dpa
from dp_accounting.pld.pld_privacy_accountant import PLDAccountant
from dp_accounting.rdp.rdp_privacy_accountant import RdpAccountant

from accountant.composition import Accountant, GaussianNoise, Subsampled
from accountant.composition.calibration import noise_multiplier

EPSILON, DELTA, RATE = 1.0, 1e-5, 0.01


def peer(make: type, rounds: int) -> float:
    def event(sigma: float) -> dpa.DpEvent:
        return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(
            RATE, dpa.GaussianDpEvent(sigma)), rounds)
    return float(dpa.calibrate_dp_mechanism(
        make, event, EPSILON, DELTA, dpa.LowerEndpointAndGuess(0.3, 1.0), tol=1e-4))


def main() -> int:
    args = sys.argv[1:]
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 10_000
    t0 = time.process_time()
    ours = noise_multiplier(EPSILON, DELTA, sampling_rate=RATE, rounds=rounds)
    t_ours = time.process_time() - t0
    t0 = time.process_time()
    pld_sigma = peer(PLDAccountant, rounds)
    t_pld = time.process_time() - t0
    t0 = time.process_time()
    rdp_sigma = peer(RdpAccountant, rounds)
    t_rdp = time.process_time() - t0
    check = Accountant("add-remove").compose(Subsampled(GaussianNoise(ours.value), RATE),
                                             rounds).get_epsilon(DELTA)
    print(f"(epsilon, delta) = ({EPSILON:g}, {DELTA:g}), q = {RATE:g}, T = {rounds}, "
          "add/remove; sigma, CPU s")
    print(f"  ours (certified)        {ours.value:.5f}  {t_ours:6.1f} s  certified epsilon "
          f"at it {check.upper.value:.5f} (bracket [{check.lower.value:.5f}, "
          f"{check.upper.value:.5f}]); certainly missed at {ours.missed:.5f}")
    print(f"  dp_accounting PLD       {pld_sigma:.5f}  {t_pld:6.1f} s  ours / PLD "
          f"{ours.value / pld_sigma:.4f}")
    print(f"  dp_accounting RDP       {rdp_sigma:.5f}  {t_rdp:6.1f} s  ours / RDP "
          f"{ours.value / rdp_sigma:.4f} (Opacus's get_noise_multiplier method)")
    ok = (ours.value <= rdp_sigma and abs(ours.value / pld_sigma - 1) <= 0.01
          and check.upper.value <= EPSILON)
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
