"""The live loop: one Messages API call per step, the catalogue's rules, guards (no Django here).

Public API (stable: the /sandbox/live/ UI and ``manage.py recordloop`` are built on it)
------------------------------------------------------------------------------------------
::

    from studyapp.agentloop import demo, runner

    client = runner.make_client()              # RunnerError when ANTHROPIC_API_KEY is unset
    run = runner.Run.new(
        client,
        model="claude-haiku-5-5", max_tokens=1024,
        tool_choice={"type": "auto"},          # optional; catalogue.validate_tool_choice checks it
        thinking=None,                         # or what the model accepts: models.thinking_on()
        guards=runner.Guards(max_turns=12),    # each limit under a hard cap (*_CAP constants)
        tool_mode="automatic",                 # or "manual": the caller supplies every result
        handlers=demo.make_handlers(),
        **demo.run_params("refund-25-days"),   # system, tools, messages, meta
    )                                          # bad parameters: RunnerError before any API call
    result = run.step(on_text=None, tool_results=None)   # exactly one API call -> StepResult
    results = run.run_to_end(on_text=None)     # steps until ended, an error, or manual results due

    run.status           # "ready" | "awaiting_tool_results" | "ended"
    run.pending_tool_uses, run.suggested_results()   # manual mode: calls waiting, handler output
    run.step(tool_results={"toolu_..": {"content": "...", "is_error": True}})  # manual: send them
    run.next_request()   # the exact request body the next step will send
    run.turns, run.errors, run.usage, run.active_ms, run.ended_by, run.ended_reason, run.guards
    run.stop("Stopped by the learner.")
    state = run.to_state()                     # JSON-safe dict (keep it in the database)
    run = runner.Run.from_state(client, state, handlers)  # client may be None: read-only
    runner.fork(state, at_step=2, tool_choice={"type": "any"}, guards={...})  # -> a new state
    runner.model_refusal(request)  # why the chosen model would reject a request body, or None

Model rules (``models.check_request``, API version ``API_VERSION`` as the SDK sends it): a
request the chosen model rejects (forced tool_choice on Sonnet 5.5, manual thinking on Opus 5.5,
a retired model, ...) is refused before anything is sent: ``Run.new`` and ``fork`` raise
RunnerError, and a step returns a StepError without calling the API. The message names the
model, the rule and what to do instead.
    run.to_transcript()  # "loopcraft.transcript/1": parse_transcript(..., strict=True) accepts it

Rules applied after each response (``catalogue.next_action``):

* ``run_tools``: the assistant content is appended exactly as received (thinking blocks and
  signatures untouched); every client ``tool_use`` is run (automatic) or waits for the caller
  (manual); all results go in ONE user message, tool_result blocks only, in tool_use order.
* ``resend_paused``: the paused content is appended and the next step calls again with the same
  tools; no "continue" message is added.
* ``retry_with_more_tokens``: the cut-off call is not run; the next step resends the same
  messages once with a larger ``max_tokens`` (recorded as the turn's ``request_overrides``).
  A second cut-off in a row ends the run.
* any other stop_reason ends the run (``ended_by="stop_reason"``).

Guards (:class:`Guards`; a tripped guard ends the run with ``ended_by``/``ended_reason``):
``max_turns`` (API calls), ``token_budget`` (input + output tokens across calls; checked before
each call against an estimate of the next call, so the budget is not overshot),
``wall_clock_s`` (time the runner itself spends calling the API and running tools: a
step-by-step run waits on a person between steps, and that is not the agent running on; each
call's timeout is the time left), ``max_identical_calls`` (how many times one tool may be
requested with the same input; the next identical request ends the run and is not run).

API errors (``anthropic.APIStatusError`` incl. 401/429/529, ``APITimeoutError``,
``APIConnectionError``) are caught per step: ``StepResult.error`` says what happened in plain
words, the run's history is unchanged, and stepping again retries. An answer that can't be
used (not JSON, over the bounded parser's limits, content not a list, a tool_use whose input is
not an object: ``runner_checks.response_problem``) is a StepError of kind ``bad_response`` the
same way; no such answer is ever added to a run. Messages are passed through ``redact()``.
Text already passed to ``on_text`` by a failed streaming call is not part of the run.

Tool handlers are ``handler(tool_input: dict, context: dict) -> ToolOutput``; ``context`` is a
JSON-safe dict kept in the run state (the demo records the verified customer there).
"""

