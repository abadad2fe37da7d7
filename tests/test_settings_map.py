"""Settings read like a map: each declared once in studyapp/settings.py, read as settings.X."""

import ast
from collections import Counter
from pathlib import Path

from tests.sources import text_nodes

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["core", "quizzes", "progress", "authoring", "studyapp"]


def test_each_setting_is_assigned_once_and_nothing_is_appended():
    tree = ast.parse((ROOT / "studyapp" / "settings.py").read_text())
    names = Counter(
        t.id
        for node in tree.body
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name) and t.id.isupper()
    )
    assert [n for n, count in names.items() if count > 1] == []
    mutated = [
        ast.unparse(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in ("append", "extend", "insert")
    ]
    assert mutated == []


def test_no_module_reads_a_setting_with_a_hidden_default():
    hidden = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            source = path.read_text(encoding="utf-8")
            if "getattr" not in source or "settings" not in source:
                continue  # a name such a call spells out is missing: no call to look for
            for node in text_nodes(source, str(path)):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id == "getattr"
                    and node.args
                    and isinstance(node.args[0], ast.Name)
                    and node.args[0].id == "settings"
                ):
                    hidden.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert hidden == []
