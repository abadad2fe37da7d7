"""The Run state machine: one API call per step, and what the loop does with each response."""

from __future__ import annotations

import copy
import os
import time
from collections.abc import Callable, Mapping
from typing import Any

from .. import catalogue, contract, i18n, runner_checks
from ..i18n import Phrase, gettext_noop
from ..redact import redact
from .client import _dump, describe_error
from .guarding import GuardsMixin
from .limits import (
    API_VERSION,
    CALL_TIMEOUT_S,
    MAX_TOKENS_CAP,
    RETRY_FACTOR,
    TOOL_MODES,
    TURN_CAP,
    Guards,
    RunnerError,
)
from .params import _action, model_refusal, validate_params
from .results import Handler, StepError, StepResult
from .state import StateMixin
from .tools import ToolsMixin

#: A request the contract checker rejects is not sent; the problem is the finding's own words.
NOT_SENT = gettext_noop("Not sent: %(problem)s")
#: A stop_reason that ends the loop, with the catalogue's label for what to do.
STOP_REASON_ENDED = gettext_noop("stop_reason %(stop_reason)s: %(label)s.")
#: One wording wherever a run is stopped by hand (the sandbox and the job worker use it too).
STOPPED_BY_LEARNER = gettext_noop("Stopped by the learner.")
#: An answer that could not be used: the shape check's own words, or Python's (quoted).
UNUSABLE = gettext_noop("%(detail)s Nothing was added to the run; step again.")
UNUSABLE_SHAPE = gettext_noop("%(problem)s Nothing was added to the run; step again.")
UNREADABLE = gettext_noop(
    "The API's answer could not be read (%(error)s). Nothing was added to the run; step again."
)


