"""An accountant with Opacus's interface for DP-SGD training loops, backed by the certified
PLD engine (docs/interop.md#an-opacus-compatible-accountant).

Opacus's accountants (`opacus.accountants.IAccountant`) are driven by
`step(noise_multiplier=, sample_rate=)` once per optimizer step and read with
`get_epsilon(delta)`; the history is a list of `(noise_multiplier, sample_rate, steps)`
with consecutive equal steps merged. `TrainingAccountant` keeps the same history and
answers from `Accountant`: every step is a Poisson-sampled Gaussian (add/remove, Opacus's
relation), `get_epsilon` is the certified upper end and `get_bracket` the whole bracket.
"""

from __future__ import annotations

from typing import Any

from accountant.composition.accountant import Accountant
from accountant.composition.interop import GaussianNoise, Subsampled
from accountant.domains import DELTA, SAMPLING_RATE
from accountant.errors import ParameterError
from accountant.result import Bracket

__all__ = ["TrainingAccountant"]


class TrainingAccountant:
    """Opacus-compatible accountant: `step`, `get_epsilon`, `history`, `len`, state dicts.

    Args:
        neighboring: "add-remove" (Opacus's and dp_accounting's default) or "substitute".
    """

    def __init__(self, neighboring: Any = "add-remove") -> None:
        # checked and spelled once, where relations are defined
        self._neighboring = Accountant(neighboring).neighboring
        self.history: list[tuple[float, float, int]] = []

    @classmethod
    def mechanism(cls) -> str:
        """The accountant's name, as Opacus's `IAccountant.mechanism()`."""
        return "shuffle-accountant-pld"

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """Record one optimizer step (merged with the last entry when it has the same
        parameters, as Opacus does).

        Args:
            noise_multiplier: sigma over the clipping norm (`GaussianNoise`'s domain).
            sample_rate: Poisson sampling rate in (0, 1].

        Raises:
            ParameterError: a parameter outside its domain.
        """
        GaussianNoise(noise_multiplier)  # checks the noise multiplier's domain
        SAMPLING_RATE.named("sample_rate").check(sample_rate)
        sigma, q = float(noise_multiplier), float(sample_rate)
        if self.history and self.history[-1][:2] == (sigma, q):
            self.history[-1] = (sigma, q, self.history[-1][2] + 1)
        else:
            self.history.append((sigma, q, 1))

    def __len__(self) -> int:
        """The number of steps recorded."""
        return sum(steps for _, _, steps in self.history)

    def accountant(self) -> Accountant:
        """The history as an `Accountant` ledger (one entry per merged run of steps).

        Raises:
            ParameterError: no step recorded yet.
        """
        if not self.history:
            raise ParameterError("no step recorded: call step() first")
        acc = Accountant(self._neighboring)
        for sigma, q, steps in self.history:
            noise = GaussianNoise(sigma)
            acc.compose(noise if q == 1 else Subsampled(noise, q), steps)
        return acc

    def get_bracket(self, delta: float) -> Bracket:
        """The certified bracket on epsilon(delta) of all steps recorded.

        Args:
            delta: in (0, 1).

        Returns:
            A `Bracket` (its upper end is certified; its lower end is certainly reached).
        """
        DELTA.check(delta)
        return self.accountant().get_epsilon(delta)

    def get_epsilon(self, delta: float, **kwargs: Any) -> float:
        """The certified upper bound on epsilon(delta) (Opacus's signature; extra keyword
        arguments such as `poisson` are accepted and ignored only when they say what this
        accountant assumes).

        Args:
            delta: in (0, 1).
            **kwargs: `poisson=True` is accepted; anything else is refused.

        Returns:
            epsilon, a float upper bound.

        Raises:
            ParameterError: delta outside (0, 1), or an option this accountant does not
                follow.
        """
        for key, value in kwargs.items():
            if not (key == "poisson" and value is True):
                raise ParameterError(f"{key}={value!r}: this accountant assumes Poisson "
                                     "sampling and takes no other option")
        return float(self.get_bracket(delta))

    def state_dict(self) -> dict[str, Any]:
        """The history and relation (Opacus's `state_dict`)."""
        return {"history": list(self.history), "mechanism": self.mechanism(),
                "neighboring": self._neighboring}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Restore a `state_dict`.

        Raises:
            ParameterError: a state of another accountant.
        """
        if state.get("mechanism") != self.mechanism():
            raise ParameterError(f"state of {state.get('mechanism')!r}, not of "
                                 f"{self.mechanism()!r}")
        self._neighboring = state["neighboring"]
        self.history = [(float(s), float(q), int(n)) for s, q, n in state["history"]]