from __future__ import annotations

import copy
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import anthropic
from anthropic._constants import ANTHROPIC_API_VERSION

from . import catalogue, contract, runner_checks, transcript
from . import models as model_catalogue
from .redact import redact

STATE_FORMAT = "loopcraft.runstate/1"
API_VERSION = ANTHROPIC_API_VERSION  # the anthropic-version header the installed SDK sends

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
    """A request, state or input the runner refuses, with the reason in one sentence."""


# --- guards ------------------------------------------------------------------------------------

_GUARD_LIMITS = {
    "max_turns": (1, TURN_CAP, "API calls"),
    "token_budget": (1_000, TOKEN_BUDGET_CAP, "tokens"),
    "wall_clock_s": (1, WALL_CLOCK_CAP_S, "seconds"),
    "max_identical_calls": (1, IDENTICAL_CALLS_CAP, "identical calls"),
}


@dataclass(frozen=True)
class Guards:
    """The run's limits; each must lie within the hard caps above."""

    max_turns: int = 12
    token_budget: int = 60_000
    wall_clock_s: int = 180
    max_identical_calls: int = 2

    def __post_init__(self) -> None:
        for name, (low, high, unit) in _GUARD_LIMITS.items():
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise RunnerError(f"{name} must be a whole number, not {value!r}.")
            if not low <= value <= high:
                raise RunnerError(
                    f"{name} must be between {low:,} and {high:,} {unit} (got {value:,})."
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


# --- results of a step -------------------------------------------------------------------------


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


# --- helpers -----------------------------------------------------------------------------------


def api_key_configured() -> bool:
    """Whether the SDK will find an API key in the environment."""
    return bool(os.environ.get("ANTHROPIC_API_KEY", "").strip())


def make_client(*, max_retries: int = 0, api_key: str | None = None) -> anthropic.Anthropic:
    """The SDK client, configured by ANTHROPIC_API_KEY (or ``api_key``: a visitor's own key) and
    ANTHROPIC_BASE_URL (tests patch this)."""
    if api_key:
        return anthropic.Anthropic(api_key=api_key, max_retries=max_retries)
    if not api_key_configured():
        raise RunnerError("Live mode is off: ANTHROPIC_API_KEY is not set on the server.")
    return anthropic.Anthropic(max_retries=max_retries)


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


def _action(response: dict[str, Any]) -> str | None:
    try:
        return catalogue.next_action(response)
    except ValueError:
        return None


def _tool_uses(response: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in response.get("content", []) if b.get("type") == "tool_use"]


def _tokens(usage: Any) -> tuple[int, int]:
    """(input incl. cache reads and writes, output) of one response's usage."""
    usage = usage if isinstance(usage, dict) else {}

    def get(name: str) -> int:
        value = usage.get(name)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    return (
        get("input_tokens") + get("cache_creation_input_tokens") + get("cache_read_input_tokens"),
        get("output_tokens"),
    )


def _approx_tokens(value: Any) -> int:
    # A deliberate over-estimate (about 3 characters a token) for text not yet sent.
    return len(json.dumps(value, ensure_ascii=False)) // 3 + 1


def conversation(messages: list[dict[str, Any]], turns: list[dict[str, Any]]) -> list[dict]:
    """The messages the loop sends after ``turns``: the same rules transcript.replay derives."""
    out = list(messages)
    for turn in turns:
        if _action(turn["response"]) in ("run_tools", "resend_paused"):
            out.append({"role": "assistant", "content": turn["response"]["content"]})
            if turn.get("tool_results"):
                out.append({"role": "user", "content": turn["tool_results"]})
    return out


def _dump(message: Any) -> dict[str, Any]:
    """A response as JSON: None fields dropped, so content blocks go back in the shape the API
    accepts (a text block's ``citations: null`` is not a request field); stop_sequence kept."""
    # a malformed answer is reported by response_problem, not by pydantic's warnings
    data = message.model_dump(mode="json", exclude_none=True, warnings=False)
    data.setdefault("stop_sequence", getattr(message, "stop_sequence", None))
    return data


def _thinking_budget(thinking: Any) -> bool:
    return isinstance(thinking, dict) and thinking.get("type") == "enabled"


def validate_params(params: dict[str, Any]) -> dict[str, Any]:
    """Check request parameters before anything is sent; return them or raise RunnerError."""
    model = params.get("model")
    if not isinstance(model, str) or not model.strip() or len(model) > 100:
        raise RunnerError("model must be a model name such as claude-haiku-5-5.")
    max_tokens = params.get("max_tokens")
    if not isinstance(max_tokens, int) or isinstance(max_tokens, bool):
        raise RunnerError("max_tokens must be a whole number.")
    if not 1 <= max_tokens <= MAX_TOKENS_CAP:
        raise RunnerError(f"max_tokens must be between 1 and {MAX_TOKENS_CAP:,} on this server.")
    system = params.get("system")
    if system is not None and not isinstance(system, str):
        raise RunnerError("system must be text.")
    tools = params.get("tools") or []
    if not isinstance(tools, list) or not all(
        isinstance(t, dict) and isinstance(t.get("name"), str) for t in tools
    ):
        raise RunnerError("tools must be a list of tool definitions with a name.")
    thinking = params.get("thinking")
    if thinking is not None:
        if not isinstance(thinking, dict) or thinking.get("type") not in THINKING_TYPES:
            raise RunnerError(
                'thinking must be {"type": "enabled", "budget_tokens": N}, {"type": "adaptive"}, '
                '{"type": "disabled"} or {"type": "between_tools"}.'
            )
        budget = thinking.get("budget_tokens")
        if (
            _thinking_budget(thinking)
            and isinstance(budget, int)
            and not isinstance(budget, bool)
            and budget >= max_tokens
        ):
            raise RunnerError(
                f"thinking.budget_tokens ({budget:,}) must be below max_tokens ({max_tokens:,})."
            )
    tool_choice = params.get("tool_choice")
    if tool_choice is not None:
        try:
            catalogue.validate_tool_choice(
                tool_choice,
                tool_names={t["name"] for t in tools},
                extended_thinking=_thinking_budget(thinking),
            )
        except catalogue.ToolChoiceError as exc:
            raise RunnerError(str(exc)) from None
    # The contract checker holds the remaining request-level rules (budget_tokens >= 1,024, ...).
    for finding in contract.check([], tools=tools, tool_choice=tool_choice, thinking=thinking):
        if finding.is_error:
            raise RunnerError(finding.message)
    return params


def model_refusal(request: dict[str, Any]) -> str | None:
    """Why the request's model would reject this request body (one sentence), or None.

    Retired models, forced tool_choice, thinking modes, prefill and sampling, by
    ``models.check_request`` under the API version the SDK sends."""
    for v in model_catalogue.check_request(request.get("model"), request, api_version=API_VERSION):
        if v.is_error:
            return v.sentence
    return None


_ERROR_KINDS = {
    400: "invalid_request",
    401: "authentication",
    403: "permission",
    404: "not_found",
    413: "request_too_large",
    429: "rate_limit",
    529: "overloaded",
}
_ERROR_WORDS = {
    "invalid_request": "The API rejected the request",
    "authentication": "The API key was not accepted; check ANTHROPIC_API_KEY on the server",
    "permission": "The API key may not use this model or feature",
    "not_found": "The API does not know this model or endpoint",
    "request_too_large": "The request is too large for the API",
    "rate_limit": "Rate limited: too many requests or tokens for now. Wait a moment, then step "
    "again",
    "overloaded": "The API is overloaded right now. Step again in a little while",
    "api_error": "The API had an internal error. Step again in a little while",
}


def describe_error(exc: anthropic.APIError, *, secret: str | None = None) -> StepError:
    """A plain-words StepError for an SDK exception (the API key is never part of it)."""
    if isinstance(exc, anthropic.APITimeoutError):
        kind, status, text = "timeout", None, "The API did not answer in time. Step again."
    elif isinstance(exc, anthropic.APIConnectionError):
        kind, status = "connection", None
        text = (
            "Could not connect to the Messages API. Check ANTHROPIC_BASE_URL and the network, "
            "then step again."
        )
    elif isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        kind = _ERROR_KINDS.get(status, "api_error" if status >= 500 else "invalid_request")
        body = exc.body if isinstance(exc.body, dict) else {}
        error = body.get("error") if isinstance(body.get("error"), dict) else {}
        api_type = error.get("type") or kind
        api_message = str(error.get("message") or "")[:300]
        text = f"{_ERROR_WORDS[kind]} (HTTP {status} {api_type})"
        text += f": {api_message}" if api_message else "."
    else:
        kind, status, text = "api_error", None, "The API's answer could not be read. Step again."
    text = redact(text, secret, os.environ.get("ANTHROPIC_API_KEY"))
    retry_after = None
    response = getattr(exc, "response", None)
    if response is not None:
        try:
            retry_after = float(response.headers.get("retry-after", ""))
        except ValueError:
            retry_after = None
    return StepError(kind=kind, message=text, status=status, retry_after=retry_after)


# --- the run -----------------------------------------------------------------------------------

Handler = Callable[[dict[str, Any], dict[str, Any]], ToolOutput]


class Run:
    """One live loop: its parameters, the turns so far and the guards that bound it."""

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

    # construction ---------------------------------------------------------------------------

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

    def suggested_results(self) -> dict[str, dict[str, Any]]:
        """What the handlers would return for the pending calls (nothing is recorded)."""
        context = copy.deepcopy(self.context)
        out = {}
        for block in self.pending_tool_uses:
            output = self._call_handler(block, context)
            out[block["id"]] = {"content": output.content, "is_error": output.is_error}
        return out

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
                raise RunnerError("The run has ended; fork it to go on.")
            return self._result("ended")
        pending = self.pending_tool_uses
        if tool_results is not None:
            if not pending:
                raise RunnerError("No tool call is waiting for a result.")
            self._accept_results(pending, tool_results)
        elif pending:
            if self.tool_mode == "manual":
                names = ", ".join(f"{b['id']} ({b['name']})" for b in pending)
                raise RunnerError(f"Waiting for the results of {names}.")
            self._run_tools()
        if self._trip_guards(before_call=True):
            return self._result("ended")
        if self.client is None:
            raise RunnerError("Live mode is off: no API client is configured.")
        request = self.next_request()
        problem = self._preflight(request)
        if problem is not None:
            return self._record_error(StepError("invalid_request", problem, step=len(self.turns)))
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
        problem = runner_checks.response_problem(response)
        if problem:
            return self._failed_call(
                self._unreadable(runner_checks.ResponseError(problem)), started
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

    def stop(self, reason: str = "Stopped by the user.") -> None:
        """End the run at the caller's request (recorded as ended_by "user")."""
        if not self.ended_by:
            self._end("user", reason)

    # internals ------------------------------------------------------------------------------

    def _unreadable(self, exc: Exception) -> StepError:
        """An answer the runner could not use, in words (no Python internals, no key)."""
        if isinstance(exc, runner_checks.ResponseError):
            detail = str(exc)
        else:
            why = str(exc).strip() or "the answer ended early or had an unexpected shape"
            detail = f"The API's answer could not be read ({type(exc).__name__}: {why})."
        text = redact(
            f"{detail[:400]} Nothing was added to the run; step again.",
            getattr(self.client, "api_key", None),
            os.environ.get("ANTHROPIC_API_KEY"),
        )
        return StepError(kind="bad_response", message=text)

    def _failed_call(self, error: StepError, started: float) -> StepResult:
        self.active_ms += self._ms_since(started)
        result = self._record_error(StepError(**{**error.to_dict(), "step": len(self.turns)}))
        if self._trip_guards(before_call=True):
            result = self._result("ended", error=result.error)
        return result

    def _ms_since(self, started: float) -> int:
        return max(int(round((self.clock() - started) * 1000)), 0)

    def _call(self, request: dict[str, Any], on_text: Any, *, timeout: float) -> Any:
        if on_text is None:  # the raw body, through the bounded parser and the shape check
            raw = self.client.messages.with_raw_response.create(**request, timeout=timeout)
            return runner_checks.read_body(raw.http_response.content)
        with self.client.messages.stream(**request, timeout=timeout) as stream:
            for text in stream.text_stream:
                on_text(text)
            return stream.get_final_message()

    def _preflight(self, request: dict[str, Any]) -> str | None:
        """The contract checker's first API-rejected problem with this request, if any."""
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
        return f"Not sent: {errors[0].message}" if errors else None

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

    def _after_response(self, turn: dict[str, Any]) -> StepResult:
        index = len(self.turns) - 1
        response = turn["response"]
        action = _action(response)
        stop_reason = response.get("stop_reason")
        ran: list[dict[str, Any]] = []
        if action is None:
            self._end("stop_reason", f"stop_reason {stop_reason!r} is not one the loop knows.")
        elif action == "retry_with_more_tokens":
            current = self.effective_params["max_tokens"]
            larger = min(current * RETRY_FACTOR, MAX_TOKENS_CAP)
            if index and _action(self.turns[index - 1]["response"]) == action:
                self._end(
                    "stop_reason",
                    f"max_tokens cut a tool_use off again after a retry with max_tokens "
                    f"{current:,}; the cut-off call was not run.",
                )
            elif larger <= current:
                self._end(
                    "stop_reason",
                    f"max_tokens cut a tool_use off at this server's cap ({MAX_TOKENS_CAP:,}); "
                    "the cut-off call was not run.",
                )
            else:
                self.overrides["max_tokens"] = larger
                self._trip_guards(before_call=True)
        elif not catalogue.NEXT_ACTIONS[action].continues:
            label = catalogue.NEXT_ACTIONS[action].label
            self._end("stop_reason", f"stop_reason {stop_reason}: {label}.")
        elif (
            not self._trip_guards(before_call=False)
            and action == "run_tools"
            and self.tool_mode == "automatic"
        ):
            ran = self._run_tools()
            self._trip_guards(before_call=True)
        return self._result("response", turn=index, action=action, tool_results=ran)

    def _call_handler(self, block: dict[str, Any], context: dict[str, Any]) -> ToolOutput:
        handler = self.handlers.get(block.get("name"))
        if handler is None:
            return structured_error(
                "unknown_tool",
                retryable=False,
                message=f"No tool named {block.get('name')!r} is available.",
                next_step="Use only the tools listed in this request.",
            )
        try:
            output = handler(dict(block.get("input") or {}), context)
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
            raise RunnerError("tool_results must map each tool_use id to its result.")
        ids = [b["id"] for b in pending]
        unknown = [k for k in given if k not in ids]
        if unknown:
            raise RunnerError(f"{unknown[0]} is not one of the calls waiting for a result.")
        results = []
        for block in pending:
            if block["id"] not in given:
                raise RunnerError(f"The result of {block['id']} ({block['name']}) is missing.")
            item = given[block["id"]]
            content = item.get("content", "") if isinstance(item, Mapping) else None
            is_error = item.get("is_error", False) if isinstance(item, Mapping) else None
            if not isinstance(content, str):
                raise RunnerError(f"The result of {block['id']} must be text.")
            if len(content) > MAX_RESULT_CHARS:
                raise RunnerError(
                    f"The result of {block['id']} is {len(content):,} characters; the limit is "
                    f"{MAX_RESULT_CHARS:,}."
                )
            if not isinstance(is_error, bool):
                raise RunnerError(f"is_error of {block['id']} must be true or false.")
            results.append(_result_block(block["id"], content, is_error))
        self.turns[-1]["tool_results"] = results

    def _trip_guards(self, *, before_call: bool) -> bool:
        """End the run if the next call would break a guard; True when one tripped."""
        if self.ended_by:
            return True
        g = self.guards
        calls = len(self.turns)
        if calls >= g.max_turns:
            last = self.turns[-1]["response"].get("stop_reason") if self.turns else None
            self._end(
                "turn_cap",
                f"Turn cap: {calls} API calls made, the limit is {g.max_turns}; the last "
                f"response (stop_reason {last}) still wanted the loop to go on, so the task is "
                "unfinished.",
            )
            return True
        if not before_call:
            repeated = self._repeated_call()
            if repeated:
                self._end("repeated_call", repeated)
                return True
        used = self.usage["total"]
        estimate = self._next_call_estimate()
        if used + estimate > g.token_budget:
            self._end(
                "token_budget",
                f"Token budget: {used:,} of {g.token_budget:,} tokens used, and the next call "
                f"could use about {estimate:,} more (its input plus max_tokens), so it was not "
                "sent.",
            )
            return True
        if self.active_ms >= g.wall_clock_s * 1000:
            self._end(
                "wall_clock",
                f"Wall clock: the run has spent {self.active_ms / 1000:.1f} s calling the API and "
                f"running tools; the limit is {g.wall_clock_s} s.",
            )
            return True
        return False

    def _next_call_estimate(self) -> int:
        max_tokens = self.effective_params["max_tokens"]
        if not self.turns:
            return max_tokens
        last = self.turns[-1]
        sent, out = _tokens(last["response"].get("usage"))
        if self.last_action in ("run_tools", "resend_paused"):
            sent += out + (_approx_tokens(last["tool_results"]) if last["tool_results"] else 0)
        return sent + max_tokens

    def _repeated_call(self) -> str | None:
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
                    f"Repeated call: {block['name']} was requested with identical input in "
                    f"{counts[key]} responses (limit: {limit}); this call was not run."
                )
        return None

    # serialisation --------------------------------------------------------------------------

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
        }
        try:
            return json.loads(json.dumps(state))
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
    ) -> Run:
        """Resume a run saved with :meth:`to_state` (guards are clamped to today's caps)."""
        if not isinstance(state, dict) or state.get("format") != STATE_FORMAT:
            raise RunnerError(f"Not a saved run (expected format {STATE_FORMAT!r}).")
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
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, RunnerError):
                raise
            raise RunnerError(f"The saved run is damaged ({type(exc).__name__}: {exc}).") from None
        if run.tool_mode not in TOOL_MODES or len(run.contexts) != len(run.turns):
            raise RunnerError("The saved run is damaged (tool mode or contexts).")
        if any(
            not isinstance(t, dict) or not isinstance(t.get("response"), dict) for t in run.turns
        ):
            raise RunnerError("The saved run is damaged (turns).")
        return run

    def to_transcript(self) -> dict[str, Any]:
        """The run as a "loopcraft.transcript/1" document (needs at least one turn)."""
        if not self.turns:
            raise RunnerError("Nothing to save yet: the run has made no API call.")
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


