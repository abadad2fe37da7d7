"""The learner dashboard's numbers, each from one grouped query whatever the history's size."""

from __future__ import annotations

from datetime import datetime, timedelta
from types import SimpleNamespace

from django.db.models import Count, OuterRef, Q, Subquery, Sum
from django.utils import timezone
from django.utils.translation import gettext

from core.owners import Owner
from core.prepared import STAND_IN_NOW, owner_stand_in, prepared_rows
from quizzes import services as quiz_services
from quizzes import versioncache
from quizzes.forms import SUBTOPIC_LABELS
from quizzes.models import Attempt, Question, Response
from quizzes.schema import FAMILIES, SUBTOPICS

from . import charts, readiness, rules
from .models import ConceptCard, Confidence

EXAM_HISTORY = 20  # exams shown in the trend chart and its table
TOP_FAMILIES = 5


def _answered(owner: Owner):
    """Answers that count: every practice answer, and answers of closed exams."""
    return Response.objects.released().filter(attempt__in=Attempt.objects.owned_by(owner))


def _answered_by(signed_in: bool, who, now):
    """``_answered(owner)`` at ``now`` for the owner ``who`` (a user's pk, or a token)."""
    mine = {"user_id": who} if signed_in else {"user": None, "owner_token": who}
    return Response.objects.released(now).filter(attempt__in=Attempt.objects.filter(**mine))


def _scores_query(answered):
    return (
        answered.values("question__subtopic", "attempt__mode")
        .annotate(n=Count("id"), points=Sum("score"))
        .order_by()
    )


def _bank_query(seen, first_of, first_of_again=None):
    """Published questions per subtopic: how many, how many this learner has seen, and how
    their first answers went. ``first_of_again``: the same answers, named on their own for the
    second count that reads the first answer (a compiled query has each value in one place)."""
    seen_slugs = seen.values("question__slug")

    def first(answered):
        # The first answer this learner gave to each question: a new item's best stand-in.
        return Subquery(
            answered.filter(question__slug=OuterRef("slug"))
            .order_by("answered_at", "pk")
            .values("is_correct")[:1]
        )

    again = "first_correct" if first_of_again is None else "first_correct_again"
    rows = Question.objects.published().annotate(first_correct=first(first_of))
    if first_of_again is not None:
        rows = rows.annotate(first_correct_again=first(first_of_again))
    return (
        rows.values("subtopic")
        .annotate(
            total=Count("id"),
            seen=Count("id", filter=Q(slug__in=seen_slugs)),
            first_n=Count("id", filter=Q(first_correct__isnull=False)),
            first_k=Count("id", filter=Q(**{again: True})),
        )
        .order_by()
    )


_SCORE_COLUMNS = ("question__subtopic", "attempt__mode", "n", "points")
_BANK_COLUMNS = ("subtopic", "total", "seen", "first_n", "first_k")


def _subtopic_queries(owner: Owner) -> tuple[list[dict], list[dict], list[tuple]]:
    """The rows of subtopic_rows' three queries: scores, bank (as ``.values()`` dicts), cards."""
    if owner.user is None and not owner.token:  # owns nothing: the ORM's empty querysets
        return (
            list(_scores_query(_answered(owner))),
            list(_bank_query(_answered(owner), _answered(owner))),
            list(ConceptCard.objects.owned_by(owner).values_list("subtopic", "due")),
        )
    signed_in = owner.user is not None
    who = owner.user.pk if signed_in else owner.token

    now = timezone.now()
    scores = prepared_rows(
        ("progress-scores", signed_in),
        lambda who, now: _scores_query(_answered_by(signed_in, who, now)),
        who=owner_stand_in(signed_in, 0),
        now=STAND_IN_NOW,
    ).rows(who=who, now=now)
    bank = prepared_rows(
        ("progress-bank", signed_in),
        lambda who1, now1, who2, now2, who3, now3: _bank_query(
            _answered_by(signed_in, who1, now1),
            _answered_by(signed_in, who2, now2),
            _answered_by(signed_in, who3, now3),
        ),
        who1=owner_stand_in(signed_in, 1),
        now1=STAND_IN_NOW,
        who2=owner_stand_in(signed_in, 2),
        now2=STAND_IN_NOW + timedelta(microseconds=1),
        who3=owner_stand_in(signed_in, 3),
        now3=STAND_IN_NOW + timedelta(microseconds=2),
    ).rows(who1=who, now1=now, who2=who, now2=now, who3=who, now3=now)
    cards = prepared_rows(
        ("progress-cards", signed_in),
        lambda who: ConceptCard.objects.filter(
            **({"user_id": who} if signed_in else {"user": None, "owner_token": who})
        ).values_list("subtopic", "due"),
        who=owner_stand_in(signed_in, 4),
    ).rows(who=who)
    return (
        [dict(zip(_SCORE_COLUMNS, row, strict=True)) for row in scores],
        [dict(zip(_BANK_COLUMNS, row, strict=True)) for row in bank],
        cards,
    )


