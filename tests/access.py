"""The access matrix: what each role gets from every URL in the URLconf (anonymous, learner the
owner, another learner, instructor, staff). tests/test_access_matrix.py checks the rows against
the URLconf and the views; the CSRF, security-header and XSS suites walk the same rows.

Objects (attempts, uploads) belong to ``learner``; "other" is another signed-in learner.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.urls import URLPattern, URLResolver, get_resolver, reverse


def _published(upload) -> str:
    """Publish the world's upload and return its share token (saved in every test's own
    transaction: the world may be shared by the module while each test rolls back)."""
    token = "t" * 10 + "shared-link-token-for-tests"
    type(upload).objects.filter(pk=upload.pk).update(share_token=token)
    return token


ROLES = ("anonymous", "learner", "other", "instructor", "staff")


def url_names() -> list[str]:
    """Every routable view in the URLconf as 'namespace:name' (or its route if unnamed)."""
    found: list[str] = []

    def walk(patterns, namespaces, prefix):
        for p in patterns:
            if isinstance(p, URLResolver):
                ns = [*namespaces, p.namespace] if p.namespace else namespaces
                walk(p.url_patterns, ns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                found.append(":".join([*namespaces, p.name]) if p.name else prefix + str(p.pattern))

    walk(get_resolver().url_patterns, [], "")
    return found


def everyone(status: int) -> dict[str, int]:
    return dict.fromkeys(ROLES, status)


PUBLIC = everyone(200)
POST_ONLY = everyone(405)  # require_POST answers a GET before it looks anything up
# Private to the owner: everybody else, staff included, is told it does not exist.
OWNER = {**everyone(404), "learner": 200}
OWNER_REDIRECT = {**everyone(404), "learner": 302}
INSTRUCTOR = {"anonymous": 302, "learner": 403, "other": 403, "instructor": 200, "staff": 200}


@dataclass
class Row:
    get: dict[str, int]
    kwargs: object = None  # world -> URL kwargs
    # POST as a non-owner must not reach someone else's object: these statuses, object unchanged.
    post_denied: dict[str, int] = field(default_factory=dict)

    def url(self, name: str, world) -> str:
        return reverse(name, kwargs=self.kwargs(world) if self.kwargs else None)


def _exam(w):
    return {"pk": w.exam.pk, "position": 1}


NOT_OWNER = {"anonymous": 404, "other": 404, "instructor": 404, "staff": 404}
NOT_INSTRUCTOR = {"anonymous": 302, "learner": 403, "other": 403}

MATRIX: dict[str, Row] = {
    "home": Row(PUBLIC),
    "healthz": Row(PUBLIC),
    "csrf": Row(everyone(204)),  # sets the CSRF cookie, nothing else
    "glossary": Row(PUBLIC),
    "notes:index": Row(PUBLIC),
    "notes:changes": Row(PUBLIC),
    "notes:detail": Row(PUBLIC, lambda w: {"slug": w.note}),
    "notes:search": Row(PUBLIC),
    "notes:cheat_sheet": Row(PUBLIC),
    "notes:blueprint": Row(PUBLIC),
    # Reading progress: each visitor's own (GET: the status, loaded into the shared note page
    # or a page of its own without JavaScript; POST: mark it). notes:reading: the read marks of
    # the shared index.
    "notes:read": Row(PUBLIC, lambda w: {"slug": w.note}),
    "notes:reading": Row(PUBLIC),
    # Check-yourself answers are graded by GET (nothing recorded); no answer: no feedback.
    "notes:check": Row(PUBLIC, lambda w: {"slug": w.note, "question": w.slug}),
    "login": Row(PUBLIC),
    "logout": Row(everyone(405)),  # log-out is a POST (Django 5)
    "signup": Row(PUBLIC),
    "quizzes:practice": Row(PUBLIC),
    "quizzes:traps": Row(PUBLIC),
    "quizzes:exam_start": Row(PUBLIC),
    "quizzes:practice_question": Row(
        OWNER, lambda w: {"pk": w.practice.pk, "position": 1}, NOT_OWNER
    ),
    "quizzes:practice_done": Row(OWNER, lambda w: {"pk": w.practice.pk}),
    "quizzes:exam_question": Row(OWNER, _exam, NOT_OWNER),
    "quizzes:exam_flag": Row(POST_ONLY, _exam, NOT_OWNER),
    "quizzes:exam_summary": Row(OWNER, lambda w: {"pk": w.exam.pk}),
    "quizzes:exam_submit": Row(POST_ONLY, lambda w: {"pk": w.exam.pk}, NOT_OWNER),
    "quizzes:exam_results": Row(OWNER, lambda w: {"pk": w.done.pk}),
    "quizzes:exam_retake": Row(POST_ONLY, lambda w: {"pk": w.done.pk}, NOT_OWNER),
    "sandbox:index": Row(PUBLIC),
    "sandbox:upload": Row(PUBLIC),
    "sandbox:compare": Row(PUBLIC),
    "sandbox:toggle_raw": Row(POST_ONLY),
    "sandbox:start": Row(everyone(302), lambda w: {"slug": w.run}),
    "sandbox:steps": Row(PUBLIC, lambda w: {"slug": w.run, "n": 1}),
    "sandbox:predict": Row(PUBLIC, lambda w: {"slug": w.run, "n": 1}),
    "sandbox:predict_summary": Row(PUBLIC, lambda w: {"slug": w.run}),
    "sandbox:predict_reset": Row(POST_ONLY, lambda w: {"slug": w.run}),
    "sandbox:upload_start": Row(OWNER_REDIRECT, lambda w: {"pk": w.upload.pk}),
    "sandbox:upload_steps": Row(OWNER, lambda w: {"pk": w.upload.pk, "n": 1}),
    "sandbox:upload_predict": Row(OWNER, lambda w: {"pk": w.upload.pk, "n": 1}, NOT_OWNER),
    "sandbox:upload_predict_summary": Row(OWNER, lambda w: {"pk": w.upload.pk}),
    "sandbox:upload_predict_reset": Row(POST_ONLY, lambda w: {"pk": w.upload.pk}, NOT_OWNER),
    "sandbox:upload_delete": Row(POST_ONLY, lambda w: {"pk": w.upload.pk}, NOT_OWNER),
    "sandbox:upload_share": Row(POST_ONLY, lambda w: {"pk": w.upload.pk}, NOT_OWNER),
    "sandbox:upload_overview": Row(OWNER, lambda w: {"pk": w.upload.pk}),
    "sandbox:upload_conversation": Row(OWNER, lambda w: {"pk": w.upload.pk}),
    "sandbox:overview": Row(PUBLIC, lambda w: {"slug": w.run}),
    "sandbox:conversation": Row(PUBLIC, lambda w: {"slug": w.run}),
    # A published link: anyone who has it reads the run (read-only).
    "sandbox:shared_overview": Row(PUBLIC, lambda w: {"token": _published(w.upload)}),
    "sandbox:shared_steps": Row(PUBLIC, lambda w: {"token": _published(w.upload), "n": 1}),
    "sandbox:shared_conversation": Row(PUBLIC, lambda w: {"token": _published(w.upload)}),
    # Live runs against the API: private to their owner like uploads.
    "sandbox:live": Row(PUBLIC),
    "sandbox:live_run": Row(OWNER, lambda w: {"pk": w.live.pk}),
    "sandbox:live_steps": Row(OWNER_REDIRECT, lambda w: {"pk": w.live.pk, "n": 1}),  # no turns
    "sandbox:live_step": Row(POST_ONLY, lambda w: {"pk": w.live.pk}, NOT_OWNER),
    "sandbox:live_stop": Row(POST_ONLY, lambda w: {"pk": w.live.pk}, NOT_OWNER),
    # the call in progress (htmx polls it); with none, the run's page
    "sandbox:live_job": Row(OWNER_REDIRECT, lambda w: {"pk": w.live.pk}),
    "sandbox:live_key": Row(POST_ONLY, lambda w: {"pk": w.live.pk}, NOT_OWNER),
    "sandbox:live_fork": Row(POST_ONLY, lambda w: {"pk": w.live.pk}, NOT_OWNER),
    "sandbox:live_save": Row(POST_ONLY, lambda w: {"pk": w.live.pk}, NOT_OWNER),
    # Progress: each visitor sees their own (anonymous ones: their browser's).
    "progress:dashboard": Row(PUBLIC),
    "progress:review": Row(PUBLIC),
    "progress:review_start": Row(POST_ONLY),
    "progress:retention": Row(POST_ONLY),
    "progress:study_ahead": Row(POST_ONLY),
    "progress:flashcards": Row(PUBLIC),
    "progress:anki_export": Row(PUBLIC),
    # Authoring, import/export and statistics: instructors and staff only
    # (tests/test_authoring_views.py covers their POSTs per role in depth).
    "author:index": Row(INSTRUCTOR),
    "author:question_new": Row(INSTRUCTOR, None, NOT_INSTRUCTOR),
    "author:question_preview": Row(POST_ONLY, None, NOT_INSTRUCTOR),
    "author:question_edit": Row(INSTRUCTOR, lambda w: {"slug": w.slug}, NOT_INSTRUCTOR),
    "author:question_publish": Row(POST_ONLY, lambda w: {"slug": w.slug}, NOT_INSTRUCTOR),
    "author:question_version": Row(INSTRUCTOR, lambda w: {"slug": w.slug, "version": 1}),
    "author:reports": Row(INSTRUCTOR),
    "author:report_resolve": Row(POST_ONLY, lambda w: {"pk": w.report.pk}, NOT_INSTRUCTOR),
    "author:from_step": Row(POST_ONLY, None, NOT_INSTRUCTOR),
    "author:import": Row(INSTRUCTOR, None, NOT_INSTRUCTOR),
    # instructor_required wraps require_POST here, so only instructors learn it wants a POST.
    "author:import_apply": Row(
        {**INSTRUCTOR, "instructor": 405, "staff": 405}, None, NOT_INSTRUCTOR
    ),
    "author:export": Row(INSTRUCTOR),
    "author:grading": Row(INSTRUCTOR),
    "author:grading_grade": Row(
        {**INSTRUCTOR, "instructor": 405, "staff": 405}, lambda w: {"pk": 1}, NOT_INSTRUCTOR
    ),
    "author:stats": Row(INSTRUCTOR),
    "author:stats_question": Row(INSTRUCTOR, lambda w: {"slug": w.slug}),
    # Anyone who meets a question may report a problem with it.
    "author:report_problem": Row(PUBLIC, lambda w: {"slug": w.slug}),
}


def client_as(client, world, role):
    """``client`` as ``role`` of the world: signed in with the session the shared world made for
    that role once (conftest's shared_world), or logged in now (a fresh world); anonymous: as
    it is."""
    from django.conf import settings

    user = world.users[role]
    session = getattr(world, "sessions", {}).get(role)
    if session:
        client.cookies[settings.SESSION_COOKIE_NAME] = session
    elif user is not None:
        client.force_login(user)
    return client


#: The URL names of the URLconf that have a row (every one, once test_access_matrix passes).
PRESENT = [n for n in url_names() if n in MATRIX]
