"""Tool execution: handlers run automatically, or results supplied by the caller."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from ..i18n import gettext_noop
from .base import RunBase
from .limits import MAX_RESULT_CHARS, RunnerError
from .params import _tool_uses
from .results import ToolOutput, _result_block, structured_error


class ToolsMixin(RunBase):
    """Runs the tool calls of the last response, or accepts the caller's results for them."""

    def suggested_results(self) -> dict[str, dict[str, Any]]:
        """What the handlers would return for the pending calls (nothing is recorded)."""
        context = copy.deepcopy(self.context)
        out = {}
        for block in self.pending_tool_uses:
            output = self._call_handler(block, context)
            out[block["id"]] = {"content": output.content, "is_error": output.is_error}
        return out

    def _call_handler(self, block: dict[str, Any], context: dict[str, Any]) -> ToolOutput:
        name: Any = block.get("name")
        handler = self.handlers.get(name)
        if handler is None:
            return structured_error(
                "unknown_tool",
                retryable=False,
                message=f"No tool named {block.get('name')!r} is available.",
                next_step="Use only the tools listed in this request.",
            )
        try:
            output: object = handler(dict(block.get("input") or {}), context)
        except Exception as exc:  # a broken handler must not break the loop: Claude is told
            return structured_error(
                "internal_error",
                retryable=False,
                message=f"The tool failed: {type(exc).__name__}.",
                next_step="Do not call this tool again; tell the user or escalate.",
            )
        if not isinstance(output, ToolOutput):
            return ToolOutput(str(output))
        return output

    def _run_tools(self) -> list[dict[str, Any]]:
        started = self.clock()
        turn = self.turns[-1]
        results = []
        for block in _tool_uses(turn["response"]):
            output = self._call_handler(block, self.context)
            results.append(_result_block(block["id"], output.content, output.is_error))
        turn["tool_results"] = results
        self.contexts[-1] = copy.deepcopy(self.context)
        self.active_ms += self._ms_since(started)
        return results

    def _accept_results(
        self, pending: list[dict[str, Any]], given: Mapping[str, Mapping[str, Any]]
    ) -> None:
        if not isinstance(given, Mapping):
            raise RunnerError.worded(
                gettext_noop("tool_results must map each tool_use id to its result.")
            )
        ids = [b["id"] for b in pending]
        unknown = [k for k in given if k not in ids]
        if unknown:
            raise RunnerError.worded(
                gettext_noop("%(id)s is not one of the calls waiting for a result."),
                {"id": str(unknown[0])},
            )
        results = []
        for block in pending:
            if block["id"] not in given:
                raise RunnerError.worded(
                    gettext_noop("The result of %(id)s (%(name)s) is missing."),
                    {"id": block["id"], "name": block["name"]},
                )
            item = given[block["id"]]
            content = item.get("content", "") if isinstance(item, Mapping) else None
            is_error = item.get("is_error", False) if isinstance(item, Mapping) else None
            if not isinstance(content, str):
                raise RunnerError.worded(
                    gettext_noop("The result of %(id)s must be text."), {"id": block["id"]}
                )
            if len(content) > MAX_RESULT_CHARS:
                raise RunnerError.worded(
                    gettext_noop(
                        "The result of %(id)s is %(length)s characters; the limit is %(limit)s."
                    ),
                    {"id": block["id"], "length": len(content), "limit": MAX_RESULT_CHARS},
                )
            if not isinstance(is_error, bool):
                raise RunnerError.worded(
                    gettext_noop("is_error of %(id)s must be true or false."), {"id": block["id"]}
                )
            results.append(_result_block(block["id"], content, is_error))
        self.turns[-1]["tool_results"] = results
