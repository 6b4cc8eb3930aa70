"""The audit records of the GGKPV slides (docs/ggkpv.md): `audit(quick, record)` yields one
`AuditEntry` per checkable claim (see `figures.audit_report`)."""

# The snippets are shown to users as one-line commands: a lambda is the way to name a function
# there, and the imports stay in the order the commands show them.
# ruff: noqa: E731, I001

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from figures.audit_report import AuditEntry, Record, Snippet, upper_verdict

__all__ = ["audit", "ggkpv_slides_rho", "ggkpv_calibrated_rho", "ggkpv_csuzz19",
           "ggkpv_local_hadamard", "ggkpv_fano", "ggkpv_unary_sweep",
           "ggkpv_hadamard_rates", "ggkpv_countmin_rates", "ggkpv_krr_sweep",
           "ggkpv_single_message_comparison", "ggkpv_fano_uniform", "ggkpv_ragg_rates",
           "combine_shape_verdicts"]


# ------------------------------------------------- snippets (rules: figures.audit_papers)
def ggkpv_slides_rho() -> tuple[Any, ...]:
    import math
    from accountant.protocols import ggkpv
    r = math.ceil(ggkpv.slides_rho(1.0, 1e-6))
    return (float(ggkpv.epsilon_bracket(ggkpv.ggkpv_parameters(n=2000, B=63, rho=r),
                                        1e-6).lower), r)


def ggkpv_calibrated_rho(delta: float) -> tuple[Any, ...]:
    from accountant.protocols import ggkpv
    c = ggkpv.calibrate(n=2000, B=63, target_epsilon=1.0, target_delta=delta)
    return (c.rho, ggkpv.slides_rho(1.0, delta))


def ggkpv_csuzz19(ns: tuple[int, ...], ks: tuple[int, ...],
                  epsilon0s: tuple[float, ...]) -> tuple[Any, ...]:
    import math
    from accountant.protocols import k_rr
    cases = [(n, k, e0, float(k_rr.epsilon_for_delta(n=n, epsilon0=e0, k=k,
                                                     delta=1e-6).lower))
             for n in ns for k in ks for e0 in epsilon0s]
    local = [max(0.0, math.exp(e0) - math.exp(es + math.log(n))) / (math.exp(e0) + k - 1)
             for n, k, e0, es in cases]
    return (max(local), min(es + math.log(n) - e0 for n, k, e0, es in cases), len(cases))


def ggkpv_local_hadamard(epsilon: float) -> tuple[Any, ...]:
    import math
    from accountant.protocols.ggkpv import local_hadamard
    ratios = [local_hadamard.expected_max_error_upper(n=n, B=B, epsilon=epsilon)
              / (math.sqrt(n * math.log(B)) / epsilon)
              for n in (10**3, 10**5, 10**7) for B in (3, 63, 1023, 2**20 - 1)]
    return (max(ratios), min(ratios))


def ggkpv_fano(B: int, epsilon: float) -> tuple[Any, ...]:
    from accountant.protocols.ggkpv import fano
    k = fano.k_rr_matrix(B=B, epsilon=epsilon)
    h = fano.hadamard_matrix(B=B, epsilon=epsilon)
    return (fano.fitted_exponent(k, 1e-3, 1e-2), fano.fitted_exponent(h, 1e-3, 1e-2),
            fano.mutual_information(k, 1e-3) / 1e-3**4)


def ggkpv_unary_sweep() -> tuple[Any, ...]:
    import math
    from verify.samplers import ggkpv as g
    ns = (10**3, 10**4, 10**5, 10**6)
    e0 = [g.calibrated_epsilon0('unary', n=n, B=64, epsilon=1.0, delta=1.0 / n**2,
                                rel_tol=1e-2)[0] for n in ns]
    sd = [math.sqrt(n / (4 * math.cosh(e / 4) ** 2)) / math.tanh(e / 4)
          for n, e in zip(ns, e0, strict=True)]
    return (math.log(sd[-1] / sd[0]) / math.log(ns[-1] / ns[0]), sd[0], sd[-1], e0[-1])


