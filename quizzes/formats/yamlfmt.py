"""Our bank format (docs/QUESTION_FORMAT.md): export Question rows as loadable YAML."""

from __future__ import annotations

import yaml


class _Dumper(yaml.SafeDumper):
    """Block style for multi-line text, so exported files read like the hand-written bank."""

    def ignore_aliases(self, data) -> bool:  # noqa: ANN001
        return True  # imports refuse anchors and aliases, so the export never writes them


def _str(dumper: yaml.SafeDumper, value: str):
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)

FIELDS = (
    "slug", "kind", "subtopic", "concept", "difficulty", "status", "notes", "sources", "stem",
    "explanation",
)  # fmt: skip


def export(questions: list[dict]) -> tuple[str, list[tuple[str, str]]]:
    """Every kind fits our own format, so nothing is skipped."""
    text = yaml.dump(
        {"questions": questions}, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100
    )
    return text, []