class Run(GuardsMixin, ToolsMixin, StateMixin):
    """One live loop: its parameters, the turns so far and the guards that bound it."""

    @classmethod
    def new(
        cls,
        client: Any,
        *,
        model: str,
        max_tokens: int,
        messages: list[dict[str, Any]],
        system: str | None = None,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: dict[str, Any] | None = None,
        thinking: dict[str, Any] | None = None,
        guards: Guards | Mapping[str, int] | None = None,
        tool_mode: str = "automatic",
        handlers: Mapping[str, Handler] | None = None,
        meta: dict[str, Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> Run:
        """A run that has not called the API yet; bad parameters raise RunnerError."""
        params: dict[str, Any] = {"model": model, "max_tokens": max_tokens}
        if system:
            params["system"] = system
        if tools:
            params["tools"] = copy.deepcopy(list(tools))
        if tool_choice is not None:
            params["tool_choice"] = tool_choice
        if thinking is not None:
            params["thinking"] = thinking
        validate_params(params)
        if tool_mode not in TOOL_MODES:
            raise RunnerError("tool_mode must be 'automatic' or 'manual'.")
        if not isinstance(messages, list) or not messages:
            raise RunnerError("messages must hold at least the user's first message.")
        problem = model_refusal({**params, "messages": messages})
        if problem:
            raise RunnerError(problem)
        return cls(
            client,
            params=params,
            messages=copy.deepcopy(messages),
            guards=Guards.from_dict(guards),
            tool_mode=tool_mode,
            handlers=handlers,
            meta=meta,
            clock=clock,
        )

    # stepping -------------------------------------------------------------------------------

    def step(
        self,
        *,
        tool_results: Mapping[str, Mapping[str, Any]] | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> StepResult:
        """Exactly one API call (or none, when the run is over or a guard trips first)."""
        if self.ended_by:
            if tool_results:
                raise RunnerError.worded(gettext_noop("The run has ended; fork it to go on."))
            return self._result("ended")
        pending = self.pending_tool_uses
        if tool_results is not None:
            if not pending:
                raise RunnerError.worded(gettext_noop("No tool call is waiting for a result."))
            self._accept_results(pending, tool_results)
        elif pending:
            if self.tool_mode == "manual":
                names = ", ".join(f"{b['id']} ({b['name']})" for b in pending)
                raise RunnerError.worded(
                    gettext_noop("Waiting for the results of %(calls)s."), {"calls": names}
                )
            self._run_tools()
        if self._trip_guards(before_call=True):
            return self._result("ended")
        if self.client is None:
            raise RunnerError.worded(gettext_noop("Live mode is off: no API client is configured."))
        request = self.next_request()
        finding = self._preflight_finding(request)
        if finding is not None:
            return self._record_error(
                StepError.worded(
                    "invalid_request", NOT_SENT, {"problem": finding}, step=len(self.turns)
                )
            )
        import anthropic  # the SDK's errors; imported on first use (agentloop/sdk.py)

        left = self.guards.wall_clock_s - self.active_ms / 1000
        started = self.clock()
        try:
            message = self._call(request, on_text, timeout=max(min(left, CALL_TIMEOUT_S), 1.0))
        except anthropic.APIError as exc:
            error = describe_error(exc, secret=getattr(self.client, "api_key", None))
            return self._failed_call(error, started)
        except Exception as exc:  # an answer that can't be read: an error step, never a crash
            return self._failed_call(self._unreadable(exc), started)
        response = message if isinstance(message, dict) else None
        if response is None:
            try:
                response = _dump(message)
            except Exception as exc:
                return self._failed_call(self._unreadable(exc), started)
        phrase = runner_checks.problem_phrase(response)
        if phrase:
            problem = i18n.english(phrase.text, phrase.params)
            return self._failed_call(
                self._unreadable(runner_checks.ResponseError(problem, phrase=phrase)), started
            )
        elapsed = self._ms_since(started)
        self.active_ms += elapsed
        turn: dict[str, Any] = {
            "response": response,
            "tool_results": [],
            "elapsed_ms": elapsed,
        }
        if self.overrides:
            turn["request_overrides"] = copy.deepcopy(self.overrides)
        self.turns.append(turn)
        self.contexts.append(copy.deepcopy(self.context))
        return self._after_response(turn)

    def run_to_end(
        self, *, on_text: Callable[[str], None] | None = None, max_steps: int | None = None
    ) -> list[StepResult]:
        """Step until the run ends, a call fails, or manual results are due."""
        results = []
        limit = max_steps if max_steps is not None else TURN_CAP + 1
        for _ in range(limit):
            if self.status != "ready":
                break
            result = self.step(on_text=on_text)
            results.append(result)
            if result.kind != "response":
                break
        return results

    def stop(self, reason: str = STOPPED_BY_LEARNER) -> None:
        """End the run at the caller's request (recorded as ended_by "user"); ``reason`` is
        kept as a message id too (a text marked for translation is worded in the reader's
        language; any other text reads as written)."""
        if not self.ended_by:
            self._end_with("user", reason, {})

    # internals ------------------------------------------------------------------------------

    def _unreadable(self, exc: Exception) -> StepError:
        """An answer the runner could not use, in words (no Python internals, no key)."""
        keys = (getattr(self.client, "api_key", None), os.environ.get("ANTHROPIC_API_KEY"))
        values: dict[str, Any]
        if isinstance(exc, runner_checks.ResponseError):
            detail = str(exc)
            if exc.phrase is not None:  # the shape check's words, worded when read
                template, values = UNUSABLE_SHAPE, {"problem": exc.phrase}
            else:  # the bounded parser's words, as they are
                template, values = UNUSABLE, {"detail": detail}
        else:
            why = str(exc).strip() or "the answer ended early or had an unexpected shape"
            error = redact(f"{type(exc).__name__}: {why}", *keys)  # Python's words, quoted
            detail = f"The API's answer could not be read ({error})."
            template, values = UNREADABLE, {"error": error}
        text = redact(f"{detail[:400]} Nothing was added to the run; step again.", *keys)
        if len(detail) > 400:  # cut short: only the English, as it was
            return StepError(kind="bad_response", message=text)
        return StepError(kind="bad_response", message=text, msg=i18n.dump(template, values))

    def _failed_call(self, error: StepError, started: float) -> StepResult:
        self.active_ms += self._ms_since(started)
        result = self._record_error(StepError(**{**error.to_dict(), "step": len(self.turns)}))
        if self._trip_guards(before_call=True):
            result = self._result("ended", error=result.error)
        return result

    def _call(self, request: dict[str, Any], on_text: Any, *, timeout: float) -> Any:
        if on_text is None:  # the raw body, through the bounded parser and the shape check
            raw = self.client.messages.with_raw_response.create(**request, timeout=timeout)
            return runner_checks.read_body(raw.http_response.content)
        with self.client.messages.stream(**request, timeout=timeout) as stream:
            for text in stream.text_stream:
                on_text(text)
            return stream.get_final_message()

    def _preflight(self, request: dict[str, Any]) -> str | None:
        """The contract checker's first API-rejected problem with this request, if any (in
        English: a fork raises it as a RunnerError)."""
        finding = self._preflight_finding(request)
        return StepError.worded("", NOT_SENT, {"problem": finding}).message if finding else None

    def _preflight_finding(self, request: dict[str, Any]) -> contract.Finding | None:
        findings = contract.check(
            request["messages"],
            tools=request.get("tools"),
            tool_choice=request.get("tool_choice"),
            thinking=request.get("thinking"),
            responses=[t["response"] for t in self.turns],
            params=request,
            api_version=API_VERSION,
        )
        errors = [f for f in findings if f.is_error]
        return errors[0] if errors else None

    def _after_response(self, turn: dict[str, Any]) -> StepResult:
        index = len(self.turns) - 1
        response = turn["response"]
        action = _action(response)
        stop_reason = response.get("stop_reason")
        ran: list[dict[str, Any]] = []
        if action is None:
            self._end_with(
                "stop_reason",
                gettext_noop("stop_reason %(stop_reason)s is not one the loop knows."),
                {"stop_reason": repr(stop_reason)},
            )
        elif action == "retry_with_more_tokens":
            current = self.effective_params["max_tokens"]
            larger = min(current * RETRY_FACTOR, MAX_TOKENS_CAP)
            if index and _action(self.turns[index - 1]["response"]) == action:
                self._end_with(
                    "stop_reason",
                    gettext_noop(
                        "max_tokens cut a tool_use off again after a retry with max_tokens "
                        "%(max_tokens)s; the cut-off call was not run."
                    ),
                    {"max_tokens": current},
                )
            elif larger <= current:
                self._end_with(
                    "stop_reason",
                    gettext_noop(
                        "max_tokens cut a tool_use off at this server's cap (%(cap)s); the "
                        "cut-off call was not run."
                    ),
                    {"cap": MAX_TOKENS_CAP},
                )
            else:
                self.overrides["max_tokens"] = larger
                self._trip_guards(before_call=True)
        elif not catalogue.NEXT_ACTIONS[action].continues:
            self._end_with(
                "stop_reason",
                STOP_REASON_ENDED,
                {
                    "stop_reason": str(stop_reason),
                    "label": Phrase(catalogue.NEXT_ACTIONS[action].label),
                },
            )
        elif (
            not self._trip_guards(before_call=False)
            and action == "run_tools"
            and self.tool_mode == "automatic"
        ):
            ran = self._run_tools()
            self._trip_guards(before_call=True)
        return self._result("response", turn=index, action=action, tool_results=ran)
