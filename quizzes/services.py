"""Write paths of the quiz engine: start attempts, save answers, submit."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from datetime import timedelta

from django.db import connections, router, transaction
from django.db.models import Count, Exists, OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from core.owners import Owner
from core.prepared import STAND_IN_NOW, prepared, prepared_update

from . import grading, kinds
from .models import Attempt, Question, Response
from .scenarios import SCENARIOS
from .schema import SUBTOPICS

#: Share of a mock exam per subtopic, in percent, following the weight of each in the topic.
BLUEPRINT: dict[str, int] = {
    "stop-reasons": 22,
    "tool-choice": 14,
    "tool-results": 12,
    "server-tools": 9,
    "guards": 8,
    "errors": 8,
    "rules-in-code": 7,
    "thinking": 6,
    "observability": 6,
    "loop-basics": 4,
    "parallel": 2,
    "context": 2,
}
SECONDS_PER_QUESTION = 120
EXAM_SIZES = (5, 10, 20, 30, 60)
PRACTICE_SIZES = (5, 10, 15, 20, 40)
#: The CCA-F format: 4 of the 6 scenarios per sitting, the same number of items in each.
CCAF_SCENARIOS_PER_EXAM = 4
CCAF_PER_SCENARIO = (5, 8)


class SelectionError(ValueError):
    """No questions fit what the learner asked for."""


def allocate(n: int, weights: dict[str, int]) -> dict[str, int]:
    """Split n over subtopics by weight with the largest-remainder method (integer exact)."""
    total = sum(weights.values())
    counts = {k: n * w // total for k, w in weights.items()}
    rest = n - sum(counts.values())
    by_remainder = sorted(weights, key=lambda k: (n * weights[k] % total, weights[k]), reverse=True)
    for k in by_remainder[:rest]:
        counts[k] += 1
    return counts


def _one_per_cluster(ids: list[int], clusters: dict[int, str], taken: set[str]) -> list[int]:
    """Keep ids in order, dropping any whose cluster is already in ``taken`` (updated)."""
    kept = []
    for qid in ids:
        cluster = clusters.get(qid, "")
        if cluster and cluster in taken:
            continue
        if cluster:
            taken.add(cluster)
        kept.append(qid)
    return kept


def draw_exam(pool: list[tuple], n: int, rng: random.Random) -> list[int]:
    """Pick n question ids from (id, subtopic[, cluster]) rows following the blueprint.

    Items of one redundancy cluster cue each other, so an exam holds at most one of them.
    """
    clusters = {row[0]: (row[2] if len(row) > 2 else "") for row in pool}
    by_topic: dict[str, list[int]] = {}
    for qid, topic, *_ in sorted(pool):
        by_topic.setdefault(topic, []).append(qid)
    chosen: list[int] = []
    taken: set[str] = set()
    for topic, k in allocate(n, BLUEPRINT).items():
        ids = list(by_topic.get(topic, []))
        rng.shuffle(ids)
        chosen += _one_per_cluster(ids, clusters, taken)[:k]
    if len(chosen) < n:  # a thin subtopic: fill from the rest of the bank
        leftover = sorted(set(clusters) - set(chosen))
        rng.shuffle(leftover)
        chosen += _one_per_cluster(leftover, clusters, taken)[: n - len(chosen)]
    rng.shuffle(chosen)
    return chosen


def draw_ccaf(pool: list[tuple[int, str, str]], per_scenario: int, rng: random.Random) -> list[int]:
    """The CCA-F draw from (id, scenario, cluster) rows: 4 of the scenarios that have enough
    items, ``per_scenario`` items from each, grouped by scenario, one item per cluster."""
    by_scenario: dict[str, list[int]] = {}
    clusters: dict[int, str] = {}
    for qid, scenario, cluster in sorted(pool):
        by_scenario.setdefault(scenario, []).append(qid)
        clusters[qid] = cluster
    eligible = sorted(s for s, ids in by_scenario.items() if len(ids) >= per_scenario)
    if len(eligible) < CCAF_SCENARIOS_PER_EXAM:
        raise SelectionError(
            gettext(
                "A CCA-F format exam needs %(scenarios)s scenarios with at least "
                "%(per)s single-choice items each; the bank has %(eligible)s."
            )
            % {
                "scenarios": CCAF_SCENARIOS_PER_EXAM,
                "per": per_scenario,
                "eligible": len(eligible),
            }
        )
    picked = rng.sample(eligible, CCAF_SCENARIOS_PER_EXAM)
    taken: set[str] = set()
    chosen: list[int] = []
    for scenario in picked:
        ids = list(by_scenario[scenario])
        rng.shuffle(ids)
        chosen += _one_per_cluster(ids, clusters, taken)[:per_scenario]
    return chosen


def _history(owner: Owner):
    # Only closed attempts: an open exam's answers must not leak through "missed last time".
    return Response.objects.released().filter(attempt__in=Attempt.objects.owned_by(owner))


def practice_pool(owner: Owner, *, subtopics: list[str], which: str) -> list[int]:
    """Ids of current published questions for a practice set: all, not seen yet, or missed."""
    qs = Question.objects.published()
    if subtopics:
        qs = qs.filter(subtopic__in=subtopics)
    if which == "unseen":
        seen = _history(owner).values("question__slug")
        qs = qs.exclude(slug__in=seen)
    elif which == "missed":
        latest = (
            _history(owner)
            .filter(question__slug=OuterRef("slug"))
            .order_by("-answered_at")
            .values("is_correct")[:1]
        )
        qs = qs.annotate(last_correct=Subquery(latest)).filter(last_correct=False)
    return list(qs.values_list("id", flat=True))


@transaction.atomic
def attempt_start(
    *, owner: Owner, mode: str, question_ids: list[int], seed: int, retake_of=None
) -> Attempt:
    now = timezone.now()
    attempt = Attempt.objects.create(
        mode=mode,
        user=owner.user,
        owner_token=owner.token,
        seed=seed,
        started_at=now,
        deadline=now + timedelta(seconds=SECONDS_PER_QUESTION * len(question_ids))
        if mode == Attempt.Mode.EXAM
        else None,
        question_count=len(question_ids),
        retake_of=retake_of,
    )
    Response.objects.bulk_create(
        Response(attempt=attempt, question_id=qid, position=i + 1)
        for i, qid in enumerate(question_ids)
    )
    return attempt


def practice_start(*, owner: Owner, subtopics: list[str], which: str, count: int) -> Attempt:
    pool = practice_pool(owner, subtopics=subtopics, which=which)
    if not pool:
        raise SelectionError(
            {
                "unseen": gettext("You have seen every question in that selection. Choose “all”."),
                "missed": gettext("Nothing in that selection was missed last time. Well done!"),
            }.get(which, gettext("No published questions match that selection."))
        )
    seed = random.SystemRandom().randrange(2**53)
    rng = random.Random(seed)
    ids = rng.sample(sorted(pool), min(count, len(pool)))
    attempt = attempt_start(owner=owner, mode=Attempt.Mode.PRACTICE, question_ids=ids, seed=seed)
    attempt.asked_for = count  # the view says so when fewer were available
    return attempt


def fewer_than_asked(asked: int, got: int, which: str) -> str:
    """The message shown when a practice set is smaller than the size the learner chose."""
    if got >= asked:
        return ""
    if which == "unseen":
        text = ngettext(
            "You asked for %(asked)s unseen questions; only %(got)s is available, "
            "so this set has %(got)s.",
            "You asked for %(asked)s unseen questions; only %(got)s are available, "
            "so this set has %(got)s.",
            got,
        )
    elif which == "missed":
        text = ngettext(
            "You asked for %(asked)s missed questions; only %(got)s is available, "
            "so this set has %(got)s.",
            "You asked for %(asked)s missed questions; only %(got)s are available, "
            "so this set has %(got)s.",
            got,
        )
    else:
        text = ngettext(
            "You asked for %(asked)s matching questions; only %(got)s is available, "
            "so this set has %(got)s.",
            "You asked for %(asked)s matching questions; only %(got)s are available, "
            "so this set has %(got)s.",
            got,
        )
    return text % {"asked": asked, "got": got}


def exam_start(*, owner: Owner, count: int, seed: int | None = None) -> Attempt:
    pool = list(Question.objects.published().values_list("id", "subtopic", "cluster"))
    if not pool:
        raise SelectionError(gettext("The question bank is empty: run manage.py loadcontent."))
    seed = seed if seed is not None else random.SystemRandom().randrange(2**53)
    ids = draw_exam(pool, min(count, len(pool)), random.Random(seed))
    return attempt_start(owner=owner, mode=Attempt.Mode.EXAM, question_ids=ids, seed=seed)


def ccaf_pool() -> list[tuple[int, str, str]]:
    """Published single-choice items inside one of the six scenarios, with exactly one correct
    option and three distractors (the exam's item shape)."""
    rows = (
        Question.objects.published()
        .filter(kind=kinds.Kind.SINGLE, scenario__in=list(SCENARIOS))
        .annotate(
            n_options=Count("options"), n_correct=Count("options", filter=Q(options__correct=True))
        )
        .filter(n_options=4, n_correct=1)
        .values_list("id", "scenario", "cluster")
    )
    return list(rows)


def ccaf_exam_start(*, owner: Owner, per_scenario: int, seed: int | None = None) -> Attempt:
    """A CCA-F format mock: 4 of the 6 scenarios, their items grouped, 2 minutes per item."""
    seed = seed if seed is not None else random.SystemRandom().randrange(2**53)
    ids = draw_ccaf(ccaf_pool(), per_scenario, random.Random(seed))
    attempt = attempt_start(owner=owner, mode=Attempt.Mode.EXAM, question_ids=ids, seed=seed)
    attempt.exam_format = Attempt.Format.CCAF
    attempt.save(update_fields=["exam_format"])
    return attempt


class AttemptOpen(SelectionError):
    """The exam is still open: nothing may be drawn from its answers yet."""


def exam_retake_missed(*, owner: Owner, attempt: Attempt) -> Attempt:
    if not attempt.is_closed():
        # A retake of the questions currently wrong would tell the candidate which ones they are.
        raise AttemptOpen(
            gettext("Submit this exam first: a retake is drawn from a finished exam.")
        )
    if not attempt.is_submitted:  # past its deadline: close it as the results page would
        attempt = attempt_submit(attempt=attempt)
    missed = list(
        attempt.responses.exclude(is_correct=True).order_by("position")
        .values_list("question__slug", flat=True)
    )  # fmt: skip
    if not missed:
        raise SelectionError(
            gettext("You missed nothing in that exam, so there is nothing to retake.")
        )
    ids = list(Question.objects.current().filter(slug__in=missed).values_list("id", flat=True))
    seed = random.SystemRandom().randrange(2**53)
    random.Random(seed).shuffle(ids)
    # A retake is practice on what was missed: feedback at once, and never counted as an exam.
    return attempt_start(
        owner=owner, mode=Attempt.Mode.PRACTICE, question_ids=ids, seed=seed, retake_of=attempt
    )


class AttemptClosed(Exception):
    """The attempt no longer takes answers (submitted, or past its deadline)."""


@dataclass
class Saved:
    response: Response
    graded: grading.Graded | None


def _lock_open(attempt_id: int, now) -> Attempt:
    """Lock the attempt's row for this transaction and check it still takes changes.

    A save and a submit both take this lock (``attempt_submit`` locks the same row), so a save
    either lands before the score is computed or is refused: never stored after submission.
    """
    # Compiled once per process (core/prepared.py); always run inside the caller's transaction.
    query = prepared(
        ("lock-attempt",),
        lambda pk: Attempt.objects.select_for_update().filter(pk=pk),
        pk=1_999_999_001,
    )
    locked = query.first(pk=attempt_id)
    if locked is None:
        raise Attempt.DoesNotExist(attempt_id)
    if locked.is_submitted:
        raise AttemptClosed(
            gettext("This attempt was already submitted; answers can no longer change.")
        )
    if locked.is_expired(now):
        raise _Expired
    return locked


class _Expired(Exception):
    pass


_TIME_RAN_OUT = (
    "Time ran out, so this answer was not saved. Your exam has been submitted with "
    "the answers saved before the deadline."
)


def _if_open(pk: int, attempt: int, now, lock_after_first: bool):
    """The response row, if its attempt still takes answers at ``now`` (one UPDATE's WHERE)."""
    still_open = Attempt.objects.filter(
        Q(deadline__isnull=True) | Q(deadline__gt=now), pk=attempt, submitted_at__isnull=True
    )
    rows = Response.objects.filter(Exists(still_open), pk=pk)
    return rows.filter(answered_at__isnull=True) if lock_after_first else rows


def _unlocked_rows(pk: int, lock_after_first: bool):
    """The response row, unless it keeps its first answer and has one."""
    rows = Response.objects.filter(pk=pk)
    return rows.filter(answered_at__isnull=True) if lock_after_first else rows


def _practice_rows(pk: int, lock_after_first: bool):
    """The practice response row, if its attempt is not submitted (one UPDATE's WHERE)."""
    return _unlocked_rows(pk, lock_after_first).filter(attempt__submitted_at__isnull=True)


def response_save(*, response: Response, answer: dict, lock_after_first: bool) -> Saved:
    """Grade and store an answer. Practice keeps the first answer; exams keep the last.

    The checks that the attempt is still open run inside the write's transaction, on a fresh
    row under lock: the ``response.attempt`` a view loaded may already be out of date.
    """
    if response.attempt.is_submitted:
        raise AttemptClosed(
            gettext("This attempt was already submitted; answers can no longer change.")
        )
    if lock_after_first and response.answered:
        return Saved(response, None)  # a double submit changes nothing
    graded = grading.grade(response.question.grading_spec(), answer)  # pure; outside the lock
    now = timezone.now()
    fields = {
        "answer": answer,
        # No automatic grade (essay): no score until an instructor grades it.
        "score": None if graded.pending else graded.score,
        "is_correct": None if graded.pending else graded.correct,
        "families": graded.families,
        "answered_at": now,
    }

    if response.attempt.mode == Attempt.Mode.PRACTICE:
        # No deadline and no score to race: one conditional UPDATE is the whole check, its SQL
        # compiled once per process (core/prepared.py): building it was most of the save's work.
        save = prepared_update(
            ("practice-save", lock_after_first),
            lambda pk: _practice_rows(pk, lock_after_first),
            tuple(fields),
            pk=1_999_999_001,
        )
        stored = save.run(fields, pk=response.pk)
    else:
        stored = 0
        if not connections[router.db_for_write(Response)].features.has_select_for_update:
            # SQLite writes one transaction at a time, so one UPDATE that checks the attempt is
            # open in its own WHERE is ordered against a submit's transaction as the row lock
            # below orders it: the write lock is held for that one statement, not for a
            # BEGIN, a SELECT and an UPDATE. No row: find out why, below.
            # Compiled to SQL once per process (core/prepared.py), like the page's other queries.
            save = prepared_update(
                ("save-if-open", lock_after_first),
                lambda pk, attempt, now: _if_open(pk, attempt, now, lock_after_first),
                tuple(fields),
                pk=1_999_999_001,
                attempt=1_999_999_002,
                now=STAND_IN_NOW,
            )
            stored = save.run(fields, pk=response.pk, attempt=response.attempt_id, now=now)
        if not stored:
            try:
                with transaction.atomic():
                    _lock_open(response.attempt_id, now)
                    stored = _unlocked_rows(response.pk, lock_after_first).update(**fields)
            except _Expired:
                attempt_submit(attempt=response.attempt)
                raise AttemptClosed(_TIME_RAN_OUT) from None
            except AttemptClosed:
                response.attempt.refresh_from_db()
                raise
    if not stored:  # another request answered first: show what it stored
        response.refresh_from_db(fields=list(fields))
        return Saved(response, None)
    for name, value in fields.items():
        setattr(response, name, value)
    return Saved(response, graded)


def response_self_mark(*, response: Response, mark: str) -> str:
    """Keep the candidate's own mark of an answer with no automatic grade; '' or a message."""
    module = kinds.get(response.question.kind)
    if module is None or module.AUTO_GRADED:
        return "Only answers without an automatic grade are marked by yourself."
    if mark not in module.SELF_MARKS:
        return "Choose one of the marks."
    response.answer = {**(response.answer or {}), "self_mark": mark}
    response.save(update_fields=["answer"])
    return ""


def response_grade(*, response: Response, score: float) -> Response:
    """An instructor's grade for an answer with no automatic grade; the attempt is rescored."""
    response.score = score
    response.is_correct = score >= 0.999
    response.save(update_fields=["score", "is_correct"])
    attempt = response.attempt
    if attempt.submitted_at is not None:
        attempt.score = attempt_score(attempt)
        attempt.save(update_fields=["score"])
    return response


def attempt_score(attempt: Attempt) -> float:
    """Percent over the responses that count: an answer still waiting for its grade (an essay)
    is left out until an instructor grades it; an unanswered question counts as 0."""
    waiting = [k for k, m in kinds.REGISTRY.items() if not m.AUTO_GRADED]
    scores = list(
        attempt.responses.exclude(
            question__kind__in=waiting, answered_at__isnull=False, score__isnull=True
        ).values_list("score", flat=True)
    )
    return round(100 * sum(s or 0 for s in scores) / len(scores), 1) if scores else 0.0


def response_flag(*, response: Response) -> Response:
    """Toggle a flag, only while the exam is open (same lock and checks as a save)."""
    try:
        with transaction.atomic():
            _lock_open(response.attempt_id, timezone.now())
            rows = Response.objects.filter(pk=response.pk)
            flagged = not rows.values_list("flagged", flat=True).get()
            rows.update(flagged=flagged)
    except _Expired:
        attempt_submit(attempt=response.attempt)
        raise AttemptClosed(gettext("Time ran out; flags can no longer change.")) from None
    response.flagged = flagged
    return response


def attempt_submit(*, attempt: Attempt) -> Attempt:
    """Close an attempt and store its score; calling it twice changes nothing."""
    with transaction.atomic():
        locked = Attempt.objects.select_for_update().get(pk=attempt.pk)
        if locked.submitted_at is None:
            locked.score = attempt_score(locked)
            now = timezone.now()
            locked.submitted_at = min(now, locked.deadline) if locked.deadline else now
            locked.save(update_fields=["score", "submitted_at"])
    attempt.refresh_from_db()
    return attempt


def family_report(responses: list[Response]) -> list[dict]:
    """Each distractor family: how often it was offered, how often it caught the learner."""
    met: Counter = Counter()
    fell: Counter = Counter()
    for r in responses:
        offered = {o.family for o in r.question.options.all() if o.family}
        offered |= {w.get("family") for w in r.question.data.get("wrong_answers", [])} - {None}
        for fam in offered:
            met[fam] += 1
        for fam in set(r.families or []) & offered:  # a trap counts only where it was set
            fell[fam] += 1
    rows = [
        {"family": f, "met": met[f], "fell": fell[f], "rate": fell[f] / met[f] if met[f] else 0}
        for f in met
        if fell[f]
    ]
    return sorted(rows, key=lambda r: (-r["rate"], -r["fell"], r["family"]))


def scenario_report(responses: list[Response]) -> list[dict]:
    """Score per scenario, in the order the exam showed them."""
    from .scenarios import label

    rows: dict[str, dict] = {}
    for r in responses:
        slug = r.question.scenario or "general"
        row = rows.setdefault(slug, {"scenario": slug, "label": label(slug), "n": 0, "score": 0.0})
        row["n"] += 1
        row["score"] += r.score or 0
    for row in rows.values():
        row["right"] = row["score"]
        row["percent"] = round(100 * row["score"] / row["n"])
    return list(rows.values())


def subtopic_report(responses: list[Response]) -> list[dict]:
    rows: dict[str, dict] = {}
    for r in responses:
        row = rows.setdefault(
            r.question.subtopic, {"subtopic": r.question.subtopic, "n": 0, "score": 0.0}
        )
        row["n"] += 1
        row["score"] += r.score or 0
    for row in rows.values():
        row["percent"] = round(100 * row["score"] / row["n"])
    order = {s: i for i, s in enumerate(SUBTOPICS)}
    return sorted(rows.values(), key=lambda r: (r["percent"], order[r["subtopic"]]))
