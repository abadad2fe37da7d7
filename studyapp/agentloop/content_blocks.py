"""Content blocks: who produces or runs each one, and what the loop does with it."""

from __future__ import annotations

from dataclasses import dataclass

from .i18n import gettext_noop


@dataclass(frozen=True)
class BlockInfo:
    type: str
    runs_it: str  # who executes it (or "nobody": it is data)
    loop_does: str


BLOCKS: dict[str, BlockInfo] = {
    b.type: b
    for b in [
        BlockInfo(
            "text",
            gettext_noop("nobody: it is Claude's words"),
            gettext_noop(
                "Show or keep it; it never decides whether the loop continues (stop_reason does)."
            ),
        ),
        BlockInfo(
            "tool_use",
            gettext_noop(
                "your application (a client tool, including Anthropic-schema bash and text editor)"
            ),
            gettext_noop(
                "Run it and answer with a tool_result carrying the same id in the next user "
                "message."
            ),
        ),
        BlockInfo(
            "server_tool_use",
            gettext_noop("Anthropic's servers (web search, web fetch, code execution)"),
            gettext_noop(
                "Nothing to run and no tool_result to send; its result block comes from the API."
            ),
        ),
        BlockInfo(
            "web_search_tool_result",
            gettext_noop("Anthropic's servers produced it"),
            gettext_noop(
                "Send it back unchanged in later requests; an error inside it is data, not an "
                "exception."
            ),
        ),
        BlockInfo(
            "thinking",
            gettext_noop("nobody: it is Claude's reasoning, with an opaque signature"),
            gettext_noop(
                "Pass it back complete and unmodified with the tool_use of the same turn."
            ),
        ),
        BlockInfo(
            "redacted_thinking",
            gettext_noop("nobody: encrypted reasoning"),
            gettext_noop("Pass its data back unchanged, like a thinking block."),
        ),
    ]
}
