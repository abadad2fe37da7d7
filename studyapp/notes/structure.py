"""The translation team's structure check: a translated note keeps the English note's skeleton.

Everything that must stay verbatim is compared with the English note: heading anchors (in
order), code blocks (their exact content), tables (how many, each one's rows and columns, and
cells that are code only), ``[[...]]`` markers, link and image targets, and the front matter
that is not translated (slug, order, subtopics, sources, exam skills/scenarios/traps, dates).
``note_hash`` is the stamp ``manage.py translations --stamp`` writes as ``translated_from``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

#: yaml.safe_load's loader with libyaml's C parser when it is installed (PyYAML's wheels ship
#: it): the same safe constructors, about ten times faster on the content files.
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str):
    """yaml.safe_load, with the C parser where there is one."""
    return yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 - a safe loader


FRONT_MATTER_RE = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)
FENCE_RE = re.compile(r"^\s*(```+|~~~+)")
HEADING_RE = re.compile(r"^#{1,6}\s.*?\{#([A-Za-z0-9_-]+)\}\s*$")
MARKER_RE = re.compile(r"^\[\[([^\]]+)\]\]\s*$")
LINK_RE = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)[^)]*\)")
CODE_CELL_RE = re.compile(r"^`[^`]+`$")
#: Front matter a translation keeps exactly as in English.
KEPT = ("slug", "order", "subtopics", "sources", "last_verified", "check_yourself")
KEPT_EXAM = ("skills", "scenarios", "traps")
#: Front matter a translation translates (and the stamp is computed from, with the body).
TRANSLATED = ("title", "summary", "key_points")


@dataclass
class Skeleton:
    anchors: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)
    tables: list[tuple[int, int]] = field(default_factory=list)  # (rows, columns)
    code_cells: list[list[tuple[int, int, str]]] = field(default_factory=list)
    markers: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)


def split(text: str) -> tuple[dict, str]:
    """(front matter, body) of a note file; a file without front matter has an empty one."""
    m = FRONT_MATTER_RE.match(text)
    if not m:
        return {}, text
    try:
        meta = safe_load(m[1]) or {}
    except yaml.YAMLError:
        meta = {}
    return (meta if isinstance(meta, dict) else {}), text[m.end() :]


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def skeleton(body: str) -> Skeleton:
    """What must survive translation, read from a note's Markdown body."""
    out = Skeleton()
    fence: str | None = None
    block: list[str] = []
    table: list[str] = []

    def close_table() -> None:
        if table:
            rows = [r for r in table if not re.fullmatch(r"\|?[\s:|-]+\|?", r.strip())]
            out.tables.append((len(rows), len(_cells(rows[0])) if rows else 0))
            out.code_cells.append(
                [
                    (i, j, c)
                    for i, r in enumerate(rows)
                    for j, c in enumerate(_cells(r))
                    if CODE_CELL_RE.match(c)
                ]
            )
            table.clear()

    for line in body.splitlines():
        m = FENCE_RE.match(line)
        if fence is not None:
            if m and m[1][0] == fence[0] and len(m[1]) >= len(fence):
                out.code.append("\n".join(block))
                fence, block = None, []
            else:
                block.append(line)
            continue
        if m:
            close_table()
            fence = m[1]
            continue
        if line.lstrip().startswith("|"):
            table.append(line)
            out.links.extend(LINK_RE.findall(line))
            continue
        close_table()
        if h := HEADING_RE.match(line):
            out.anchors.append(h[1])
        if mk := MARKER_RE.match(line.strip()):
            out.markers.append(mk[1])
        out.links.extend(LINK_RE.findall(line))
    close_table()
    if fence is not None:
        out.code.append("\n".join(block))
    return out


