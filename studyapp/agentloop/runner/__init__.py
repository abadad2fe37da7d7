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

Texts the runner writes (``ended_reason``, ``StepError.message``, ``str(RunnerError)``) are
English whatever language is active, and each also comes as a message id with its values
(``run.ended_reason_msg``, ``StepError.msg``, ``RunnerError.msg``: ``i18n.dump`` data, None where
there is none), which the page words in its own language (``i18n.load``; the sandbox's
``views_live.stored_words``). The API's own error text is a value, never translated.

Tool handlers are ``handler(tool_input: dict, context: dict) -> ToolOutput``; ``context`` is a
JSON-safe dict kept in the run state (the demo records the verified customer there).

Where things live (each module one concern; import from this package, not from its modules):
``limits`` (hard caps, RunnerError, Guards), ``results`` (ToolOutput, StepError, StepResult,
structured_error), ``params`` (request checks, model_refusal, conversation), ``client``
(make_client, describe_error), ``base`` (a run's state and read-only views), ``guarding``,
``tools`` and ``state`` (the mixins :class:`Run` is built from: guards, tool execution,
serialisation), ``core`` (:class:`Run`: the step state machine), ``forks`` (:func:`fork`).
Imports go one way: limits -> results -> params/client -> base -> mixins -> core -> forks.
"""

from __future__ import annotations

from .base import RunBase
from .client import (
    _ERROR_KINDS,
    _ERROR_WORDS,
    _dump,
    api_key_configured,
    describe_error,
    make_client,
)
from .core import STOPPED_BY_LEARNER, Run
from .forks import _json_safe_changes, _run_end, fork
from .guarding import GuardsMixin
from .limits import (
    _GUARD_LIMITS,
    API_VERSION,
    BOUND_PARTS,
    CALL_TIMEOUT_S,
    FORK_CHANGES,
    IDENTICAL_CALLS_CAP,
    MAX_ERRORS_KEPT,
    MAX_RESULT_CHARS,
    MAX_TOKENS_CAP,
    RETRY_FACTOR,
    STATE_FORMAT,
    THINKING_TYPES,
    TOKEN_BUDGET_CAP,
    TOOL_MODES,
    TURN_CAP,
    WALL_CLOCK_CAP_S,
    Guards,
    RunnerError,
)
from .params import (
    _action,
    _approx_tokens,
    _thinking_budget,
    _tokens,
    _tool_uses,
    conversation,
    model_refusal,
    validate_params,
)
from .results import (
    Handler,
    StepError,
    StepResult,
    ToolOutput,
    _result_block,
    grouped,
    structured_error,
)
from .state import StateMixin
from .tools import ToolsMixin

__all__ = [
    "STOPPED_BY_LEARNER",
    "API_VERSION",
    "BOUND_PARTS",
    "CALL_TIMEOUT_S",
    "FORK_CHANGES",
    "IDENTICAL_CALLS_CAP",
    "MAX_ERRORS_KEPT",
    "MAX_RESULT_CHARS",
    "MAX_TOKENS_CAP",
    "RETRY_FACTOR",
    "STATE_FORMAT",
    "THINKING_TYPES",
    "TOKEN_BUDGET_CAP",
    "TOOL_MODES",
    "TURN_CAP",
    "WALL_CLOCK_CAP_S",
    "_ERROR_KINDS",
    "_ERROR_WORDS",
    "_GUARD_LIMITS",
    "GuardsMixin",
    "Guards",
    "Handler",
    "Run",
    "RunBase",
    "RunnerError",
    "StateMixin",
    "StepError",
    "StepResult",
    "ToolOutput",
    "ToolsMixin",
    "_action",
    "_approx_tokens",
    "_dump",
    "_json_safe_changes",
    "_result_block",
    "_run_end",
    "_thinking_budget",
    "_tokens",
    "_tool_uses",
    "api_key_configured",
    "conversation",
    "describe_error",
    "fork",
    "grouped",
    "make_client",
    "model_refusal",
    "structured_error",
    "validate_params",
]
