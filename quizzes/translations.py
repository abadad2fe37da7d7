"""Question translations: the same question version in another language (issue 16).

A translation carries only the words of a question (stem, explanation, option texts and whys,
…), never its key: grading, statistics and FSRS cards stay the English question's, one per
question. Files: ``content/questions/<lang>/<file>.yaml`` (``lang:`` and ``translations:``, each
entry naming the English ``slug``; docs/QUESTION_FORMAT.md). Each entry may carry ``source:``,
the hash of the English words it was translated from (``manage.py translations --stamp``); a
translation whose hash differs from the English question's current words is *stale*: learners
see the English question until it is brought up to date, and authors see it flagged.
"""

from __future__ import annotations

import copy
import datetime
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from django.db import transaction
from django.db.models import OuterRef, Subquery
from django.db.models.fields.json import JSONField

from core import i18n
from core.rendering import render_inline, render_markdown

from .models import Option, Question, QuestionTranslation
from .translation_rules import (  # noqa: F401 - the public names live here too
    BLOCK_FIELDS,
    ENTRY_KEYS,
    LIST_FIELDS,
    STRING_LISTS,
    TEXT_FIELDS,
    TranslationError,
    check_entry,
    english_source,
    source_hash,
)

#: yaml.safe_load's loader with libyaml's C parser when it is installed (PyYAML's wheels ship
#: it): the same safe constructors, about ten times faster on the content files.
_SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _safe_load(text: str):
    return yaml.load(text, Loader=_SAFE_LOADER)  # noqa: S506 - a safe loader


log = logging.getLogger(__name__)


def question_hash(question: Question) -> str:
    """:func:`source_hash` of a Question row (uses its prefetched options)."""
    from .importing import question_to_bank  # importing imports this module for export

    return source_hash(question_to_bank(question))


BLOCK_START = ("<p", "<pre", "<ul", "<ol", "<div", "<h", "<blockquote", "<table")


def render(entry: dict[str, Any], question: Question) -> dict[str, Any]:
    """The HTML of a checked entry, rendered and sanitised as the English question's is: a
    ``why`` is a Markdown block where the English one is (its kind decided, in quizzes.kinds)."""
    english_why = str((question.data or {}).get("why_html", "")).lstrip()
    out: dict[str, Any] = {}
    for name in TEXT_FIELDS:
        if name in entry:
            text = entry[name]
            block = name in BLOCK_FIELDS or (name == "why" and english_why.startswith(BLOCK_START))
            out[name] = render_markdown(text).html if block else render_inline(text)
    for name in LIST_FIELDS:
        if name in entry:
            out[name] = [{k: render_inline(v) for k, v in item.items()} for item in entry[name]]
    for name in STRING_LISTS:
        if name in entry:
            out[name] = list(entry[name])
            out[f"{name}_html"] = [render_inline(t) for t in entry[name]]
    return out


def fields_of(entry: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in entry.items() if k not in ENTRY_KEYS}


FIELD_ORDER = (*TEXT_FIELDS[:2], *LIST_FIELDS, *STRING_LISTS, *TEXT_FIELDS[2:])


def as_entry(t: QuestionTranslation) -> dict[str, Any]:
    """A stored translation in file form, keys in one fixed order (the database may not keep
    theirs), for the YAML export's ``translations:``."""
    out: dict[str, Any] = {"source": t.source_hash} if t.source_hash else {}
    for name in FIELD_ORDER:
        if name not in t.fields:
            continue
        value = t.fields[name]
        if name in LIST_FIELDS:
            value = [{k: item[k] for k in LIST_FIELDS[name] if k in item} for item in value]
        out[name] = value
    return out


