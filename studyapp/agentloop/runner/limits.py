"""The runner's hard caps, its error type and the guards that bound a run."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from .. import i18n
from ..models import API_VERSION as API_VERSION

STATE_FORMAT = "loopcraft.runstate/1"
# API_VERSION: the anthropic-version header the installed SDK sends, written down in models.py
# (so that importing the runner does not import the SDK); tests/test_agentloop_sdk.py compares
# it with the SDK's own constant.

# Hard server-side caps: a caller can choose lower limits, never higher ones.
TURN_CAP = 40
TOKEN_BUDGET_CAP = 400_000
WALL_CLOCK_CAP_S = 600
IDENTICAL_CALLS_CAP = 10
MAX_TOKENS_CAP = 16_384
MAX_RESULT_CHARS = 20_000  # one tool result typed by a learner
MAX_ERRORS_KEPT = 20
RETRY_FACTOR = 2  # a cut-off tool_use is retried once with max_tokens * RETRY_FACTOR (capped)
CALL_TIMEOUT_S = 120  # the longest a single API call may take, whatever time is left

TOOL_MODES = ("automatic", "manual")
FORK_CHANGES = ("model", "max_tokens", "tool_choice", "thinking", "guards", "tool_mode")
BOUND_PARTS = ("system", "tools", "messages")  # what a thinking block is bound to
THINKING_TYPES = ("enabled", "disabled", "adaptive", "between_tools")


class RunnerError(ValueError):
    """A request, state or input the runner refuses, with the reason in one sentence.

    ``msg``, where set, is the same reason as a message id and its values (``i18n.dump``), for
    a page that words it in the reader's language later (the job worker stores it)."""

    def __init__(self, message: str = "", *, msg: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.msg = msg

    @classmethod
    def worded(cls, text: str, values: Mapping[str, Any] | None = None) -> RunnerError:
        """The reason ``text`` (marked for translation) with ``values``, in English (whole
        numbers grouped), and kept as a message id."""
        values = values or {}
        return cls(i18n.english(text, i18n.grouped(values)), msg=i18n.dump(text, values))


# --- guards ------------------------------------------------------------------------------------

#: Each guard's range, and the sentence that refuses a value outside it (one per guard, so
#: that a translation can word the unit as its language needs).
_GUARD_LIMITS = {
    "max_turns": (
        1,
        TURN_CAP,
        i18n.gettext_noop(
            "%(name)s must be between %(low)s and %(high)s API calls (got %(value)s)."
        ),
    ),
    "token_budget": (
        1_000,
        TOKEN_BUDGET_CAP,
        i18n.gettext_noop("%(name)s must be between %(low)s and %(high)s tokens (got %(value)s)."),
    ),
    "wall_clock_s": (
        1,
        WALL_CLOCK_CAP_S,
        i18n.gettext_noop("%(name)s must be between %(low)s and %(high)s seconds (got %(value)s)."),
    ),
    "max_identical_calls": (
        1,
        IDENTICAL_CALLS_CAP,
        i18n.gettext_noop(
            "%(name)s must be between %(low)s and %(high)s identical calls (got %(value)s)."
        ),
    ),
}


@dataclass(frozen=True)
class Guards:
    """The run's limits; each must lie within the hard caps above."""

    max_turns: int = 12
    token_budget: int = 60_000
    wall_clock_s: int = 180
    max_identical_calls: int = 2

    def __post_init__(self) -> None:
        for name, (low, high, refusal) in _GUARD_LIMITS.items():
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise RunnerError.worded(
                    i18n.gettext_noop("%(name)s must be a whole number, not %(value)s."),
                    {"name": name, "value": repr(value)},
                )
            if not low <= value <= high:
                raise RunnerError.worded(
                    refusal, {"name": name, "low": low, "high": high, "value": value}
                )

    @classmethod
    def from_dict(cls, data: Any, *, clamp: bool = False) -> Guards:
        """Guards from a dict; unknown keys are refused; ``clamp`` lowers values to the caps."""
        if isinstance(data, Guards):
            return data
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise RunnerError('guards must be an object such as {"max_turns": 10}.')
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - names)
        if unknown:
            raise RunnerError(
                f"Unknown guard {unknown[0]!r}; the guards are {', '.join(sorted(names))}."
            )
        values = dict(data)
        if clamp:
            for name, (low, high, _) in _GUARD_LIMITS.items():
                value = values.get(name)
                if isinstance(value, int) and not isinstance(value, bool):
                    values[name] = max(low, min(high, value))
        return cls(**values)

    def to_dict(self) -> dict[str, int]:
        return asdict(self)
