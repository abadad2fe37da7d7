"""A run saved as JSON-safe state, resumed from it, or written out as a transcript."""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Mapping
from typing import Any, Self

from .. import transcript
from ..i18n import gettext_noop
from .base import RunBase
from .limits import API_VERSION, STATE_FORMAT, TOOL_MODES, Guards, RunnerError
from .params import validate_params
from .results import Handler

#: A saved run that can't be read: the part (or Python's error) in brackets, as it is.
DAMAGED = gettext_noop("The saved run is damaged (%(error)s).")


class StateMixin(RunBase):
    """Serialisation: :meth:`to_state`, :meth:`from_state` and :meth:`to_transcript`."""

    def to_state(self) -> dict[str, Any]:
        """Everything needed to resume the run, as JSON-safe data."""
        state = {
            "format": STATE_FORMAT,
            "params": self.params,
            "overrides": self.overrides,
            "messages": self.messages,
            "turns": self.turns,
            "contexts": self.contexts,
            "context": self.context,
            "guards": self.guards.to_dict(),
            "tool_mode": self.tool_mode,
            "meta": self.meta,
            "errors": self.errors,
            "active_ms": self.active_ms,
            "ended_by": self.ended_by,
            "ended_reason": self.ended_reason,
            "ended_reason_msg": self.ended_reason_msg,
        }
        try:
            restored: dict[str, Any] = json.loads(json.dumps(state))
            return restored
        except (TypeError, ValueError) as exc:
            raise RunnerError(f"The run state is not JSON data: {exc}.") from None

    @classmethod
    def from_state(
        cls,
        client: Any,
        state: Any,
        handlers: Mapping[str, Handler] | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> Self:
        """Resume a run saved with :meth:`to_state` (guards are clamped to today's caps)."""
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise RunnerError.worded(
                gettext_noop("Not a saved run (expected format %(format)s)."),
                {"format": repr(STATE_FORMAT)},
            )
        try:
            params = validate_params(dict(state["params"]))
            run = cls(
                client,
                params=params,
                messages=copy.deepcopy(state["messages"]),
                guards=Guards.from_dict(state.get("guards"), clamp=True),
                tool_mode=state.get("tool_mode", "automatic"),
                handlers=handlers,
                meta=state.get("meta") or {},
                clock=clock,
            )
            run.overrides = copy.deepcopy(dict(state.get("overrides") or {}))
            run.turns = copy.deepcopy(list(state["turns"]))
            run.contexts = copy.deepcopy(list(state.get("contexts") or []))
            run.context = copy.deepcopy(dict(state.get("context") or {}))
            run.errors = copy.deepcopy(list(state.get("errors") or []))
            run.active_ms = int(state.get("active_ms") or 0)
            run.ended_by = str(state.get("ended_by") or "")
            run.ended_reason = str(state.get("ended_reason") or "")
            msg = state.get("ended_reason_msg")
            run.ended_reason_msg = (
                msg
                if isinstance(msg, dict)
                and isinstance(msg.get("text"), str)
                and isinstance(msg.get("params"), dict)
                else None
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, RunnerError):
                raise
            raise RunnerError.worded(
                DAMAGED,
                {"error": f"{type(exc).__name__}: {exc}"},  # Python's words, quoted
            ) from None
        if run.tool_mode not in TOOL_MODES or len(run.contexts) != len(run.turns):
            raise RunnerError.worded(
                gettext_noop("The saved run is damaged (tool mode or contexts).")
            )
        if any(
            not isinstance(t, dict) or not isinstance(t.get("response"), dict) for t in run.turns
        ):
            raise RunnerError.worded(gettext_noop("The saved run is damaged (turns)."))
        return run

    def to_transcript(self) -> dict[str, Any]:
        """The run as a "loopcraft.transcript/1" document (needs at least one turn)."""
        if not self.turns:
            raise RunnerError.worded(
                gettext_noop("Nothing to save yet: the run has made no API call.")
            )
        meta = self.meta
        out: dict[str, Any] = {
            "format": transcript.FORMAT,
            "slug": meta.get("slug") or "live-run",
            "title": meta.get("title") or "Live run",
            "summary": meta.get("summary") or "",
            "tags": list(meta.get("tags") or []),
            "recorded": {"by": "loopcraft runner", "tool_mode": self.tool_mode},
            "api_version": API_VERSION,
            **copy.deepcopy(self.params),
            "guards": self.guards.to_dict(),
        }
        if self.ended_by:
            out["ended_by"] = self.ended_by
            out["ended_reason"] = self.ended_reason
        out["messages"] = copy.deepcopy(self.messages)
        out["turns"] = copy.deepcopy(self.turns)
        return out
