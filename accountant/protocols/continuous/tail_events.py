"""Certified lower ends at small delta: events "at least m of the n outputs exceed t".

The special pair (n - 1 users hold 0; the last holds 1 under P, 0 under Q) again. The number
C of shuffled outputs above t is a function of its view, with law Bin(n-1, s_0) + Bern(s_1)
under P and Bin(n, s_0) under Q, s_x = P(x + noise > t). For any event E of the view,
P(E) - e^eps Q(E) <= delta_{P||Q}(eps) <= delta(eps) of the mechanism, so

    eps(delta) >= log((P(E) - delta) / Q(E))        (Q||P: log((Q(E) - delta) / P(E))).

With E = {C >= m} (P||Q; {C < m} for Q||P), t and m are chosen for the target: a float
search in log space over a grid of t (out to where s_1 <= delta, past which no event of C
has P(E) - Q(E) > delta) and every m, then the best few candidates are evaluated in ball
arithmetic at 192 bits: s_x from the noise law's ball CDF (`cells`), binomial tails summed
term by term from the side without the mode, with a geometric bound on the terms left, and
the final log taken of the ball's lower end of P(E) - delta over the upper end of Q(E). Nothing
is rounded to a float before the final epsilon (rounded down), so delta = 1e-300 and 5e-324,
whose events have probabilities far below the float range, are handled like any other
(docs/continuous-randomizers.md#small-delta).

For tiny delta with few users the best event is m = 1 with t far out ("one output far in the
tail": P(E) ~ s_1, Q(E) ~ n s_0), which the fixed thresholds of `threshold` and the special
pair's clipped lattice miss. Thresholds where the other users' expected count above t exceeds
`_MAX_MEAN` are the bulk, left to `threshold` and `special_pair` (and would cost long sums).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import arb, ctx, fmpq
from scipy.special import gammaln

from accountant.numeric import rounding
from accountant.numeric.mp import arb_lower
from accountant.protocols.continuous import cells
from accountant.protocols.continuous.laws import NoiseLaw
from accountant.result import Direction, Kind, Result, Source

__all__ = ["epsilon_lower", "delta_lower", "SOURCE", "Event", "event_masses"]

SOURCE = Source(citation="this library (special pair, tail count events)",
                locator="docs/continuous-randomizers.md#small-delta")

_PREC = 192
_MAX_MEAN = 1000.0   # largest expected count of the other users above t on the grid
_COARSE = 160        # grid points out to the last useful threshold
_FINE = 48           # points of the refinement around the best coarse threshold
_CANDIDATES = 4      # events evaluated in ball arithmetic
_MAX_TERMS = 50_000  # binomial terms summed before the geometric bound is used as it stands
_REL = arb(2) ** -110  # stop a binomial sum when the terms left are below this share of it
_LOG_FLOOR = -1e300  # stands for log 0 in the float search (keeps 0 * log s finite)
_ORDERS = ("PQ", "QP")


@dataclass(frozen=True, slots=True)
class Event:
    """A count event of the special pair's view.

    Attributes:
        t: the threshold (a half-integer for integer laws).
        m: the count, >= 1.
        order: "PQ" (E = {C >= m}, P against Q) or "QP" (E = {C < m}, Q against P).
    """

    t: float
    m: int
    order: str


@functools.lru_cache(maxsize=16)
def _tails(law: NoiseLaw) -> cells.Tails:
    return cells.law_tails(law)


def _survival(law: NoiseLaw, y: float) -> tuple[arb, arb]:
    """(P(noise > y), P(noise <= y)) as balls, each without cancellation (call inside
    ctx.workprec(_PREC))."""
    f, s = _tails(law)(y)
    return s, f


# ------------------------------------------------------------------ certified event masses


def _pmf(n: int, k: int, log_s: arb, log_c: arb) -> arb:
    """C(n, k) s^k c^(n-k) as a ball."""
    return (arb(n + 1).lgamma() - arb(k + 1).lgamma() - arb(n - k + 1).lgamma()
            + k * log_s + (n - k) * log_c).exp()


def _binomial_tails(n: int, s: arb, c: arb, m: int) -> tuple[arb, arb]:
    """(P(Bin(n, s) >= m), P(Bin(n, s) < m)) as balls, c = 1 - s given as its own ball.

    The tail away from the mode is summed term by term (ratios of consecutive terms are
    monotone, so once the ratio r of the next step is below 1 every later term is below the
    current one times r^j and the rest is at most term * r / (1 - r)); the other is 1 minus it.
    """
    if m <= 0:
        return arb(1), arb(0)
    if m > n:
        return arb(0), arb(1)
    if not (s > 0 and c > 0):
        return arb(0.5, 0.5), arb(0.5, 0.5)  # [0, 1]: nothing known
    log_s, log_c = s.log(), c.log()
    q = float(s.mid())
    upward = m > (n + 1) * q  # the upper tail {>= m} lies right of the mode
    k = m if upward else m - 1
    term = _pmf(n, k, log_s, log_c)
    total = term
    ratio_up = s / c
    rest = None
    for _ in range(_MAX_TERMS):
        if (upward and k >= n) or (not upward and k <= 0):
            rest = arb(0)
            break
        # the ratio of the next term to this one (it only falls further along the sum)
        r = (n - k) * ratio_up / (k + 1) if upward else k / ((n - k + 1) * ratio_up)
        if r < 1:
            bound = term * r / (1 - r)
            if bound < total * _REL:
                rest = bound
                break
        term = term * r
        total = total + term
        k = k + 1 if upward else k - 1
    if rest is None:
        r = (n - k) * ratio_up / (k + 1) if upward else k / ((n - k + 1) * ratio_up)
        if not r < 1:
            return arb(0.5, 0.5), arb(0.5, 0.5)
        rest = term * r / (1 - r)
    # add [0, rest]: a ball centred at rest/2
    half = rest.upper() / 2
    side = total + arb(half, half)
    return (side, 1 - side) if upward else (1 - side, side)


def event_masses(law: NoiseLaw, n: int, event: Event) -> tuple[arb, arb]:
    """Balls for the event's masses: (P(E), Q(E)) for order "PQ", (Q(E), P(E)) for "QP" (the
    first is the one that should be large).

    Args:
        law: the noise law.
        n: users, >= 2.
        event: the event.

    Returns:
        (A, B), balls containing the true masses.
    """
    with ctx.workprec(_PREC):
        s0, c0 = _survival(law, event.t)
        # t - 1 is exact in floats for 0.5 <= t < 2^52 (1 is a multiple of t's ulp)
        s1, c1 = _survival(law, event.t - 1.0)
        m = event.m
        up_a, low_a = _binomial_tails(n - 1, s0, c0, m - 1)
        up_b, low_b = _binomial_tails(n - 1, s0, c0, m)
        up_q, low_q = _binomial_tails(n, s0, c0, m)
        if event.order == "PQ":
            return s1 * up_a + c1 * up_b, up_q
        return low_q, s1 * low_a + c1 * low_b


def _certified_epsilon(law: NoiseLaw, n: int, event: Event, delta: float) -> float:
    """log((A - delta)/B) at the lower end of A - delta and the upper end of B, rounded
    down; -inf when A - delta is not certainly positive."""
    a, b = event_masses(law, n, event)
    with ctx.workprec(_PREC):
        lo = (a - arb(delta)).lower()
        hi = b.upper()
        if not (lo > 0 and hi > 0):
            return -math.inf
        e = lo.log() - hi.log()
        if not e.is_finite():
            return -math.inf
        return _down(arb_lower(e))


def _certified_delta(law: NoiseLaw, n: int, event: Event, epsilon: float) -> float:
    """A - e^eps B at the lower end of A and the upper end of B, rounded down (0 if not
    positive)."""
    a, b = event_masses(law, n, event)
    with ctx.workprec(_PREC):
        d = a.lower() - arb(epsilon).exp() * b.upper()
        if not (d > 0 and d.is_finite()):
            return 0.0
        return _down(arb_lower(d))


# ------------------------------------------------------------------ float search


def _log_tails(law: NoiseLaw, ts: np.ndarray) -> np.ndarray:
    """Rows log s_0, log(1 - s_0), log s_1, log(1 - s_1) at thresholds ts (floats from the
    balls; _LOG_FLOOR where a ball is not certainly positive). For the search only."""
    out = np.full((4, ts.size), _LOG_FLOOR)
    with ctx.workprec(64):
        for i, t in enumerate(ts.tolist()):
            for j, y in enumerate((t, t - 1.0)):
                s, c = _survival(law, y)
                for r, ball in enumerate((s, c)):
                    if ball > 0:
                        out[2 * j + r, i] = float(ball.log().mid())
    return out


def _log_binomial(n: int, ls: np.ndarray, lc: np.ndarray,
                  top: int) -> tuple[np.ndarray, np.ndarray]:
    """log P(Bin(n, s) >= m) and log P(Bin(n, s) < m) for m = 0..top (rows: thresholds), each
    summed from its own side over the terms k <= top + 64 (the rest dropped: a search
    estimate, not a bound)."""
    kmax = min(n, top + 64)
    k = np.arange(kmax + 1, dtype=float)
    lp = (gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)
          + k * ls[:, None] + (n - k) * lc[:, None])
    lp = np.where(np.isfinite(lp), lp, -np.inf)
    upper = np.logaddexp.accumulate(lp[:, ::-1], axis=1)[:, ::-1]
    lower = np.logaddexp.accumulate(lp, axis=1)
    up = np.full((ls.size, top + 1), -np.inf)
    low = np.zeros((ls.size, top + 1))
    w = min(top + 1, kmax + 1)
    up[:, :w] = upper[:, :w]
    low[:, 1:w] = lower[:, :w - 1]
    low[:, 0] = -np.inf
    return up, low


def _scores(law: NoiseLaw, n: int, ts: np.ndarray, log_target: float,
            mode: str) -> tuple[np.ndarray, np.ndarray]:
    """Float estimates of the objective for every (t, m) and both orders: eps of the event
    (mode "epsilon", log_target = log delta) or log of P(E) - e^eps Q(E) (mode "delta",
    log_target = eps). Returns (scores of shape (2, len(kept), top), the thresholds kept)."""
    lt = _log_tails(law, ts)
    keep = n * np.exp(lt[0]) <= _MAX_MEAN
    ts, lt = ts[keep], lt[:, keep]
    if ts.size == 0:
        return np.full((2, 0, 1), -np.inf), ts
    mean = n * float(np.max(np.exp(lt[0])))
    top = int(min(n, math.ceil(mean + 12.0 * math.sqrt(mean) + 40.0)))
    ls1, lc1 = lt[2][:, None], lt[3][:, None]
    m = np.arange(1, top + 1)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        up1, low1 = _log_binomial(n - 1, lt[0], lt[1], top)
        upn, lown = _log_binomial(n, lt[0], lt[1], top)
        pairs = ((np.logaddexp(ls1 + up1[:, m - 1], lc1 + up1[:, m]), upn[:, m]),   # P||Q
                 (lown[:, m], np.logaddexp(ls1 + low1[:, m - 1], lc1 + low1[:, m])))  # Q||P
        out = np.empty((2, ts.size, top))
        for o, (la, lb) in enumerate(pairs):
            if mode == "epsilon":
                v = la - lb + np.log1p(-np.exp(np.minimum(log_target - la, 0.0)))
                v = np.where(la > log_target, v, -np.inf)
            else:
                x = log_target + lb - la
                v = np.where(x < 0, la + np.log1p(-np.exp(np.minimum(x, 0.0))), -np.inf)
            out[o] = np.where(np.isfinite(v), v, -np.inf)
    return out, ts


def _snap(law: NoiseLaw, ts: np.ndarray) -> np.ndarray:
    if law.integer:  # between atoms: P(> t) and P(<= t) are complements of whole atoms
        ts = np.floor(ts) + 0.5
    return np.unique(ts[ts >= 0.5])


def _reach(law: NoiseLaw, log_target: float) -> float:
    """A threshold t with log P(1 + noise > t) <= log_target (doubling in scales)."""
    x = 1.0
    with ctx.workprec(64):
        while x < 2.0 ** 20:
            s, _ = _survival(law, 0.5 + law.scale * x - 1.0)
            if not s > 0 or float(s.log().upper()) <= log_target:
                break
            x *= 2.0
    return 0.5 + law.scale * x


def _candidates(law: NoiseLaw, n: int, log_target: float, mode: str,
                reach: float) -> list[Event]:
    """The best events of the float search: a coarse grid of t on [1/2, reach], then a finer
    one around the best coarse t of each order."""
    coarse = _snap(law, np.linspace(0.5, reach, _COARSE))
    found: dict[Event, float] = {}

    def scan(ts: np.ndarray) -> list[float]:
        """Record the best events of each order; return the best t of each order."""
        sc, kept = _scores(law, n, ts, log_target, mode)
        bests = []
        for o in (0, 1):
            flat = np.argsort(sc[o], axis=None)[::-1][:_CANDIDATES]
            for idx in flat.tolist():
                i, j = np.unravel_index(idx, sc[o].shape)
                if np.isfinite(sc[o, i, j]):
                    found[Event(float(kept[i]), int(j) + 1, _ORDERS[o])] = float(sc[o, i, j])
            if flat.size and np.isfinite(sc[o].flat[flat[0]]):
                bests.append(float(kept[np.unravel_index(int(flat[0]), sc[o].shape)[0]]))
        return bests

    step = (reach - 0.5) / (_COARSE - 1)
    for best in scan(coarse):
        fine = _snap(law, np.linspace(max(0.5, best - step), best + step, _FINE))
        if fine.size:
            scan(fine)
    # the best few of each order (a poor float estimate of one order cannot crowd out the other)
    out: list[Event] = []
    for order in _ORDERS:
        mine = [ev for ev in found if ev.order == order]
        out += sorted(mine, key=lambda ev: found[ev], reverse=True)[:_CANDIDATES]
    return out


def epsilon_lower(law: NoiseLaw, n: int, delta: float) -> Result | None:
    """Certified lower end of epsilon(delta) from the best count event found.

    Args:
        law: the noise law.
        n: users, >= 2.
        delta: target in (0, 1).

    Returns:
        Result(quantity="epsilon", kind=LOWER, direction=MAX), or None when no event
        certifies a positive epsilon.
    """
    log_delta = math.log(delta)
    best, where = -math.inf, None
    for ev in _candidates(law, n, log_delta, "epsilon", _reach(law, log_delta)):
        e = _certified_epsilon(law, n, ev, delta)
        if e > best:
            best, where = e, ev
    if where is None or not best > 0:
        return None
    return Result(quantity="epsilon", value=best, kind=Kind.LOWER, direction=Direction.MAX,
                  source=SOURCE, at=float(delta), method=_method(law, where))


def delta_lower(law: NoiseLaw, n: int, epsilon: float) -> Result | None:
    """Certified lower end of delta(epsilon) from the best count event found.

    Args:
        law: the noise law.
        n: users, >= 2.
        epsilon: eps >= 0.

    Returns:
        Result(quantity="delta", kind=LOWER, direction=MAX), or None when no event gives a
        positive value.
    """
    best, where = 0.0, None
    # below e^-745 a delta is not a positive float
    for ev in _candidates(law, n, float(epsilon), "delta", _reach(law, -745.0)):
        d = _certified_delta(law, n, ev, float(epsilon))
        if d > best:
            best, where = d, ev
    if where is None:
        return None
    return Result(quantity="delta", value=best, kind=Kind.LOWER, direction=Direction.MAX,
                  source=SOURCE, at=float(epsilon), method=_method(law, where))


def _method(law: NoiseLaw, ev: Event) -> str:
    what = (f"at least {ev.m} outputs > {ev.t:.6g}, P||Q" if ev.order == "PQ"
            else f"fewer than {ev.m} outputs > {ev.t:.6g}, Q||P")
    return f"protocols.continuous.tail_events ({law.name} special pair, event: {what})"


def _down(x: fmpq) -> float:
    """The largest float <= the rational x."""
    return rounding.down(Fraction(int(x.p), int(x.q)))
