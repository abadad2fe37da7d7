"""Names in words for what the bank stores as slugs or URLs: traps, concepts, sources.

Pure (no Django), so notes, feedback, the dashboard and the review queue say the same thing.
"""

from __future__ import annotations

from urllib.parse import urlparse

from studyapp.agentloop.i18n import gettext_noop

#: Each distractor family's short name, as a learner would say it.
FAMILY_NAMES: dict[str, str] = {
    "ends-on-text": gettext_noop("Ending on the text"),
    "truncation-as-done": gettext_noop("Truncation taken as done"),
    "pause-as-tool-use": gettext_noop("pause_turn handled like tool_use"),
    "split-results": gettext_noop("Results split or out of place"),
    "wrong-executor": gettext_noop("Wrong idea of who runs the tool"),
    "forced-choice-mixup": gettext_noop("Forced tool_choice mix-up"),
    "mutated-history": gettext_noop("History edited mid-loop"),
    "swallowed-error": gettext_noop("Swallowed error"),
    "prompt-instead-of-code": gettext_noop("Prompt instead of code"),
    "cap-as-control": gettext_noop("Iteration cap as the way out"),
    "retry-blindly": gettext_noop("Blind retry"),
    "invented-api": gettext_noop("Invented API"),
    "over-engineered": gettext_noop("Over-engineered fix"),
    "misread-contract": gettext_noop("Misread API contract"),
    "scripted-flow": gettext_noop("Scripted flow instead of a loop"),
}

#: Titles of the sources the bank cites most; others get a title from their address.
SOURCE_TITLES: dict[str, str] = {
    "https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons": (
        "Claude docs: Stop reasons"
    ),
    "https://docs.claude.com/en/docs/agents-and-tools/tool-use/implement-tool-use": (
        "Claude docs: How to implement tool use (2025)"
    ),
    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls": (
        "Claude docs: Handle tool calls"
    ),
    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/parallel-tool-use": (
        "Claude docs: Parallel tool use"
    ),
    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools": (
        "Claude docs: Define tools"
    ),
    "https://github.com/anthropics/skills/blob/main/skills/claude-api/shared/"
    "tool-use-concepts.md": "Anthropic skills: tool-use concepts",
    "https://platform.claude.com/docs/en/agents-and-tools/tool-use/web-search-tool": (
        "Claude docs: Web search tool"
    ),
    "https://docs.claude.com/en/docs/build-with-claude/extended-thinking": (
        "Claude docs: Extended thinking"
    ),
    "https://code.claude.com/docs/en/agent-sdk/hooks": "Agent SDK docs: Hooks",
    "https://code.claude.com/docs/en/agent-sdk/agent-loop": "Agent SDK docs: The agent loop",
    "https://code.claude.com/docs/en/agent-sdk/python": "Agent SDK docs: Python reference",
    "https://code.claude.com/docs/en/agent-sdk/permissions": "Agent SDK docs: Permissions",
    "https://platform.claude.com/docs/en/test-and-evaluate/strengthen-guardrails/"
    "handle-streaming-refusals": "Claude docs: Handle streaming refusals",
    "https://platform.claude.com/docs/en/api/errors": "Claude API docs: Errors",
    "https://platform.claude.com/docs/en/build-with-claude/streaming": "Claude docs: Streaming",
    "https://docs.claude.com/en/docs/agents-and-tools/tool-use/overview": (
        "Claude docs: Tool use overview"
    ),
}


def family_name(slug: str) -> str:
    return FAMILY_NAMES.get(slug) or words(slug)


def words(slug: str) -> str:
    """A slug as words: ``context-window-exceeded`` → ``Context window exceeded``."""
    text = slug.replace("-", " ").replace("_", " ").strip()
    return text[:1].upper() + text[1:]


def source_title(url: str) -> str:
    """A readable title for a cited URL."""
    if url in SOURCE_TITLES:
        return SOURCE_TITLES[url]
    parts = urlparse(url)
    path = [p for p in parts.path.split("/") if p]
    if parts.netloc == "github.com" and len(path) >= 2:
        repo = f"{path[0]}/{path[1]}"
        name = path[-1] if len(path) > 2 else ""
        return f"{repo}: {name}" if name else repo
    last = path[-1].removesuffix(".md").removesuffix(".html") if path else parts.netloc
    return f"{words(last)} ({parts.netloc})"
