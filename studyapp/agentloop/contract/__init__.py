"""The Messages API contract: which histories the API rejects, and what it accepts but is wrong.

:func:`check` looks at one request (its ``messages`` plus ``tools``, ``tool_choice`` and
``thinking``) and, when the earlier responses are given, at how the application treated them.
:func:`check_transcript` runs it on every request a recorded loop sent and adds the lints that
need the whole run (how the loop ended, refusals retried, caps).

Severity ``"error"``: the API would reject the request (HTTP 400, ``invalid_request_error``);
``api_error`` then quotes the API's own text where the fact sheet records it.
Severity ``"lint"``: the API accepts it, but it is wrong by the documentation's standards.

The model of a history used here: the API combines consecutive messages of the same role into
one turn (SDK docstring of ``messages``), so "the next user message" is the run of user messages
right after the assistant turn.

Where things live (each module imports only modules listed above it; from the rest of
:mod:`studyapp.agentloop` the package imports ``catalogue``, ``models`` and ``transcript``):

- ``findings``: the rule registry (``RULES``), severities, ``Finding``, doc links
- ``history``: reading a message history into messages, blocks and same-role turns
- ``responses``: matching assistant messages to the earlier responses they came from
- ``request``: tool_choice, top-level parameters, budget_tokens, the chosen model's rules
- ``tool_results``: every tool_use answered once, results first, in one message
- ``server_tools``: pending server tool calls and paused turns (pause_turn)
- ``thinking``: thinking blocks kept, unmodified, not switched on mid-loop
- ``truncation``: a tool_use cut off by max_tokens is not executed
- ``tool_errors``: failures returned as successes (the ``failure_signal`` heuristic)
- ``check``: :func:`check`, one request through every rule family
- ``run_checks``: :func:`check_transcript`, a recorded loop and its run-level lints
"""

from .check import check
from .findings import (
    DOC_AGENT_LOOP,
    DOC_ERRORS,
    DOC_PARALLEL,
    DOC_WEBSEARCH,
    ERROR,
    LINT,
    RULES,
    Finding,
    Rule,
)
from .run_checks import check_transcript, transcript_api_version
from .tool_errors import failure_signal

__all__ = [
    "DOC_AGENT_LOOP",
    "DOC_ERRORS",
    "DOC_PARALLEL",
    "DOC_WEBSEARCH",
    "ERROR",
    "LINT",
    "RULES",
    "Finding",
    "Rule",
    "check",
    "check_transcript",
    "failure_signal",
    "transcript_api_version",
]
