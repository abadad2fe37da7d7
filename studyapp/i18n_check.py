"""The translations' check and stamps over a content folder (``manage.py translations``).

Notes: studyapp.notes.structure; questions: quizzes.translations (the same rules loadcontent
applies); the glossary: the same terms, in the same order, with the same links.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from core import i18n
from quizzes import translations
from studyapp.notes import structure


@dataclass
class CheckReport:
    problems: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    checked: dict[str, int] = field(default_factory=dict)  # what -> how many
    #: lang -> (translated notes, English notes, translated questions, English questions)
    coverage: dict[str, tuple[int, int, int, int]] = field(default_factory=dict)


def english_questions(content_dir: Path) -> dict[str, dict[str, Any]]:
    """slug -> the English question in file (bank) form, from content/questions/*.yaml."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted((Path(content_dir) / "questions").glob("*.yaml")):
        data = structure.safe_load(path.read_text(encoding="utf-8")) or {}
        for q in data.get("questions", []) if isinstance(data, dict) else []:
            if isinstance(q, dict) and isinstance(q.get("slug"), str):
                out[q["slug"]] = q
    return out


def check(content_dir: Path) -> CheckReport:
    """Every translated note, question file and glossary against English."""
    report = CheckReport()
    langs = i18n.other_languages()
    for _lang, english, translated in structure.note_pairs(content_dir, langs):
        report.checked["notes"] = report.checked.get("notes", 0) + 1
        where = translated.relative_to(content_dir)
        if not english.exists():
            report.problems.append(f"{where}: no English note {english.name} to translate from")
            continue
        en_text = english.read_text(encoding="utf-8")
        tr_text = translated.read_text(encoding="utf-8")
        report.problems.extend(f"{where}: {p}" for p in structure.compare_notes(en_text, tr_text))
        stamp = structure.split(tr_text)[0].get("translated_from")
        if stamp != structure.note_hash(en_text):
            report.stale.append(f"{where}: " + ("not stamped" if not stamp else "English changed"))
    english = english_questions(content_dir)
    translated: dict[str, set] = {lang: set() for lang in langs}  # lang -> the slugs its files name
    for lang, path in translations.translation_files(content_dir):
        where = path.relative_to(content_dir)
        try:
            entries = translations.read_file(path, lang)
        except translations.TranslationError as e:
            report.problems.append(str(e))
            continue
        translated[lang] |= {e.get("slug") for e in entries if isinstance(e, dict)}
        for n, entry in enumerate(entries, start=1):
            report.checked["questions"] = report.checked.get("questions", 0) + 1
            slug = entry.get("slug") if isinstance(entry, dict) else None
            if slug not in english:
                report.problems.append(f"{where}: entry {n}: no English question {slug!r}")
                continue
            for p in translations.check_entry(entry, english[slug]):
                report.problems.append(f"{where}: {slug}: {p}")
            if entry.get("source") != translations.source_hash(english[slug]):
                state = "not stamped" if not entry.get("source") else "English changed"
                report.stale.append(f"{where}: {slug}: {state}")
    report.problems.extend(_glossaries(content_dir, langs, report))
    english_notes = {p.name for p in (Path(content_dir) / "notes" / "en").glob("*.md")}
    for lang in langs:
        notes = {p.name for p in (Path(content_dir) / "notes" / lang).glob("*.md")}
        report.coverage[lang] = (
            len(notes & english_notes),
            len(english_notes),
            len(translated[lang] & set(english)),
            len(english),
        )
    return report


def _glossaries(content_dir: Path, langs, report: CheckReport) -> list[str]:
    path = Path(content_dir) / "glossary.yaml"
    if not path.exists():
        return []
    english = (structure.safe_load(path.read_text(encoding="utf-8")) or {}).get("terms", [])
    problems = []
    for lang in langs:
        local = Path(content_dir) / f"glossary.{lang}.yaml"
        if not local.exists():
            continue
        report.checked["glossaries"] = report.checked.get("glossaries", 0) + 1
        try:
            terms = (structure.safe_load(local.read_text(encoding="utf-8")) or {}).get("terms", [])
        except yaml.YAMLError as e:
            problems.append(f"{local.name}: not valid YAML: {e}")
            continue
        want = [(t.get("term"), t.get("link")) for t in english]
        have = [(t.get("term"), t.get("link")) for t in terms if isinstance(t, dict)]
        if want != have:
            problems.append(
                f"{local.name}: terms must be the English ones, verbatim, in the same order, "
                "with the same links"
            )
        problems.extend(
            f"{local.name}: {t.get('term')}: definition missing"
            for t in terms
            if isinstance(t, dict) and not str(t.get("definition") or "").strip()
        )
    return problems


# ------------------------------------------------------------------------------ stamps

SLUG_LINE_RE = r"^(?P<indent>\s*)- slug:\s*['\"]?{slug}['\"]?\s*$"


def stamp(content_dir: Path) -> list[str]:
    """Write ``source:`` into each question translation entry and ``translated_from:`` into
    each translated note's front matter, from the English words as they are now. Returns the
    files changed. Lines are edited in place, so the translators' formatting stays."""
    changed = []
    english = english_questions(content_dir)
    for _lang, path in translations.translation_files(content_dir):
        text = path.read_text(encoding="utf-8")
        new = text
        try:
            data = structure.safe_load(text) or {}
        except yaml.YAMLError:
            continue  # not stamped: --check reports the file
        for entry in data.get("translations", []) if isinstance(data, dict) else []:
            slug = entry.get("slug") if isinstance(entry, dict) else None
            if slug in english:
                new = _stamp_entry(new, slug, translations.source_hash(english[slug]))
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed.append(str(path))
    for _lang, english_note, translated in structure.note_pairs(
        content_dir, i18n.other_languages()
    ):
        if not english_note.exists():
            continue
        digest = structure.note_hash(english_note.read_text(encoding="utf-8"))
        text = translated.read_text(encoding="utf-8")
        new = _stamp_front_matter(text, digest)
        if new != text:
            translated.write_text(new, encoding="utf-8")
            changed.append(str(translated))
    return changed


def _stamp_entry(text: str, slug: str, digest: str) -> str:
    lines = text.splitlines(keepends=True)
    pattern = re.compile(SLUG_LINE_RE.format(slug=re.escape(slug)))
    for i, line in enumerate(lines):
        m = pattern.match(line.rstrip("\n"))
        if not m:
            continue
        indent = m["indent"] + "  "
        j = i + 1
        while j < len(lines) and (
            lines[j].startswith(indent) or not lines[j].strip()
        ):  # the entry's own lines
            if re.match(rf"^{indent}source:", lines[j]):
                lines[j] = f"{indent}source: {digest}\n"
                return "".join(lines)
            j += 1
        lines.insert(i + 1, f"{indent}source: {digest}\n")
        return "".join(lines)
    return text


def _stamp_front_matter(text: str, digest: str) -> str:
    m = structure.FRONT_MATTER_RE.match(text)
    if not m:
        return text
    head = m[1]
    line = f"translated_from: {digest}"
    if re.search(r"^translated_from:.*$", head, re.MULTILINE):
        head = re.sub(r"^translated_from:.*$", line, head, count=1, flags=re.MULTILINE)
    else:
        head = f"{head}\n{line}"
    return text[: m.start(1)] + head + text[m.end(1) :]