def subtopic_rows(owner: Owner, now: datetime) -> list[dict]:
    """Per subtopic: practice and exam mastery, seen and unseen questions, reviews due.

    Three queries: scores grouped by subtopic and mode; published questions grouped by subtopic
    with how many this learner has answered; the learner's cards. Their SQL is compiled once
    per process and kind of owner (core/prepared.py): building it was most of the page's work.
    """
    scores, bank, cards = _subtopic_queries(owner)
    due = {}
    for subtopic, when in cards:
        if when <= now:
            due[subtopic] = due.get(subtopic, 0) + 1
    rows = {
        s: {
            "subtopic": s,
            "label": SUBTOPIC_LABELS.get(s, s),
            "practice": None,
            "exam": None,
            "n": 0,
            "points": 0.0,
            "total": 0,
            "seen": 0,
            "first_n": 0,
            "first_k": 0,
            "due": due.get(s, 0),
        }
        for s in SUBTOPICS
    }
    for row in scores:
        r = rows.get(row["question__subtopic"])
        if r is None:
            continue
        # An answer with no automatic grade yet (an essay) has no score: it counts as none,
        # as in the totals below, not as a page that fails (Sum() of only those is NULL).
        points = row["points"] or 0
        r[row["attempt__mode"]] = {"n": row["n"], "percent": round(100 * points / row["n"])}
        r["n"] += row["n"]
        r["points"] += row["points"] or 0
    for row in bank:
        if row["subtopic"] in rows:
            rows[row["subtopic"]].update(
                total=row["total"],
                seen=row["seen"],
                first_n=row["first_n"],
                first_k=row["first_k"],
            )
    out = []
    for r in rows.values():
        if not (r["total"] or r["n"]):
            continue
        r["unseen"] = max(0, r["total"] - r["seen"])
        r["mastery"] = round(100 * r["points"] / r["n"]) if r["n"] else None
        r["coverage"] = round(100 * r["seen"] / r["total"]) if r["total"] else 0
        r["estimate"] = readiness.estimate(r["first_k"], r["first_n"]) if r["first_n"] else None
        out.append(r)
    order = {s: i for i, s in enumerate(SUBTOPICS)}
    # Weakest estimate first; subtopics not started yet come after everything measured.
    out.sort(
        key=lambda r: (
            r["estimate"] is None,
            r["estimate"].mean if r["estimate"] else 0,
            order[r["subtopic"]],
        )
    )
    return out


def overall_readiness(subtopics: list[dict]) -> dict:
    """One Beta posterior over every first answer, its verdict and the assumptions behind it."""
    right = sum(r["first_k"] for r in subtopics)
    answered = sum(r["first_n"] for r in subtopics)
    est = readiness.estimate(right, answered)
    seen = sum(r["seen"] for r in subtopics)
    total = sum(r["total"] for r in subtopics)
    verdict = readiness.verdict(est)
    return {
        "estimate": est,
        "verdict": verdict,
        "threshold": round(100 * readiness.PASS_SHARE),
        "seen": seen,
        "total": total,
        "prior": gettext(readiness.PRIOR_TEXT),
        "threshold_text": gettext(readiness.THRESHOLD_TEXT),
        "why_high": gettext(readiness.WHY_HIGH_TEXT),
        # readiness.py stays pure: the words that carry numbers are put together here, in the
        # reader's language (in English they equal verdict.reason and est.text: a test checks).
        "verdict_label": gettext(verdict.label),
        "verdict_reason": verdict_reason(verdict.key),
        "estimate_text": estimate_text(est),
    }


def verdict_reason(key: str) -> str:
    pct = {"pct": round(100 * readiness.PASS_SHARE)}
    if key == "likely":
        return gettext("The whole 90%% interval is above %(pct)s%%.") % pct
    if key == "not-yet":
        return gettext("The whole 90%% interval is below %(pct)s%%.") % pct
    if key == "borderline":
        return (
            gettext("The 90%% interval includes %(pct)s%%: more first answers would narrow it.")
            % pct
        )
    return gettext("Answer some questions first.")


def estimate_text(est: readiness.Estimate) -> str:
    return gettext("%(percent)s%% (90%% interval %(low)s–%(high)s%%)") % {
        "percent": est.percent,
        "low": est.low_percent,
        "high": est.high_percent,
    }


