"""The state a run holds and its read-only views (the mixins and :class:`Run` build on it)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from .. import i18n
from .limits import MAX_ERRORS_KEPT, Guards
from .params import _action, _tokens, _tool_uses, conversation
from .results import Handler, StepError, StepResult, grouped


class RunBase:
    """A run's parameters, turns, context, errors and how it ended; no API calls here."""

    def __init__(
        self,
        client: Any,
        *,
        params: dict[str, Any],
        messages: list[dict[str, Any]],
        guards: Guards,
        tool_mode: str,
        handlers: Mapping[str, Handler] | None,
        meta: dict[str, Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.params = params  # top-level request parameters, fixed for the run
        self.messages = messages  # the initial messages
        self.guards = guards
        self.tool_mode = tool_mode
        self.handlers = dict(handlers or {})
        self.meta = dict(meta or {})
        self.clock = clock
        self.overrides: dict[str, Any] = {}  # applied to the next calls (retries, forks)
        self.turns: list[dict[str, Any]] = []  # transcript turns
        self.contexts: list[dict[str, Any]] = []  # the handlers' context after each turn
        self.context: dict[str, Any] = {}
        self.errors: list[dict[str, Any]] = []
        self.active_ms = 0
        self.ended_by = ""
        self.ended_reason = ""
        # the reason as a message id and its values, worded in the reader's language when shown
        self.ended_reason_msg: dict[str, Any] | None = None

    # read-only views ------------------------------------------------------------------------

    @property
    def effective_params(self) -> dict[str, Any]:
        """The parameters the next call sends; an override of None leaves the field out."""
        merged = {**self.params, **self.overrides}
        return {k: v for k, v in merged.items() if v is not None}

    @property
    def last_action(self) -> str | None:
        return _action(self.turns[-1]["response"]) if self.turns else None

    @property
    def pending_tool_uses(self) -> list[dict[str, Any]]:
        """The tool_use blocks of the last response that have no results yet."""
        if self.ended_by or not self.turns or self.last_action != "run_tools":
            return []
        last = self.turns[-1]
        return [] if last["tool_results"] else _tool_uses(last["response"])

    @property
    def status(self) -> str:
        if self.ended_by:
            return "ended"
        if self.pending_tool_uses and self.tool_mode == "manual":
            return "awaiting_tool_results"
        return "ready"

    @property
    def usage(self) -> dict[str, int]:
        total_in = total_out = 0
        for turn in self.turns:
            i, o = _tokens(turn["response"].get("usage"))
            total_in += i
            total_out += o
        return {"input_tokens": total_in, "output_tokens": total_out, "total": total_in + total_out}

    def next_request(self) -> dict[str, Any]:
        """The request body the next step sends (with the results known so far)."""
        return {**self.effective_params, "messages": conversation(self.messages, self.turns)}

    def _ms_since(self, started: float) -> int:
        return max(int(round((self.clock() - started) * 1000)), 0)

    def _record_error(self, error: StepError) -> StepResult:
        self.errors = [*self.errors, error.to_dict()][-MAX_ERRORS_KEPT:]
        return self._result("error", error=error)

    def _result(self, kind: str, **extra: Any) -> StepResult:
        return StepResult(
            kind=kind,
            status=self.status,
            ended_by=self.ended_by,
            ended_reason=self.ended_reason,
            **extra,
        )

    def _end(self, by: str, reason: str) -> None:
        self.ended_by, self.ended_reason = by, reason
        self.ended_reason_msg = None

    def _end_with(self, by: str, text: str, values: Mapping[str, Any]) -> None:
        """End the run with ``text`` (a %-template marked for translation) and its ``values``:
        kept in English (whole numbers grouped, as before) and as a message id for the page."""
        self._end(by, i18n.english(text, grouped(values)))
        self.ended_reason_msg = i18n.dump(text, values)
