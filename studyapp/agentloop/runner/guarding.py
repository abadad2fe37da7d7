"""The guards checked around each call: turn cap, token budget, wall clock, repeated calls."""

from __future__ import annotations

import json
from typing import Any

from ..i18n import gettext_noop
from .base import RunBase
from .params import _action, _approx_tokens, _tokens, _tool_uses


class GuardsMixin(RunBase):
    """Ends a run when the next call would break one of its guards."""

    def _trip_guards(self, *, before_call: bool) -> bool:
        """End the run if the next call would break a guard; True when one tripped."""
        if self.ended_by:
            return True
        g = self.guards
        calls = len(self.turns)
        if calls >= g.max_turns:
            last = self.turns[-1]["response"].get("stop_reason") if self.turns else None
            self._end_with(
                "turn_cap",
                gettext_noop(
                    "Turn cap: %(calls)s API calls made, the limit is %(limit)s; the last "
                    "response (stop_reason %(last)s) still wanted the loop to go on, so the task "
                    "is unfinished."
                ),
                {"calls": calls, "limit": g.max_turns, "last": str(last)},
            )
            return True
        if not before_call:
            repeated = self._repeated_call()
            if repeated:
                self._end_with("repeated_call", *repeated)
                return True
        used = self.usage["total"]
        estimate = self._next_call_estimate()
        if used + estimate > g.token_budget:
            self._end_with(
                "token_budget",
                gettext_noop(
                    "Token budget: %(used)s of %(budget)s tokens used, and the next call could "
                    "use about %(estimate)s more (its input plus max_tokens), so it was not sent."
                ),
                {"used": used, "budget": g.token_budget, "estimate": estimate},
            )
            return True
        if self.active_ms >= g.wall_clock_s * 1000:
            self._end_with(
                "wall_clock",
                gettext_noop(
                    "Wall clock: the run has spent %(spent)s s calling the API and running "
                    "tools; the limit is %(limit)s s."
                ),
                {"spent": f"{self.active_ms / 1000:.1f}", "limit": str(g.wall_clock_s)},
            )
            return True
        return False

    def _next_call_estimate(self) -> int:
        max_tokens: int = self.effective_params["max_tokens"]
        if not self.turns:
            return max_tokens
        last = self.turns[-1]
        sent, out = _tokens(last["response"].get("usage"))
        if self.last_action in ("run_tools", "resend_paused"):
            sent += out + (_approx_tokens(last["tool_results"]) if last["tool_results"] else 0)
        return sent + max_tokens

    def _repeated_call(self) -> tuple[str, dict[str, Any]] | None:
        # Counted once per response: identical calls side by side in ONE parallel response are
        # one request for the same data, not a loop repeating itself.
        counts: dict[tuple[str, str], int] = {}
        for turn in self.turns:
            if _action(turn["response"]) != "run_tools":
                continue
            keys = {
                (block["name"], json.dumps(block.get("input"), sort_keys=True))
                for block in _tool_uses(turn["response"])
            }
            for key in keys:
                counts[key] = counts.get(key, 0) + 1
        limit = self.guards.max_identical_calls
        for block in _tool_uses(self.turns[-1]["response"]):
            key = (block["name"], json.dumps(block.get("input"), sort_keys=True))
            if counts.get(key, 0) > limit:
                return (
                    gettext_noop(
                        "Repeated call: %(name)s was requested with identical input in "
                        "%(count)s responses (limit: %(limit)s); this call was not run."
                    ),
                    {"name": str(block["name"]), "count": counts[key], "limit": limit},
                )
        return None
