"""The reference loop shown beside each step, with the lines of every branch marked."""

from functools import cache

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

# (line, branch) — branch is the stop_reason whose handling the line belongs to, or "" for
# lines that run on every turn. The stepper highlights the branch of the current step.
REFERENCE_LOOP: list[tuple[str, str]] = [
    ('messages = [{"role": "user", "content": task}]', ""),
    ("for turn in range(MAX_TURNS):            # a safety net, not the way out", ""),
    ("    response = client.messages.create(model=MODEL, max_tokens=budget,", ""),
    ("                                      tools=TOOLS, messages=messages)", ""),
    ("    match response.stop_reason:", ""),
    ('        case "tool_use":', "tool_use"),
    ('            messages.append({"role": "assistant", "content": response.content})', "tool_use"),
    (
        '            results = [run_tool(b) for b in response.content if b.type == "tool_use"]',
        "tool_use",
    ),
    (
        '            messages.append({"role": "user", "content": results})  # one message',
        "tool_use",
    ),
    ('        case "pause_turn":', "pause_turn"),
    (
        '            messages.append({"role": "assistant", "content": response.content})',
        "pause_turn",
    ),
    ("            # no extra user message: call again with the same tools", "pause_turn"),
    ('        case "max_tokens" if response.content[-1].type == "tool_use":', "max_tokens_tool"),
    (
        "            budget *= 2              # the call was cut off: never run it",
        "max_tokens_tool",
    ),
    ('        case "max_tokens" | "model_context_window_exceeded":', "truncated"),
    ("            return handle_truncation(response)", "truncated"),
    ('        case "refusal":', "refusal"),
    ("            return handle_refusal(response)   # don't resend it unchanged", "refusal"),
    ('        case "stop_sequence":', "stop_sequence"),
    ("            return handle_marker(response.stop_sequence, response)", "stop_sequence"),
    ('        case "end_turn":', "end_turn"),
    ("            return response                   # done: stop_reason says so", "end_turn"),
    ("raise TurnCapReached(turn)                  # escalate to a human", "cap"),
]


def branch_for(stop_reason: str | None, action: str | None) -> str:
    if action == "retry_with_more_tokens":
        return "max_tokens_tool"
    if stop_reason in ("max_tokens", "model_context_window_exceeded"):
        return "truncated"
    return stop_reason or ""


def listing(stop_reason: str | None, action: str | None, capped: bool = False) -> list[dict]:
    active = "cap" if capped else branch_for(stop_reason, action)
    return [
        {"number": i + 1, "text": text, "active": bool(branch) and branch == active}
        for i, (text, branch) in enumerate(REFERENCE_LOOP)
    ]


def listing_html(stop_reason: str | None, action: str | None, capped: bool = False) -> SafeString:
    """The listing's lines as the decision panel shows them (a ``<span class="line">`` each,
    the branch's marked ``is-active``), written once per branch instead of a template loop of
    23 lines on every step page."""
    active = "cap" if capped else branch_for(stop_reason, action)
    # an uploaded run's own stop_reason marks no line: one string for all of them, so a
    # visitor's made-up values never add to what is kept
    return _listing_html(active if active in _BRANCHES else "")


_BRANCHES = {branch for _, branch in REFERENCE_LOOP if branch}


@cache  # one per branch: a dozen strings
def _listing_html(active: str) -> SafeString:
    spans = (
        f'<span class="line{" is-active" if branch and branch == active else ""}">'
        f"{escape(text)}</span>"
        for text, branch in REFERENCE_LOOP
    )
    return mark_safe("".join(spans))  # noqa: S308 - our own lines, escaped