def ggkpv_hadamard_rates(ns: tuple[int, ...], Bs: tuple[int, ...]) -> tuple[Any, ...]:
    import math
    from accountant.protocols import ggkpv
    params = [ggkpv.ggkpv_parameters(n=n, B=B, rho=ggkpv.calibrate(
        n=n, B=B, target_epsilon=1.0, target_delta=1e-6).rho) for n in ns for B in Bs]
    sds = [math.sqrt(p.n * (1 + p.rho) * p.pi / (1 - p.pi)) for p in params]
    bits = [(1 + p.rho) * p.tau * math.log2(p.K) for p in params]
    return (min(sds), max(sds), min(p.rho for p in params), max(p.rho for p in params),
            min(bits), max(bits))


def ggkpv_countmin_rates(ns: tuple[int, ...], Bs: tuple[int, ...]) -> tuple[Any, ...]:
    import math
    from figures import ggkpv_countmin as cm
    rows = cm.countmin_rows(ns, Bs)
    err = {(r['n'], r['B']): r['error_bound'] for r in rows}
    spread_n = max(max(err[n, B] for n in ns) / min(err[n, B] for n in ns) for B in Bs)
    spread_B = max(max(err[n, B] for B in Bs) / min(err[n, B] for B in Bs) for n in ns)
    return (min(err.values()), max(err.values()), spread_n,
            math.log(max(ns)) / math.log(min(ns)), spread_B,
            math.log(max(Bs)) / math.log(min(Bs)), min(r['rho'] for r in rows),
            max(r['rho'] for r in rows), max(r['epsilon_upper'] for r in rows),
            min(r['epsilon_upper_rho_minus_1'] for r in rows),
            min(r['bits_per_user'] for r in rows), max(r['bits_per_user'] for r in rows),
            max(r['cells_per_query'] for r in rows))


def ggkpv_krr_sweep(n: int, Bs: tuple[int, ...]) -> tuple[Any, ...]:
    import math
    from figures import ggkpv_single as s
    rows = s.single_message_rows((n,), Bs)
    sds = [r['krr_sd'] for r in rows]
    return (s.fitted_exponent(Bs, sds), 0.5 + math.log(math.log(max(Bs)) / math.log(min(Bs)))
            / math.log(max(Bs) / min(Bs)), sds[0], sds[-1],
            min(r['krr_sd'] / math.sqrt(r['B']) for r in rows),
            max(r['krr_sd'] / math.sqrt(r['B']) for r in rows),
            max(r['krr_delta'] / r['delta'] for r in rows), rows[-1]['krr_epsilon0'])


def ggkpv_single_message_comparison(ns: tuple[int, ...],
                                    Bs: tuple[int, ...]) -> tuple[Any, ...]:
    from figures import ggkpv_single as s
    rows = s.single_message_rows(ns, Bs)
    ratio = [r['best_sd'] / r['slides_rate'] for r in rows]
    return (min(ratio), max(ratio), min(r['best_sd'] for r in rows),
            max(r['best_sd'] for r in rows),
            sum(r['krr_sd'] < r['unary_sd'] for r in rows), len(rows),
            max(max(r['krr_delta'], r['unary_delta']) / r['delta'] for r in rows))


def ggkpv_fano_uniform(B: int, epsilon: float) -> tuple[Any, ...]:
    from accountant.protocols.ggkpv import fano
    from figures import ggkpv_fano as gf
    k = fano.k_rr_matrix(B=B, epsilon=epsilon)
    h = fano.hadamard_matrix(B=B, epsilon=epsilon)
    ik, ih = fano.mutual_information(k, 1.0), fano.mutual_information(h, 1.0)
    return (ik, gf.krr_information(B, epsilon), ih, gf.hadamard_information(B, epsilon),
            max(fano.mutual_information(m, a) / (a * i) for m, i in ((k, ik), (h, ih))
                for a in (1e-3, 1e-2, 1e-1, 0.5)),
            gf.crossover_alpha(k, epsilon), gf.crossover_alpha(h, epsilon))


def ggkpv_ragg_rates(ns: tuple[int, ...], B: int) -> tuple[Any, ...]:
    import math
    from figures import ggkpv_ragg as ra
    rows = ra.ragg_rows(ns, B=B)
    sds = [r['sd'] for r in rows]
    return (min(sds), max(sds), max(sds) / min(sds), math.log(max(ns)) / math.log(min(ns)),
            max(r['coordinate_delta'] for r in rows) / 0.5e-6, rows[0]['messages_per_user'],
            rows[0]['bits_per_user'])


