"""Recorded agent loops ("loopcraft.transcript/1"): parse, validate, replay, serialise.

A transcript keeps every response exactly as the API returned it. What the application sent
at each turn is not stored but derived by replaying the loop with the catalogue's next actions
(the Messages API is stateless: every request carries the whole history):

* turn 0 sends the initial ``messages``;
* after ``run_tools`` the application appends the assistant content unchanged and one user
  message holding the turn's ``tool_results``;
* after ``resend_paused`` it appends the assistant content only (no "continue" message);
* after ``retry_with_more_tokens`` it appends nothing: the same messages go out again, with the
  turn's ``request_overrides`` (for example a larger ``max_tokens``);
* any other stop_reason ends the run, so a later turn is a divergence for the checker.

A turn that logged what was really sent (``messages_sent``) is taken at its word; where that
disagrees with the replay, the disagreement is recorded for :mod:`contract` to report, never
raised. Every problem with the input itself raises one exception type, :class:`TranscriptError`.

Sources: https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons and
https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls.

One module per concern: limits, errors, blocks, model, parsing, replay, rawlog. Every name
the single module had is re-exported here, so ``from studyapp.agentloop.transcript import X``
keeps working. The names that depend on the SDK's types (``BLOCK_MODELS``,
``SDK_STOP_REASONS``, ``REQUEST_BLOCK_TYPES``, ``_MIN_FIELDS``) are read on first use, so that
importing this package does not import the SDK."""

from typing import TYPE_CHECKING, Any

from . import limits
from .blocks import (  # noqa: F401
    Block,
    _block_type,
    _check_min_fields,
    _parse_response,
    _validate_message,
    _validate_messages,
    _validate_params,
    _validate_request_block,
)
from .errors import (  # noqa: F401
    _TYPE_WORDS,
    TranscriptError,
    _condense,
    _describe,
    _err,
    _expect,
    _is_branch_label,
    _kind,
    _loc_path,
    _short,
    join_path,
)
from .limits import (  # noqa: F401
    _META,
    _SLUG_RE,
    _TOKEN_RE,
    _TURN_KEYS,
    CAP_ENDINGS,
    FORMAT,
    GUARD_ENDINGS,
    MAX_BYTES,
    MAX_DEPTH,
    MAX_TURNS,
    REQUEST_PARAMS,
    TOOL_RESULT_CONTENT_TYPES,
    _as_text,
    _loads,
    _reject_constant,
    _text_depth_ok,
    _too_big,
    block_models,
    check_depth,
    loads_limited,
    min_fields,
    request_block_types,
    sdk_stop_reasons,
)
from .model import (  # noqa: F401
    Divergence,
    Transcript,
    Turn,
)
from .parsing import (  # noqa: F401
    _parse_turn,
    parse_transcript,
)
from .rawlog import (  # noqa: F401
    _entry_path,
    _from_pairs,
    _loads_jsonl,
    _results_from,
    _single_message,
    parse_raw_log,
    parse_upload,
)
from .replay import (  # noqa: F401
    _action,
    _next_messages,
    _strip,
    first_difference,
    normalize_message,
    normalize_messages,
    replay,
)

__all__ = [
    "BLOCK_MODELS",
    "Block",
    "CAP_ENDINGS",
    "Divergence",
    "FORMAT",
    "GUARD_ENDINGS",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_TURNS",
    "REQUEST_BLOCK_TYPES",
    "REQUEST_PARAMS",
    "SDK_STOP_REASONS",
    "TOOL_RESULT_CONTENT_TYPES",
    "Transcript",
    "TranscriptError",
    "Turn",
    "_META",
    "_MIN_FIELDS",
    "_SLUG_RE",
    "_TOKEN_RE",
    "_TURN_KEYS",
    "_TYPE_WORDS",
    "_action",
    "_as_text",
    "_block_type",
    "_check_min_fields",
    "_condense",
    "_describe",
    "_entry_path",
    "_err",
    "_expect",
    "_from_pairs",
    "_is_branch_label",
    "_kind",
    "_loads",
    "_loads_jsonl",
    "_loc_path",
    "_next_messages",
    "_parse_response",
    "_parse_turn",
    "_reject_constant",
    "_results_from",
    "_short",
    "_single_message",
    "_strip",
    "_text_depth_ok",
    "_too_big",
    "_validate_message",
    "_validate_messages",
    "_validate_params",
    "_validate_request_block",
    "check_depth",
    "first_difference",
    "join_path",
    "loads_limited",
    "normalize_message",
    "normalize_messages",
    "parse_raw_log",
    "parse_transcript",
    "parse_upload",
    "block_models",
    "min_fields",
    "replay",
    "request_block_types",
    "sdk_stop_reasons",
]

if TYPE_CHECKING:
    from .limits import _MIN_FIELDS, BLOCK_MODELS, REQUEST_BLOCK_TYPES, SDK_STOP_REASONS


def __getattr__(name: str) -> Any:
    """The names read from the SDK on first use (see ``limits.__getattr__``)."""
    if name in limits._LAZY:
        return getattr(limits, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
