"""Python source read as syntax trees once per session, for the tests that check the code
itself (imports, dependencies, settings, kind branches, the suite's layout).

Each file is parsed and walked once whatever the number of tests that read it; the cache is
keyed by the file's text, so a test that writes a file of its own reads what it wrote.
Callers only read the nodes.
"""

from __future__ import annotations

import ast
from pathlib import Path

#: source text -> its nodes (the same file read by several tests is parsed once)
_NODES: dict[str, tuple[ast.AST, ...]] = {}


def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's syntax tree (``ast.walk`` order)."""
    return text_nodes(Path(path).read_text(encoding="utf-8"), str(path))


def text_nodes(source: str, filename: str = "<unknown>") -> tuple[ast.AST, ...]:
    """Every node of ``source``'s syntax tree (``ast.walk`` order); ``filename`` names the
    file in a SyntaxError."""
    found = _NODES.get(source)
    if found is None:
        found = _NODES[source] = tuple(ast.walk(ast.parse(source, filename)))
    return found
