"""The exam's six scenarios: a short brief (system, tools, goal) shared by several items.

The CCA-F exam draws 4 of these 6 published scenarios for each sitting and asks a set of items
inside each. Items outside them carry ``general``. No Django here: the schema validates the tag.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


def gettext_noop(s: str) -> str:
    """Marks a brief's words for translation (makemessages extracts it); pages translate them
    where they show them (:func:`localised`)."""
    return s


@dataclass(frozen=True)
class Scenario:
    slug: str
    title: str
    system: str
    tools: tuple[str, ...]
    goal: str


GENERAL = "general"

SCENARIOS: dict[str, Scenario] = {
    s.slug: s
    for s in (
        Scenario(
            "customer-support",
            gettext_noop("Customer support agent"),
            gettext_noop(
                "A support assistant for an online shop, built on the Messages API with a loop the "
                "team wrote themselves."
            ),
            ("lookup_order", "get_customer", "process_refund", "escalate_to_human"),
            gettext_noop(
                "Resolve order and refund requests end to end, within the refund policy, and hand "
                "anything it cannot settle to a person."
            ),
        ),
        Scenario(
            "code-generation",
            gettext_noop("Code generation with Claude Code"),
            gettext_noop(
                "Claude Code (or a coding agent built like it) working in a developer's "
                "repository: reading, searching, editing and running commands on the developer's "
                "machine."
            ),
            ("Read", "Grep", "Edit", "Bash"),
            gettext_noop("Make a requested change to the code base and leave the tests passing."),
        ),
        Scenario(
            "multi-agent-research",
            gettext_noop("Multi-agent research system"),
            gettext_noop(
                "A coordinator agent that splits a research question among subagents and merges "
                "what they find into a cited report."
            ),
            ("web_search (server tool)", "web_fetch (server tool)", "run_subagent", "save_note"),
            gettext_noop(
                "Answer a research question with sources, without runaway searching or lost "
                "findings."
            ),
        ),
        Scenario(
            "developer-productivity",
            gettext_noop("Developer productivity tool"),
            gettext_noop(
                "An internal assistant built on the Claude Agent SDK that answers questions about "
                "the company's services and automates chores for engineers."
            ),
            ("Read", "Grep", "Bash", "an in-process MCP tool: query_service_catalog"),
            gettext_noop(
                "Save engineers time on routine questions and tasks, with every run observable and "
                "bounded."
            ),
        ),
        Scenario(
            "ci-cd",
            gettext_noop("Claude Code in CI/CD"),
            gettext_noop(
                "Claude Code run non-interactively in a CI pipeline on every pull request, with no "
                "person watching the run."
            ),
            ("Read", "Grep", "Bash (test runner)", "post_review_comment"),
            gettext_noop(
                "Review the change, run the checks, and report a verdict the pipeline can act on."
            ),
        ),
        Scenario(
            "structured-extraction",
            gettext_noop("Structured data extraction"),
            gettext_noop(
                "A batch service that turns invoices and contracts into JSON records through a "
                "tool whose input schema is the record."
            ),
            ("record_invoice", "lookup_vendor", "flag_for_review"),
            gettext_noop(
                "Produce one valid, complete record per document, and flag documents it cannot "
                "read with confidence."
            ),
        ),
    )
}

SCENARIO_CHOICES: tuple[str, ...] = (*SCENARIOS, GENERAL)


def label(slug: str) -> str:
    """The scenario's title in words ("General" for items outside the six)."""
    if slug in SCENARIOS:
        return SCENARIOS[slug].title
    return "General" if slug in ("", GENERAL) else slug


def localised(scenario: Scenario, gettext) -> Scenario:
    """The brief in the page's language (``gettext`` is Django's; tool names stay as they are)."""
    return dataclasses.replace(
        scenario, title=gettext(scenario.title), system=gettext(scenario.system),
        goal=gettext(scenario.goal),
    )  # fmt: skip