def in_language(bank: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """An English question in bank form with a translation's words put in (for a GIFT or XML
    file in one language); everything else, keys and answers included, stays."""
    out = copy.deepcopy(bank)
    for name, value in fields.items():
        if name in LIST_FIELDS and isinstance(out.get(name), list):
            for row, words in zip(out[name], value, strict=False):
                row.update({k: v for k, v in words.items() if k in LIST_FIELDS[name]})
        elif name in out or name in TEXT_FIELDS:
            out[name] = value
    return out


def upsert(question: Question, lang: str, entry: dict[str, Any], english: dict) -> None:
    """Write one checked translation entry onto a question version (imports)."""
    now = source_hash(english)
    stamp = str(entry.get("source") or now)
    QuestionTranslation.objects.update_or_create(
        question=question,
        lang=lang,
        defaults={
            "fields": fields_of(entry),
            "html": render(entry, question),
            "source_hash": stamp,
            "is_stale": stamp != now,
        },
    )


# ------------------------------------------------------------------------------ loading


@dataclass
class TranslationReport:
    loaded: list[str] = field(default_factory=list)  # "pl:slug"
    stale: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # skipped, with the reason
    problems: list[str] = field(default_factory=list)  # invalid entries: file, slug, field


def translation_files(content_dir: Path) -> list[tuple[str, Path]]:
    """(lang, path) of every question translation file, in a stable order."""
    out = []
    for lang in i18n.other_languages():
        folder = Path(content_dir) / "questions" / lang
        out.extend((lang, p) for p in sorted(folder.glob("*.yaml")))
    return out


#: text -> its YAML and whether it is a tree, for a file read again unchanged in this process
#: (loadcontent run twice, the translations check after a load); callers get copies.
_LOADED: dict[str, tuple[Any, bool]] = {}
_LOADED_KEPT = 512
#: What the safe loader builds that nobody can change in place: shared by a copy, not copied.
_UNCHANGEABLE = frozenset({str, int, float, bool, type(None), datetime.date, datetime.datetime})


def is_tree(value: Any) -> bool:
    """No dict or list of ``value`` is in it twice (a YAML alias can share one, or nest one in
    itself): :func:`copied` may copy it."""
    seen: set[int] = set()
    todo = [value]
    while todo:
        item = todo.pop()
        if type(item) is dict or type(item) is list:
            if id(item) in seen:
                return False
            seen.add(id(item))
            todo.extend(item.values() if type(item) is dict else item)
    return True


def copied(value: Any) -> Any:
    """copy.deepcopy of loaded YAML that :func:`is_tree`, about twice as fast: its dicts and
    lists built anew, its strings, numbers and dates shared (they cannot change), anything else
    deep-copied."""
    kind = type(value)
    if kind is dict:
        return {k: copied(v) for k, v in value.items()}
    if kind is list:
        return [copied(v) for v in value]
    if kind in _UNCHANGEABLE:
        return value
    return copy.deepcopy(value)


def _load_text(text: str) -> Any:
    if text not in _LOADED:
        if len(_LOADED) >= _LOADED_KEPT:
            _LOADED.pop(next(iter(_LOADED)))
        data = _safe_load(text)
        _LOADED[text] = (data, is_tree(data))
    data, tree = _LOADED[text]
    return copied(data) if tree else copy.deepcopy(data)


def read_file(path: Path, lang: str) -> list[dict[str, Any]]:
    """The entries of one translation file; a TranslationError names what is wrong."""
    try:
        data = _load_text(path.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as e:
        raise TranslationError(f"{path}: not valid YAML: {e}") from e
    if not isinstance(data, dict) or not isinstance(data.get("translations"), list):
        raise TranslationError(f"{path}: needs `lang: {lang}` and a `translations:` list")
    if data.get("lang") != lang:
        raise TranslationError(
            f"{path}: says lang {data.get('lang')!r}, but lives in the {lang!r} folder"
        )
    return data["translations"]


def _options_of(questions) -> dict[int, list[Option]]:
    """Question pk -> its Option rows in their order, in one query: what
    ``prefetch_related("options")`` reads, without its per-question querysets (about a fifth of
    a load of the real bank's translations)."""
    out: dict[int, list[Option]] = {q.pk: [] for q in questions}
    for option in Option.objects.filter(question_id__in=list(out)):
        out[option.question_id].append(option)
    return out


@transaction.atomic
def load_translations(content_dir: Path) -> TranslationReport:
    """Upsert every valid translation onto the current version of its English question.

    An unknown slug is skipped with a warning and an invalid entry reported (file, slug,
    field); neither stops the others. A file entry without ``source:`` keeps the stamp the
    translation already had (so an English edit still shows as stale), or, new, takes the
    English question's current one.
    """
    from .importing import question_to_bank

    report = TranslationReport()
    current = {q.slug: q for q in Question.objects.current()}
    options = _options_of(current.values())
    existing = {
        (t.question_id, t.lang): t
        for t in QuestionTranslation.objects.filter(question__in=current.values())
    }
    english_cache: dict[str, tuple[dict, str]] = {}  # slug -> (bank form, its stamp)
    created: list[QuestionTranslation] = []  # new rows, written in one bulk insert
    for lang, path in translation_files(content_dir):
        try:
            entries = read_file(path, lang)
        except TranslationError as e:
            report.problems.append(str(e))
            continue
        for n, entry in enumerate(entries, start=1):
            slug = entry.get("slug") if isinstance(entry, dict) else None
            question = current.get(slug) if isinstance(slug, str) else None
            if question is None:
                report.warnings.append(f"{path.name}: entry {n}: no English question {slug!r}")
                continue
            if slug not in english_cache:
                english = question_to_bank(question, options[question.pk])
                english_cache[slug] = (english, source_hash(english))
            english, now = english_cache[slug]
            problems = check_entry(entry, english)
            if problems:
                report.problems.extend(f"{path}: {slug}: {p}" for p in problems)
                continue
            row = existing.get((question.pk, lang))
            stamp = str(entry.get("source") or (row.source_hash if row else now))
            values = {
                "fields": fields_of(entry),
                "html": render(entry, question),
                "source_hash": stamp,
                "is_stale": stamp != now,
            }
            if row is None:
                created.append(QuestionTranslation(question=question, lang=lang, **values))
            elif any(getattr(row, k) != v for k, v in values.items()):
                for k, v in values.items():
                    setattr(row, k, v)
                row.save()
            report.loaded.append(f"{lang}:{slug}")
            if stamp != now:
                report.stale.append(f"{lang}:{slug}")
    QuestionTranslation.objects.bulk_create(created)
    for warning in report.warnings:
        log.warning("translation skipped: %s", warning)
    return report


def carry_over(previous: Question, new: Question) -> None:
    """A new English version keeps its translations, with their old stamps: they show as stale
    until a translator brings them up to date (bank.save_question calls this)."""
    carried = list(previous.translations.all())
    if not carried:
        return
    now = question_hash(new)
    QuestionTranslation.objects.bulk_create(
        QuestionTranslation(
            question=new, lang=t.lang, fields=t.fields, html=t.html, source_hash=t.source_hash,
            is_stale=t.source_hash != now,
        )
        for t in carried
    )  # fmt: skip


# ------------------------------------------------------------------------------ showing


def with_translation(queryset, lang: str, prefix: str = ""):
    """Annotate each row with its question's translation in ``lang`` (``tr_html``, ``tr_stale``):
    subqueries in the same SELECT, so a translated page runs the same queries as an English one.
    ``prefix`` reaches the question (``"question__"`` from responses)."""
    if lang == i18n.DEFAULT:
        return queryset
    ref = OuterRef(prefix.removesuffix("__") if prefix else "pk")
    rows = QuestionTranslation.objects.filter(question=ref, lang=lang)
    return queryset.annotate(
        tr_html=Subquery(rows.values("html")[:1], output_field=JSONField()),
        tr_stale=Subquery(rows.values("is_stale")[:1]),
    )


@dataclass
class Shown:
    """Which words a page shows for a question: ``lang`` is what it is shown in."""

    question: Question
    lang: str
    available: bool = False  # a current translation exists for the page's language
    stale: bool = False  # one exists but was made from older English words


def localise(question: Question, html: dict | None, stale: bool | None, lang: str) -> Shown:
    """The question as the page should show it: a copy carrying the translation's HTML when a
    current one exists, else the question itself. Keys, correct flags, data and grading are
    the English question's; nothing is saved."""
    if lang == i18n.DEFAULT or not html:
        return Shown(question, i18n.DEFAULT)
    if stale:
        return Shown(question, i18n.DEFAULT, stale=True)
    shown = copy.copy(question)
    shown.stem_html = html.get("stem", question.stem_html)
    shown.explanation_html = html.get("explanation", question.explanation_html)
    options = [copy.copy(o) for o in question.options.all()]
    rows = html.get("options") or html.get("items") or html.get("pairs") or html.get("choices")
    for option, words in zip(options, rows or [], strict=False):
        option.text_html = words.get("text", words.get("left", option.text_html))
        option.why_html = words.get("why", option.why_html)
    actions = i18n.next_actions()
    for option in options:  # a next-action choice is keyed by the catalogue's action code
        if option.key in actions:
            option.text_html = render_inline(actions[option.key].label)
    data = copy.deepcopy(question.data or {})
    _localise_data(question, data, html, options)
    shown.data = data
    queryset = question.options.all()
    queryset._result_cache = options
    queryset._prefetch_done = True
    shown._prefetched_objects_cache = {"options": queryset}
    shown._state = copy.copy(question._state)
    return Shown(shown, lang, available=True)


def stem_html(english: str, html: dict | None, stale: bool | None) -> str:
    """A question's stem for a list (summary, done page): the translation's when current."""
    return (html or {}).get("stem", english) if html and not stale else english


def _localise_data(question: Question, data: dict, html: dict, options: list) -> None:
    if "why" in html:
        data["why_html"] = html["why"]
    for name in ("wrong_answers", "answers"):
        for row, words in zip(data.get(name, []), html.get(name, []), strict=False):
            row["why_html"] = words.get("why", row.get("why_html", ""))
    if "model_answer" in html:
        data["model_answer_html"] = html["model_answer"]
    if data.get("rights"):
        # Matching: English right-hand text -> its translation (pairs first, then the extras).
        rights = {}
        for option, words in zip(question.options.all(), html.get("pairs", []), strict=False):
            key = option.match
            if key and "right" in words:
                rights[key] = words["right"]
        extras = dict(
            zip(data.get("extra_rights", []), html.get("extra_rights_html", []), strict=False)
        )
        for r in data.get("rights", []):
            if r["key"] in rights:
                r["html"] = rights[r["key"]]
            elif r["text"] in extras:
                r["html"] = extras[r["text"]]


def status_by_question(questions, langs=None) -> dict[int, dict[str, str]]:
    """For authors: question pk -> {lang: "ok" | "stale" | "missing"}; one query for all."""
    langs = langs or i18n.other_languages()
    pks = [q.pk for q in questions]
    found = {
        (pk, lang): stale
        for pk, lang, stale in QuestionTranslation.objects.filter(
            question_id__in=pks, lang__in=langs
        ).values_list("question_id", "lang", "is_stale")
    }
    return {
        pk: {
            lang: "missing" if (pk, lang) not in found else ("stale" if found[(pk, lang)] else "ok")
            for lang in langs
        }
        for pk in pks
    }