def _compiled(
    name: str, owner: Owner, build, columns: tuple[str, ...], *, at_now: bool = False
) -> list[dict] | None:
    """``build(signed_in, who, now)``'s rows as dicts of ``columns``, its SQL compiled once per
    process and kind of owner (``who``: a user's pk or a token; ``now`` the current time, when
    ``at_now``: each named once in the SQL); None for an owner with neither (the caller runs its
    ORM queryset, which is empty)."""
    if owner.user is None and not owner.token:
        return None
    signed_in = owner.user is not None
    stand_ins: dict = {"who": owner_stand_in(signed_in)}
    values: dict = {"who": owner.user.pk if signed_in else owner.token}
    if at_now:
        stand_ins["now"], values["now"] = STAND_IN_NOW, timezone.now()
    query = prepared_rows(
        (name, signed_in), lambda who, now=None: build(signed_in, who, now), **stand_ins
    )
    return [dict(zip(columns, row, strict=True)) for row in query.rows(**values)]


def _attempts_by(signed_in: bool, who):
    return Attempt.objects.filter(
        **({"user_id": who} if signed_in else {"user": None, "owner_token": who})
    )


def _exams_query(attempts):
    return (
        attempts.filter(mode=Attempt.Mode.EXAM, submitted_at__isnull=False, retake_of__isnull=True)
        .order_by("-submitted_at")
        .values(*_EXAM_COLUMNS)[:EXAM_HISTORY]
    )


_EXAM_COLUMNS = ("id", "submitted_at", "score", "question_count", "exam_format")


def exam_history(owner: Owner) -> list[dict]:
    """The last submitted exams, oldest first (one query)."""
    exams = _compiled(
        "progress-exams",
        owner,
        lambda s, who, now: _exams_query(_attempts_by(s, who)),
        _EXAM_COLUMNS,
    )
    if exams is None:
        exams = list(_exams_query(Attempt.objects.owned_by(owner)))
    exams.reverse()
    for i, e in enumerate(exams, 1):
        e["number"] = i
        e["score"] = e["score"] or 0.0
    return exams


def family_rows(owner: Owner) -> list[dict]:
    """Distractor families ranked by how often they caught this learner when offered.

    Three queries: answers grouped by (question, traps fallen into), then those questions and
    their options (none for the options of versions this process keeps already).
    quizzes.services.family_report then runs over light stand-ins, one per answer, that share
    one precomputed option list per question.
    """
    groups = _compiled(
        "progress-families",
        owner,
        lambda s, who, now: _families_query(_answered_by(s, who, now)),
        ("question_id", "families", "n"),
        at_now=True,
    )
    if groups is None:
        groups = list(_families_query(_answered(owner)))
    stand_ins = {}
    questions = list(
        Question.objects.filter(pk__in={g["question_id"] for g in groups}).only(
            "id", "data", "created_at", "content_hash"
        )
    )
    # Their options from the per-version cache (quizzes/versioncache.py): the one query
    # prefetch_related("options") ran for the versions this process lacks, none for the rest.
    versioncache.with_options_all(questions)
    for q in questions:
        options = [SimpleNamespace(family=o.family) for o in q.options.all()]
        stand_ins[q.pk] = SimpleNamespace(
            data=q.data, options=SimpleNamespace(all=lambda options=options: options)
        )
    answers = []
    for g in groups:
        answers += [
            SimpleNamespace(question=stand_ins[g["question_id"]], families=g["families"])
        ] * g["n"]
    rows = quiz_services.family_report(answers)
    for row in rows:
        row["description"] = FAMILIES.get(row["family"], "")
        row["percent"] = round(100 * row["rate"])
    return rows[:TOP_FAMILIES]


def _families_query(answered):
    return answered.values("question_id", "families").annotate(n=Count("id")).order_by()


def _certainty_query(attempts):
    return (
        Confidence.objects.filter(response__attempt__in=attempts)
        .values("certainty")
        .annotate(n=Count("pk"), right=Count("pk", filter=Q(response__is_correct=True)))
        .order_by()
    )


def certainty_summary(owner: Owner) -> rules.CbmSummary:
    """Answers and right answers at each stated certainty (one grouped query)."""
    rows = _compiled(
        "progress-certainty",
        owner,
        lambda s, who, now: _certainty_query(_attempts_by(s, who)),
        ("certainty", "n", "right"),
    )
    if rows is None:
        rows = list(_certainty_query(Attempt.objects.owned_by(owner)))
    counts = {row["certainty"]: (row["n"], row["right"]) for row in rows}
    return rules.cbm_summary(counts)


def dashboard(owner: Owner, now: datetime) -> dict:
    if owner.user is None and not owner.token:
        return {"empty": True}
    subtopics = subtopic_rows(owner, now)
    exams = exam_history(owner)
    cbm = certainty_summary(owner)
    return {
        "empty": not any(r["n"] for r in subtopics) and not exams,
        "subtopics": subtopics,
        "readiness": overall_readiness(subtopics),
        "due_total": sum(r["due"] for r in subtopics),
        "exams": exams,
        "trend": charts.trend([(f"#{e['number']}", e["score"]) for e in exams]) if exams else None,
        "families": family_rows(owner),
        "cbm": cbm,
        "calibration": charts.calibration(cbm.rows) if cbm.answers else None,
    }