def _result_block(tool_use_id: str, content: str, is_error: bool) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": tool_use_id}
    if content:
        block["content"] = content
    block["is_error"] = is_error
    return block


# --- forks -------------------------------------------------------------------------------------


def _run_end(turns: list[dict[str, Any]]) -> tuple[str, str]:
    """How a prefix of turns ends by the loop's own rules ('' when the loop would go on)."""
    if not turns:
        return "", ""
    response = turns[-1]["response"]
    action = _action(response)
    if action is None:
        return "stop_reason", f"stop_reason {response.get('stop_reason')!r} is unknown."
    if action == "retry_with_more_tokens":
        if len(turns) > 1 and _action(turns[-2]["response"]) == action:
            return "stop_reason", "max_tokens cut a tool_use off again after a retry."
        return "", ""
    if not catalogue.NEXT_ACTIONS[action].continues:
        label = catalogue.NEXT_ACTIONS[action].label
        return "stop_reason", f"stop_reason {response.get('stop_reason')}: {label}."
    return "", ""


def fork(state: dict[str, Any], at_step: int, **changes: Any) -> dict[str, Any]:
    """A new run state: the first ``at_step`` turns of ``state``, then the changed parameters.

    ``changes``: model, max_tokens, tool_choice, thinking (None: off), guards, tool_mode. Request
    parameters change through ``request_overrides`` from the fork on, so the kept turns still
    show what they were sent. Raises RunnerError when the change is not allowed or the next
    request would be rejected.
    """
    bound = sorted(set(changes) & set(BOUND_PARTS))
    if bound:
        raise RunnerError(
            f"A fork can't change {bound[0]}: thinking blocks are bound to the system prompt, "
            "tools and every message before them, so newer models reject the edited history "
            'with a 400 ("The block is bound to a different conversation"). Start a new run '
            "instead."
        )
    unknown = sorted(set(changes) - set(FORK_CHANGES))
    if unknown:
        raise RunnerError(f"A fork can change {', '.join(FORK_CHANGES)}; not {unknown[0]!r}.")
    source = Run.from_state(None, state)
    turns = source.turns
    if not isinstance(at_step, int) or isinstance(at_step, bool) or not 0 <= at_step <= len(turns):
        raise RunnerError(f"at_step must be between 0 and {len(turns)} (got {at_step!r}).")
    kept = turns[:at_step]
    if at_step < len(turns):
        overrides = copy.deepcopy(turns[at_step].get("request_overrides") or {})
    else:
        overrides = copy.deepcopy(source.overrides)
    if kept and _action(kept[-1]["response"]) == "retry_with_more_tokens":
        overrides.setdefault(
            "max_tokens", min(source.effective_params["max_tokens"] * RETRY_FACTOR, MAX_TOKENS_CAP)
        )
    for name in ("model", "max_tokens", "tool_choice", "thinking"):
        if name not in changes:
            continue
        value = changes[name]
        if value is None and name == "thinking":
            model = changes.get("model") or source.effective_params["model"]
            off = model_catalogue.thinking_off(model)
            if off is None:
                raise RunnerError(
                    f"{model} cannot turn thinking off: it always thinks (thinking "
                    '{"type": "disabled"} is a 400 there). Keep thinking, or fork on a model that '
                    "can turn it off."
                )
            value = off or None  # {}: leave thinking out of the request
            if value is None:
                if "thinking" in source.params:
                    overrides["thinking"] = None
                else:
                    overrides.pop("thinking", None)
                continue
        elif value is None and name == "tool_choice":
            value = {"type": "auto"}
        if value is None:
            raise RunnerError(f"{name} cannot be empty.")
        if source.params.get(name) == value:
            overrides.pop(name, None)
        else:
            overrides[name] = value
    run = Run.from_state(None, state)
    run.turns = kept
    run.contexts = run.contexts[:at_step]
    run.context = copy.deepcopy(run.contexts[-1]) if run.contexts else {}
    run.overrides = overrides
    run.errors = []
    run.active_ms = sum(int(t.get("elapsed_ms") or 0) for t in kept)
    run.ended_by, run.ended_reason = _run_end(kept)
    if "guards" in changes:
        run.guards = Guards.from_dict(changes["guards"])
    if "tool_mode" in changes:
        if changes["tool_mode"] not in TOOL_MODES:
            raise RunnerError("tool_mode must be 'automatic' or 'manual'.")
        run.tool_mode = changes["tool_mode"]
    validate_params(run.effective_params)
    problem = model_refusal(run.next_request())
    if problem:
        raise RunnerError(problem)
    if not run.ended_by and not run.pending_tool_uses:
        problem = run._preflight(run.next_request())
        if problem:
            raise RunnerError(problem)
    run.meta = {
        **run.meta,
        "forked_from": {"at_step": at_step, "changes": _json_safe_changes(changes)},
    }
    return run.to_state()


def _json_safe_changes(changes: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.to_dict() if isinstance(v, Guards) else v) for k, v in changes.items()}