def combine_shape_verdicts(*ratios: float) -> tuple[str, float | None]:
    """The verdict of a shape check 'the quantity changes over the grid by at most a
    logarithmic allowance': each ratio is spread / allowance along one direction of the grid
    (the spread of an upper-bound curve, so its staying within the allowance confirms the
    rate, and exceeding it refutes nothing); `upper_verdict` of the largest against 1."""
    return upper_verdict(1.0, None, max(ratios))


# ------------------------------------------------------------------------ records
def audit(quick: bool, record: Record) -> Iterator[AuditEntry]:
    yield record(
        "Hadamard response (slides)", "rho = log(1/delta)/eps^2 noise messages per user "
        "give (eps, delta)-DP (eps=1, delta=1e-6, n=2000, B=63)", Snippet(ggkpv_slides_rho),
        [("epsilon at delta, certified lower end", "lower"), ("rho used", "slides' rule")],
        lambda v: ("violated" if v[0] > 1.0 else "holds", v[0],
                   f"with rho = {v[1]:g} the certified lower end of epsilon is {v[0]:.4g} > 1: "
                   "the rule with constant 1 is too small (docs/ggkpv.md#calibration); factor "
                   "= computed eps / target"))
    for delta in ((1e-6,) if quick else (1e-4, 1e-6, 1e-8)):
        yield record(
            "Hadamard response (slides, Theta constant)", "rho = Theta(log(1/delta)/eps^2): "
            "the least "
            f"certified rho against log(1/delta)/eps^2 (n=2000, B=63, eps=1, delta={delta:g})",
            Snippet(ggkpv_calibrated_rho, {"delta": delta}),
            [("least certified rho", "upper"), ("log(1/delta)/eps^2", "slides' rule")],
            lambda v: ("holds", None,
                       f"the least certified rho {v[0]:g} is {v[0] / v[1]:.3g} x the rule: "
                       "the Theta's constant at this (n, B, delta); one instance shows a "
                       "constant, not the rate (the delta sweep of the full audit shows its "
                       "drift)"))
    grid = ((10, 1000), (2, 16), (6.0,)) if quick else ((10, 100, 1000), (2, 4, 16),
                                                        (3.0, 6.0, 10.0))
    yield record(
        "[CSUZZ19] (slides)", "an (eps_S, delta)-DP single-message shuffled protocol has an "
        f"(eps_S + ln n, delta)-DP local randomizer (k-RR, n in {grid[0]}, k in {grid[1]}, "
        f"eps0 in {grid[2]}, delta=1e-6)",
        Snippet(ggkpv_csuzz19, {"ns": grid[0], "ks": grid[1], "epsilon0s": grid[2]}),
        [("largest local delta_R(eps_S + ln n)", "exact"),
         ("least eps_S + ln n - eps0", "lower"), ("instances", "exact")],
        lambda v: ("holds" if v[0] <= 1e-6 else "violated", None,
                   f"eps_S is k-RR's certified shuffled lower end (the stricter check: "
                   f"delta_R falls as its argument grows); eps_S + ln n exceeds eps0 by at "
                   f"least {v[1]:.4g} in "
                   f"{v[2]:g} instances, so the local k-RR's delta_R there is {v[0]:g} (at "
                   "eps >= eps0 a pure eps0-LDP randomizer has delta_R = 0)"))
    for eps in ((1.0,) if quick else (0.1, 1.0, 3.0)):
        yield record(
            "Hadamard response (slides, local)", "local Hadamard response has error "
            f"O(sqrt(n log B)/eps) (eps={eps:g}, n = 1e3..1e7, B = 3..2^20-1)",
            Snippet(ggkpv_local_hadamard, {"epsilon": eps}),
            [("largest certified E max error / (sqrt(n ln B)/eps)", "upper"),
             ("smallest", "upper")],
            lambda v: ("holds", None,
                       f"the sub-Gaussian maximal bound c sqrt(n/4) sqrt(2 ln 2B) over "
                       f"sqrt(n ln B)/eps stays in [{v[1]:.3g}, {v[0]:.3g}] on the grid "
                       "(analytically: (c eps/2) sqrt(2 ln(2B)/ln B), bounded), every dataset"))
    for B, eps in (((15, 5.0),) if quick else ((15, 1.0), (15, 5.0), (63, 5.0))):
        yield record(
            "local lower bound, Fano step (slides)", "I(V; R(X)) <= O~(alpha^4 n e^eps_L) is "
            f"'actually false for general randomizers R' (B={B}, eps_L={eps:g}, one user)",
            Snippet(ggkpv_fano, {"B": B, "epsilon": eps}),
            [("k-RR: exponent of I in alpha over [1e-3, 1e-2]", "exact"),
             ("Hadamard response: the same", "exact"),
             ("k-RR: I / alpha^4 at alpha = 1e-3", "exact")],
            lambda v: ("holds" if max(v[0], v[1]) < 3 else "violated", None,
                       f"exact mutual information falls like alpha^{v[0]:.3f} (k-RR) and "
                       f"alpha^{v[1]:.3f} (Hadamard), not alpha^4: I / alpha^4 = {v[2]:.4g} "
                       "at alpha = 1e-3 grows without bound as alpha -> 0, so without the "
                       "accuracy assumption the alpha^4 bound fails, as the slide says"))
    for B, eps in (((15, 5.0),) if quick else ((15, 1.0), (15, 5.0))):
        yield record(
            "local lower bound, Fano step (slides, uniform X)", "the step's quantity exactly: "
            "I(X; R(X)) for uniform X (closed forms), I(V; R(X)) <= alpha I(X; R(X)), and the "
            f"alpha below which I(V; R(X)) > alpha^4 n e^eps_L (B={B}, eps_L={eps:g}, one user: "
            "n = 1)", Snippet(ggkpv_fano_uniform, {"B": B, "epsilon": eps}),
            [("k-RR: I(X; R(X)), 50-digit sum", "exact"), ("k-RR: closed form", "exact"),
             ("Hadamard: I(X; R(X)), 50-digit sum", "exact"), ("Hadamard: closed form", "exact"),
             ("largest I(V; R(X)) / (alpha I(X; R(X))) over alpha in {1e-3, 1e-2, 0.1, 0.5}",
              "exact"), ("k-RR: crossing alpha", "lower"), ("Hadamard: crossing alpha", "lower")],
            lambda v: ("holds" if (v[4] <= 1 + 1e-12 and abs(v[0] - v[1]) <= 1e-12 * v[1]
                                   and abs(v[2] - v[3]) <= 1e-12 * v[3]) else "undecided",
                       None,
                       f"I(X; R(X)) = {v[0]:.6g} nats (k-RR) and {v[2]:.6g} (Hadamard), the "
                       f"50-digit sums equal to the closed forms (figures/ggkpv_fano.py); "
                       f"I(V; R(X)) <= alpha I(X; R(X)) (convexity; largest ratio {v[4]:.3g}); "
                       f"with constant 1 the slides' alpha^4 e^eps_L bound fails for alpha "
                       f"below {v[5]:.4g} (k-RR) and {v[6]:.4g} (Hadamard response), below "
                       "about that / sqrt(C) with a constant C: both are counterexamples for "
                       "'general R' (the slides give none; the step needs R's error <~ alpha)"))
    if not quick:
        yield record(
            "single-message upper bound (slides, RAPPOR branch)", "shuffled RAPPOR (unary "
            "encoding) at (1, 1/n^2) has count error O~(n^(1/4)) (n = 1e3..1e6, largest "
            "certified eps0 to 1%)", Snippet(ggkpv_unary_sweep),
            [("fitted exponent of the per-value sd in n", "exact"), ("sd at n=1e3", "exact"),
             ("sd at n=1e6", "exact"), ("certified eps0 at n=1e6", "lower")],
            lambda v: ("holds" if v[0] < 0.3 else "violated", None,
                       f"the exact per-value sd sqrt(n p q)/(p - q) at the largest certified "
                       f"eps0 grows from {v[1]:.4g} to {v[2]:.4g}: n^{v[0]:.3f} (the slides' "
                       "1/4 up to the logarithmic factors of delta = 1/n^2); the k-RR (sqrt B) "
                       "branch is the record 'single-message upper bound (slides, RR branch)'"))
    ns, bs = ((1000,), (7, 1023)) if quick else ((10**3, 10**4, 10**5), (7, 1023))
    yield record(
        "multi-message upper bounds (slides, Hadamard response)", "shuffled Hadamard response: "
        f"error O~(1), communication O~(1) at (1, 1e-6) (n in {ns}, B in {bs}, least certified "
        "rho)", Snippet(ggkpv_hadamard_rates, {"ns": ns, "Bs": bs}),
        [("least worst-case per-value sd", "exact"), ("largest", "exact"),
         ("least certified rho", "upper"), ("largest", "upper"), ("least bits per user", "exact"),
         ("largest", "exact")],
        lambda v: ("holds" if v[1] < 1.1 * v[0] else "violated", None,
                   f"the worst per-value sd over datasets, sqrt(n (1 + rho) pi/(1 - pi)), "
                   f"is in [{v[0]:.4g}, {v[1]:.4g}] over the grid (pi = 2^-ceil(log2 n) "
                   f"<= 1/n) with rho in [{v[2]:g}, {v[3]:g}]; bits per user (1 + rho) tau "
                   f"log2 K run {v[4]:g}-{v[5]:g}, polylogarithmic; query time "
                   "O(n (1 + rho) tau), the slides' O~(n)"))
    ns_cm, bs_cm = ((10**3, 10**4), (16, 256)) if quick else ((10**3, 10**4, 10**5, 10**6),
                                                             (16, 256, 4096, 65536))
    yield record(
        "multi-message upper bounds (slides, count-min)", "count-min with public coins: "
        f"error, communication and query time O~(1) at (1, 1e-6) (n in {ns_cm}, B in {bs_cm}; "
        "ours: w = n, d = ceil(log2 B), least certified rho, count-min estimate)",
        Snippet(ggkpv_countmin_rates, {"ns": ns_cm, "Bs": bs_cm}),
        [("least 95% bound on max_x |error|, every dataset", "upper"), ("largest", "upper"),
         ("spread of the bound over n at fixed B (max/min)", "exact"),
         ("allowance over n: ln(n_max)/ln(n_min)", "exact"),
         ("spread over B at fixed n", "exact"), ("allowance over B: ln(B_max)/ln(B_min)", "exact"),
         ("least certified rho", "upper"), ("largest", "upper"),
         ("largest certified epsilon at rho", "upper"),
         ("least certified epsilon at rho - 1", "upper"), ("least bits per user", "exact"),
         ("largest", "exact"), ("largest cells read per query (d)", "exact")],
        lambda v: (*combine_shape_verdicts(v[2] / v[3], v[4] / v[5]),
                   f"over every dataset and both tails, max_x |error| < t with probability "
                   f">= 0.95 for t from {v[0]:.4g} to {v[1]:.4g} on the grid (union bound over "
                   "the B values of Markov's bound on the hash collisions and the exact "
                   "Bin(n rho, 1/w) noise; figures/ggkpv_countmin.py); it changes by "
                   f"{v[2]:.4g}x over n (allowance {v[3]:.4g}x, one log n) and {v[4]:.4g}x over "
                   f"B (allowance {v[5]:.4g}x, one log B: d = ceil(log2 B) rows with rho "
                   f"{v[6]:g}-{v[7]:g} growing like d); certified epsilon <= {v[8]:.4g} at rho, "
                   f"> 1 at rho - 1 (least {v[9]:.6g}); bits per user {v[10]:g}-{v[11]:g} "
                   f"(d (1 + rho)(ceil log2 d + ceil log2 w), polylogarithmic); query reads "
                   f"d <= {v[12]:g} cells; factor = allowance / spread in the worse direction "
                   "(loose: the logarithmic allowance is not used)"))
    n_rr, bs_rr = (10**4, (4, 16, 64)) if quick else (10**6, (4, 16, 64, 256, 1024))
    yield record(
        "single-message upper bound (slides, RR branch)", "shuffled k-RR at (1, 1/n^2) has "
        f"count error O~(sqrt B) (n = {n_rr:g}, B in {bs_rr}, largest certified eps0 to 1%)",
        Snippet(ggkpv_krr_sweep, {"n": n_rr, "Bs": bs_rr}),
        [("fitted exponent of the worst-case per-value sd in B", "exact"),
         ("1/2 + the exponent of one ln B over the grid", "claimed"),
         (f"sd at B={bs_rr[0]}", "upper"), (f"sd at B={bs_rr[-1]}", "upper"),
         ("least sd / sqrt(B)", "upper"), ("largest sd / sqrt(B)", "upper"),
         ("largest certified delta(1) / delta", "upper"), ("eps0 at the largest B", "lower")],
        lambda v: (*upper_verdict(v[1], None, v[0]),
                   f"the exact worst-case (over datasets) per-value sd sqrt(n max(p(1-p), "
                   f"q(1-q)))/(p - q) at the largest eps0 whose certified delta(1) is <= 1/n^2 "
                   f"(at most {v[6]:.3g} x 1/n^2; blanket pair revealing the blanket count) "
                   f"grows from {v[2]:.4g} to {v[3]:.4g}: B^{v[0]:.3f}, sd / sqrt(B) in "
                   f"[{v[4]:.4g}, {v[5]:.4g}]; the sds are upper ends of k-RR's best error (a "
                   "larger eps0 may be private too); the sd is the per-value error, the max "
                   "over B values adds a factor about sqrt(2 ln 2B)"))
    if not quick:
        ns_lb, bs_lb = (10**3, 10**4, 10**5, 10**6), (4, 16, 64, 256, 1024)
        yield record(
            "single-message lower bound (slides)", "single-message (1, o(1/n))-DP error "
            ">= min(Omega~(n^(1/4)), Omega~(sqrt(B))): the certified-optimal k-RR and unary "
            f"encoding at (1, 1/n^2) against min(n^(1/4), sqrt(B)) (n in {ns_lb}, B in "
            f"{bs_lb})", Snippet(ggkpv_single_message_comparison, {"ns": ns_lb, "Bs": bs_lb}),
            [("least min(k-RR, unary) sd / min(n^(1/4), sqrt(B))", "upper"),
             ("largest", "upper"), ("least min(k-RR, unary) sd", "upper"),
             ("largest", "upper"), ("points where k-RR is the better", "exact"),
             ("points", "exact"), ("largest certified delta(1) / delta", "upper")],
            lambda v: ("undecided", None,
                       f"the better of k-RR (worst-case sd) and unary encoding at their "
                       f"largest certified eps0 has per-value sd {v[2]:.4g}-{v[3]:.4g}, "
                       f"{v[0]:.3g}-{v[1]:.3g} x min(n^(1/4), sqrt(B)) over the "
                       f"{v[5]:g} points (k-RR the better at {v[4]:g}): the slides' rate "
                       "matches these two protocols up to a factor that varies by "
                       f"{v[1] / v[0]:.3g}x; the theorem is a lower bound over every "
                       "single-message protocol with hidden constants and logarithms, and "
                       "these are upper ends for two protocols, which cannot confirm or "
                       "refute it"))
    ns_agg = (10**3, 10**4) if quick else (10**3, 10**4, 10**5, 10**6)
    yield record(
        "Idea: B parallel aggregations with R_agg (slides)", "R_agg [Cheu et al.] aggregates "
        f"bits with error O~(1); B parallel copies estimate frequencies (binary RR per label, "
        f"(1, 1e-6), B=1024, n in {ns_agg})", Snippet(ggkpv_ragg_rates, {"ns": ns_agg,
                                                                          "B": 1024}),
        [("least per-value sd over n", "exact"), ("largest", "exact"),
         ("spread over n (max/min)", "exact"), ("allowance: ln(n_max)/ln(n_min)", "exact"),
         ("largest certified coordinate delta(1/2) / (delta/2)", "upper"),
         ("messages per user", "exact"), ("bits per user", "exact")],
        lambda v: (*combine_shape_verdicts(v[2] / v[3]),
                   f"two coordinates change between neighbours, each a shuffled binary RR at "
                   f"the largest eps0 whose certified delta(1/2) is <= delta/2 (at most "
                   f"{v[4]:.3g} x delta/2; basic composition, figures/ggkpv_ragg.py): the "
                   f"exact per-value sd, every dataset, is {v[0]:.4g}-{v[1]:.4g}, changing by "
                   f"{v[2]:.4g}x over n (allowance {v[3]:.4g}x, one log n); the cost is "
                   f"{v[5]:g} messages ({v[6]:g} bits) per user, linear in B, which "
                   "count-min and Hadamard response avoid"))
    yield record(
        "local lower bound (slides)", "LDP frequency error Omega~(1/(sqrt(n) e^(eps/4))) "
        "for 2 ln n/3 <~ eps_L <~ 2 min(ln n, ln B), delta_L = o(1/(n ln n))", None, (),
        ("not applicable", None,
         "a lower bound over every local protocol with hidden constants and logs; its Fano "
         "step is computed (record 'local lower bound, Fano step (slides)')"))
