"""What a step returns and what a tool handler returns (and the structured tool error)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from .. import i18n
from ..i18n import grouped as grouped


@dataclass(frozen=True)
class ToolOutput:
    """What a tool handler returns: the tool_result content and whether the call failed."""

    content: str
    is_error: bool = False


@dataclass(frozen=True)
class StepError:
    """An API call that failed; the run is unchanged and the step can be tried again."""

    kind: str  # authentication | permission | rate_limit | overloaded | invalid_request |
    #            not_found | request_too_large | api_error | timeout | connection |
    #            bad_response (an answer that could not be read or has the wrong shape)
    message: str
    status: int | None = None
    retry_after: float | None = None
    step: int = 0  # the turn the failed call would have produced
    #: ``message`` as a message id and its values (``i18n.dump``), worded in the reader's
    #: language when shown; None for errors stored before it was kept (and for quoted ones)
    msg: dict[str, Any] | None = None

    @classmethod
    def worded(
        cls, kind: str, text: str, values: Mapping[str, Any] | None = None, **extra: Any
    ) -> StepError:
        """An error whose ``message`` is ``text`` (marked for translation) with ``values``, in
        English, and kept as a message id too."""
        values = values or {}
        return cls(
            kind=kind,
            message=i18n.english(text, grouped(values)),
            msg=i18n.dump(text, values),
            **extra,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class StepResult:
    """What one call of :meth:`Run.step` did."""

    kind: str  # "response" (a turn was added) | "error" (nothing changed) | "ended"
    status: str  # the run's status afterwards
    turn: int | None = None  # index of the turn added
    action: str | None = None  # the catalogue's next action for that response
    error: StepError | None = None
    ended_by: str = ""
    ended_reason: str = ""
    tool_results: list[dict[str, Any]] = field(default_factory=list)  # run in this step


def structured_error(category: str, *, retryable: bool, message: str, next_step: str) -> ToolOutput:
    """An is_error tool result with JSON content {category, retryable, message, next_step}.

    The four keys are this application's convention for tool errors, not API fields: the API's
    tool_result has only ``is_error`` and ``content`` (facts.md §9.2).
    """
    payload = {
        "category": category,
        "retryable": retryable,
        "message": message,
        "next_step": next_step,
    }
    return ToolOutput(json.dumps(payload, ensure_ascii=False), is_error=True)


Handler = Callable[[dict[str, Any], dict[str, Any]], ToolOutput]


def _result_block(tool_use_id: str, content: str, is_error: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id}
    if content:
        block["content"] = content
    block["is_error"] = is_error
    return block