def compare_notes(english_text: str, translated_text: str) -> list[str]:
    """Every way a translated note's structure differs from the English note's (empty: fine)."""
    en_meta, en_body = split(english_text)
    tr_meta, tr_body = split(translated_text)
    problems = []
    if not tr_meta:
        problems.append("no front matter between --- lines")
    for key in KEPT:
        if en_meta.get(key) != tr_meta.get(key):
            problems.append(f"front matter {key}: must be as in English ({en_meta.get(key)!r})")
    en_exam, tr_exam = en_meta.get("exam") or {}, tr_meta.get("exam") or {}
    for key in KEPT_EXAM:
        if isinstance(en_exam, dict) and en_exam.get(key) != (tr_exam or {}).get(key):
            problems.append(f"front matter exam.{key}: must be as in English")
    for key in TRANSLATED:
        if key in en_meta and key not in tr_meta:
            problems.append(f"front matter {key}: missing (translate it)")
    en_points, tr_points = en_meta.get("key_points"), tr_meta.get("key_points")
    if (
        isinstance(en_points, list)
        and isinstance(tr_points, list)
        and len(en_points) != len(tr_points)
    ):
        problems.append(f"key_points: {len(tr_points)} points, English has {len(en_points)}")
    en, tr = skeleton(en_body), skeleton(tr_body)
    if en.anchors != tr.anchors:
        missing = [a for a in en.anchors if a not in tr.anchors]
        extra = [a for a in tr.anchors if a not in en.anchors]
        detail = (
            f"missing {', '.join('#' + a for a in missing)}"
            if missing
            else f"extra {', '.join('#' + a for a in extra)}"
            if extra
            else "in another order"
        )
        problems.append(f"heading anchors differ from English: {detail}")
    if len(en.code) != len(tr.code):
        problems.append(f"code blocks: {len(tr.code)}, English has {len(en.code)}")
    else:
        for i, (a, b) in enumerate(zip(en.code, tr.code, strict=True), start=1):
            if a != b:
                problems.append(f"code block {i}: its content differs from English (keep it)")
    if len(en.tables) != len(tr.tables):
        problems.append(f"tables: {len(tr.tables)}, English has {len(en.tables)}")
    else:
        for i, (a, b) in enumerate(zip(en.tables, tr.tables, strict=True), start=1):
            if a != b:
                problems.append(
                    f"table {i}: {b[0]} rows x {b[1]} columns, English has {a[0]} x {a[1]}"
                )
        for i, (a, b) in enumerate(zip(en.code_cells, tr.code_cells, strict=True), start=1):
            if a != b:
                problems.append(f"table {i}: a code cell differs from English (keep code cells)")
    if en.markers != tr.markers:
        problems.append(
            f"[[...]] markers differ: English has {', '.join(en.markers) or 'none'}, "
            f"the translation {', '.join(tr.markers) or 'none'}"
        )
    if sorted(en.links) != sorted(tr.links):
        gone = sorted(set(en.links) - set(tr.links))
        added = sorted(set(tr.links) - set(en.links))
        problems.append(
            "links or images differ from English"
            + (f": missing {', '.join(gone)}" if gone else "")
            + (f"; not in English {', '.join(added)}" if added else "")
        )
    return problems


def note_hash(english_text: str) -> str:
    """The stamp of an English note: its body and its translated front matter."""
    meta, body = split(english_text)
    words = {k: meta.get(k) for k in TRANSLATED}
    exam = meta.get("exam")
    words["exam.how"] = exam.get("how") if isinstance(exam, dict) else None
    text = json.dumps(words, sort_keys=True, ensure_ascii=False, default=str) + "\n" + body
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def note_pairs(content_dir: Path, langs: tuple[str, ...]) -> list[tuple[str, Path, Path]]:
    """(lang, English file, translated file) for every translated note file."""
    out = []
    english = Path(content_dir) / "notes" / "en"
    for lang in langs:
        for path in sorted((Path(content_dir) / "notes" / lang).glob("*.md")):
            out.append((lang, english / path.name, path))
    return out
