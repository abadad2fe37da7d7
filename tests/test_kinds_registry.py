"""One module per question kind (issue 13): the registry lists every kind, every module has every
part, and no branch on a kind's name grows back outside quizzes/kinds/."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

from quizzes import kinds
from tests.sources import text_nodes

ROOT = Path(__file__).resolve().parents[1]
APPS = ("quizzes", "authoring", "progress")
KIND_NAMES = set(kinds.REGISTRY)
#: The parameters each callable part takes, in order (the protocol in quizzes/kinds/__init__.py).
SIGNATURES = {
    "check": ["c", "q", "out"],
    "build": ["data", "options"],
    "parse_answer": ["spec", "get", "getlist"],
    "grade": ["spec", "answer"],
    "chosen_keys": ["answer"],
    "shown_order": ["options", "rng"],
    "present": ["question", "answer", "options", "rng"],
    "feedback": ["question", "answer", "options"],
    "right_answer": ["question", "options"],
    "shown_response": ["question"],
    "to_yaml": ["question", "out", "options"],
    "moodle_kind": ["mq"],
    "from_moodle": ["mq", "out", "meta", "keep", "ctx"],
    "meta": ["question"],
    "gift_lines": ["question", "escape", "head"],
    "xml_answers": ["el", "question", "add_text"],
    "editor_fields": [],
    "new_rows": [],
    "from_editor": ["data", "rows", "ed"],
    "to_editor": ["parsed"],
}


def test_the_registry_holds_every_kind_of_the_enum_in_order():
    assert list(kinds.REGISTRY) == [k.value for k in kinds.Kind]
    assert set(SIGNATURES) <= set(kinds.PARTS)


@pytest.mark.parametrize("kind", list(kinds.REGISTRY))
def test_every_kind_implements_every_part_with_the_protocol_signature(kind):
    module = kinds.of(kind)
    missing = [part for part in kinds.PARTS if not hasattr(module, part)]
    assert missing == []
    for part, params in SIGNATURES.items():
        fn = getattr(module, part)
        assert callable(fn), part
        params_ = inspect.signature(fn).parameters.values()
        names = [p.name for p in params_ if p.default is inspect.Parameter.empty]
        assert len(names) == len(params), f"{kind}.{part}{tuple(names)}, expected {params}"
    assert isinstance(module.LABEL, str) and module.LABEL
    assert (ROOT / "quizzes" / "templates" / module.TEMPLATE).is_file()
    assert (ROOT / "quizzes" / "templates" / module.FEEDBACK_TEMPLATE).is_file()
    assert set(module.ROW_FIELDS) <= {"text", "right", "action", "tolerance", "grade", "correct",
                                      "why", "family"}  # fmt: skip
    assert bool(module.ROWS) == bool(module.ROW_FIELDS) == bool(module.ROW_LABEL)


@pytest.mark.django_db
@pytest.mark.parametrize("kind", list(kinds.REGISTRY))
def test_every_kind_opens_in_the_browser_editor(kind, client, django_user_model):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user("ed", password="pw-ed-123456")
    user.groups.add(Group.objects.get(name="Instructors"))
    client.force_login(user)
    response = client.get(f"/author/questions/new/?kind={kind}")
    assert response.status_code == 200
    html = response.content.decode()
    for name in kinds.of(kind).editor_fields():
        assert f'name="{name}"' in html
    assert 'name="today"' in html


# --- no kind branches outside quizzes/kinds/ --------------------------------------------------


def _kindish(node: ast.AST) -> bool:
    """An expression that reads a kind: ``kind``, ``q.kind``, ``q["kind"]``, ``spec['kind']``."""
    if isinstance(node, ast.Name):
        return "kind" in node.id
    if isinstance(node, ast.Attribute):
        return "kind" in node.attr
    if isinstance(node, ast.Subscript):
        s = node.slice
        return isinstance(s, ast.Constant) and isinstance(s.value, str) and "kind" in s.value
    return False


def _names(node: ast.AST) -> set[str]:
    """The kind names a constant or a literal collection holds."""
    if isinstance(node, ast.Constant) and node.value in KIND_NAMES:
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and e.value in KIND_NAMES}
    return set()


def kind_branches(source: str, where: str) -> list[str]:
    """Each place the source branches on a kind's name (or lists kinds by name for that)."""
    found = []
    for node in text_nodes(source, where):
        line = f"{where}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_kindish(o) for o in operands) and any(_names(o) for o in operands):
                found.append(f"{line} compares a kind with a kind's name")
        elif isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant)} & KIND_NAMES
            if len(keys) >= 2:
                found.append(f"{line} a mapping keyed by kind names ({', '.join(sorted(keys))})")
        elif isinstance(node, ast.Assign) and len(_names(node.value)) >= 2:
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
            if any("KIND" in t.upper() for t in targets):
                found.append(f"{line} a list of kinds by name")
        elif isinstance(node, ast.keyword) and node.arg == "kind" and _names(node.value):
            found.append(f"{line} kind={ast.unparse(node.value)} (use kinds.Kind)")
    return found


_TEMPLATE_RE = re.compile(
    r"\b(kind|k)\s*(==|!=)|(==|!=)\s*[\"'](" + "|".join(sorted(KIND_NAMES)) + r")[\"']"
)


def _outside_kinds(pattern: str):
    for app in APPS:
        for path in sorted((ROOT / app).rglob(pattern)):
            rel = path.relative_to(ROOT).as_posix()
            if not rel.startswith("quizzes/kinds/") and "/migrations/" not in rel:
                yield rel, path.read_text(encoding="utf-8")


def test_no_python_outside_quizzes_kinds_branches_on_a_kind():
    found = [f for rel, text in _outside_kinds("*.py") for f in kind_branches(text, rel)]
    assert found == []


def test_no_template_outside_the_kinds_partials_branches_on_a_kind():
    found = [
        f"{rel}:{n}"
        for rel, text in _outside_kinds("*.html")
        for n, line in enumerate(text.splitlines(), 1)
        if _TEMPLATE_RE.search(line)
    ]
    assert found == []


@pytest.mark.parametrize(
    "source",
    [
        'if q.kind == "single": pass',
        'if kind in ("single", "truefalse"): pass',
        'x = "fix" != question["kind"]',
        'ROW_KINDS = ("ordering", "matching")',
        'qtype = {"single": "multichoice", "multiple": "multichoice"}.get(kind)',
        'Question.objects.filter(kind="essay")',
    ],
)
def test_the_checker_finds_a_new_kind_branch(source):
    assert kind_branches(source, "x.py")


def test_the_checker_leaves_other_comparisons_alone():
    assert kind_branches('if block_kind == "text": pass\nif mode == "single": pass', "x.py") == []
    assert _TEMPLATE_RE.search('{% if line.change == "added" %}') is None
    assert _TEMPLATE_RE.search('{% if kind == "ordering" %}')


def test_the_schema_and_every_kind_load_without_django_settings():
    """``python -m quizzes.schema FILE`` checks bank files by hand, with no settings module."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    code = "import quizzes.schema, quizzes.kinds as k; print(len(k.REGISTRY))"
    done = subprocess.run(  # noqa: S603 - our own interpreter, a fixed command
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(len(kinds.REGISTRY))
