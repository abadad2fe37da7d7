"""What never changes for one question version, kept once per process.

A Question row is one version: its stem, options and explanations are written when the row is
created and never edited afterwards (an edit makes the next version, a new row; publishing in
place changes ``status`` and ``content_hash`` only). So whatever is derived from a row alone can
be kept for the life of the process, keyed by the row's identity: its pk, ``created_at`` (a
preview saves a row and rolls it back, and SQLite may hand the same pk to the next row) and
``content_hash``.

Nothing here depends on who is asking: no attempt, answer, seed or user is part of what is
kept, so a hit can't show one learner another's work, and nothing kept says which option is
right except the options themselves, which the grader needs and which never reach a page
unfiltered (presentation.present() picks the fields a page may show).
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from collections.abc import Callable
from threading import Lock

from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.urls import get_script_prefix
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from .models import Option, Question

#: Versions kept per process (a 5,000-question bank's options fit comfortably).
MAX_VERSIONS = 8192


def _no_content_version() -> str:
    return ""


#: The site's content version, part of every fragment's key: a content reload (loadcontent),
#: a translation say, can change what a version shows without making a new version. The project
#: sets it (StudyappConfig.ready: studyapp.pagecache.content_version, shared by every server);
#: quizzes can't import the project.
content_version: Callable[[], str] = _no_content_version

_options: OrderedDict[tuple, list[Option]] = OrderedDict()
_fragments: OrderedDict[tuple, str] = OrderedDict()
_lock = Lock()


def version_key(question: Question) -> tuple:
    return (question.pk, question.created_at, question.content_hash)


def _remember(store: OrderedDict, key: tuple, value) -> None:
    with _lock:
        store[key] = value
        store.move_to_end(key)
        while len(store) > MAX_VERSIONS:
            store.popitem(last=False)


def with_options(question: Question) -> Question:
    """Give ``question`` its options as if prefetched (``question.options.all()`` makes no
    query): from this process's cache, else one query whose rows are kept for next time.

    The Option instances are shared by every request of the process: read them, never set an
    attribute on one (a translated text, a "chosen" flag); build a dict or a copy instead."""
    if "options" in getattr(question, "_prefetched_objects_cache", {}):
        return question
    key = version_key(question)
    rows = _options.get(key)
    if rows is None:
        rows = list(Option.objects.filter(question_id=question.pk).order_by("position"))
        _remember(_options, key, rows)
    queryset = question.options.all()
    queryset._result_cache = list(rows)
    queryset._prefetch_done = True
    question._prefetched_objects_cache = {"options": queryset}  # type: ignore[attr-defined]
    return question


def with_options_all(questions: list[Question]) -> list[Question]:
    """:func:`with_options` for several questions, with one query for all whose options this
    process does not keep yet (what ``prefetch_related("options")`` ran, and none when every
    version is kept)."""
    missing = [
        q
        for q in questions
        if "options" not in getattr(q, "_prefetched_objects_cache", {})
        and version_key(q) not in _options
    ]
    if missing:
        rows: dict[int, list[Option]] = {q.pk: [] for q in missing}
        for option in Option.objects.filter(question_id__in=list(rows)).order_by(
            "question_id", "position"
        ):
            rows[option.question_id].append(option)
        for q in missing:
            _remember(_options, version_key(q), rows[q.pk])
    for q in questions:
        with_options(q)
    return questions


def fragment(name: str, question: Question, render: Callable[[], str]) -> SafeString:
    """The HTML ``render()`` makes for this question version, rendered once per process,
    language and content version. ``render`` may use the question (and what is derived from it
    alone), never the request, the attempt or the learner's answer: those stay outside, in the
    page around it."""
    key = (name, get_language(), get_script_prefix(), content_version(), *version_key(question))
    html = _fragments.get(key)
    if html is None:
        html = render()
        _remember(_fragments, key, html)
    return mark_safe(html)  # noqa: S308 - rendered by our templates, autoescaped


# Stand-ins rendered into a kept fragment where each request has its own value, replaced on the
# way out: random per process, so no authored text can contain them by accident.
_HOLE = "lc" + secrets.token_hex(8)
CSRF_HOLE, PATH_HOLE = f"{_HOLE}csrf", f"{_HOLE}path"


class _Holes:
    """What a kept fragment may read of "the request": stand-ins only."""

    method = "GET"
    POST: dict = {}

    def get_full_path(self) -> str:
        return PATH_HOLE


def report_box(request, question: Question, csrf_token: str | None = None) -> SafeString:
    """The closed "Report a problem" box of a question (quizzes/_report_problem.html), kept per
    version; this request's CSRF token (``csrf_token``: the one the page's other forms carry)
    and path are put in when it is sent."""
    html = fragment(
        "report-box",
        question,
        lambda: render_to_string(
            "quizzes/_report_problem.html",
            {"question": question, "csrf_token": CSRF_HOLE, "request": _Holes()},
        ),
    )
    filled = html.replace(CSRF_HOLE, csrf_token or get_token(request)).replace(
        PATH_HOLE, escape(request.get_full_path())
    )
    return mark_safe(filled)  # noqa: S308 - the token is URL-safe; the path is escaped


def kept_fragments() -> list[str]:
    """Every fragment this process keeps (tests look inside)."""
    return list(_fragments.values())


def clear() -> None:
    """Forget everything (tests that rewrite rows in place)."""
    with _lock:
        _options.clear()
        _fragments.clear()
