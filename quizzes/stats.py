"""Item and test statistics for mock exams, with Moodle's formulas (REFERENCE.md §1d).

Which attempts: by default each learner's first submitted mock exam (retakes of missed
questions are left out, as Moodle's default "first attempt" does); ``which="all"`` uses every
submitted exam. A mark is the response's score (0 to 1); an unanswered question scores 0.

Random questions: our exams draw questions at random, so like Moodle's random slots a
question's statistics use only the attempts where it appeared. Its rest-of-test mark is the
attempt's total minus the item mark, as Moodle computes it, divided by the number of other
questions so that exams of 10 and of 60 questions sit on one scale. For exams of one length
that division is a constant, which leaves the correlation (discrimination index) and the
efficiency exactly Moodle's figures.

Whole-test figures (mean, median, SD, skewness, kurtosis, Cronbach's alpha, error ratio,
standard error) need one fixed set of slots, so they use the attempts of one exam length (the
most common by default), with each position in the exam as a slot.

Below ``FEW`` attempts a figure comes with a seeded bootstrap 95 % interval and is called
uncertain; below ``MIN_FOR_FLAG`` attempts no "needs review" flag is raised at all.
"""

from __future__ import annotations

import math
import operator
import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from django.utils.translation import gettext_noop

from . import kinds

FEW = 30
MIN_FOR_FLAG = 5
RESAMPLES = 500
SEED = 20261129
LOW_EFFICIENCY = 15.0
HIGH_FACILITY = 90.0
LOW_FACILITY = 20.0

# ----------------------------------------------------------------- formulas (pure)


def mean(xs: list[float]) -> float:
    return sum(xs) / len(xs)


def _dot(xs: list[float], ys: list[float]) -> float:
    return sum(map(operator.mul, xs, ys))  # C-level loop: this runs over every response


def variance(xs: list[float]) -> float | None:
    """Sample variance, divisor S − 1 (None below two values)."""
    return covariance(xs, xs)


def covariance(xs: list[float], ys: list[float]) -> float | None:
    """Sample covariance, divisor S − 1: (Σxy − S·x̄·ȳ) / (S − 1)."""
    n = len(xs)
    if n < 2:
        return None
    value = (_dot(xs, ys) - sum(xs) * sum(ys) / n) / (n - 1)
    return 0.0 if abs(value) < 1e-12 else value


def median(xs: list[float]) -> float:
    s = sorted(xs)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def discrimination(xs: list[float], ys: list[float]) -> float | None:
    """100 · Cov(x, Y) / sqrt(V(x) · V(Y)); None when a variance is 0."""
    vx, vy, c = variance(xs), variance(ys), covariance(xs, ys)
    if not vx or not vy or c is None:
        return None
    return 100 * c / math.sqrt(vx * vy)


def efficiency(xs: list[float], ys: list[float]) -> float | None:
    """100 · Cov(x, Y) / Cov_max(x, Y), pairing the independently sorted lists for the max."""
    c, cmax = covariance(xs, ys), covariance(sorted(xs), sorted(ys))
    if c is None or not cmax:
        return None
    return 100 * c / cmax


@dataclass
class Interval:
    low: float
    high: float


def bootstrap(
    pairs: list[tuple[float, float]], statistic, resamples: int = RESAMPLES, seed: int = SEED
) -> Interval | None:
    """Percentile 95 % interval of statistic(xs, ys) over seeded resamples of the pairs."""
    if len(pairs) < 2:
        return None
    rng = random.Random(seed)
    values = []
    for _ in range(resamples):
        sample = rng.choices(pairs, k=len(pairs))
        value = statistic([p[0] for p in sample], [p[1] for p in sample])
        if value is not None:
            values.append(value)
    if not values:
        return None
    values.sort()
    return Interval(values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))])


@dataclass
class ItemStats:
    slug: str
    n: int
    facility: float  # percent
    sd: float | None  # percent of the maximum mark
    discrimination: float | None  # percent
    efficiency: float | None  # percent
    facility_ci: Interval | None = None
    discrimination_ci: Interval | None = None
    review: str = ""

    @property
    def uncertain(self) -> bool:
        return self.n < FEW


def item_stats(slug: str, pairs: list[tuple[float, float]], max_mark: float = 1.0) -> ItemStats:
    """Statistics of one item from (item mark, rest-of-test mark) pairs, one per attempt."""
    return _item(slug, [p[0] for p in pairs], [p[1] for p in pairs], max_mark)


def _item(slug: str, xs: list[float], ys: list[float], max_mark: float = 1.0) -> ItemStats:
    var = variance(xs)
    item = ItemStats(
        slug=slug,
        n=len(xs),
        facility=100 * mean(xs) / max_mark,
        sd=None if var is None else 100 * math.sqrt(var) / max_mark,
        discrimination=discrimination(xs, ys),
        efficiency=efficiency(xs, ys),
    )
    if item.n < FEW:
        pairs = list(zip(xs, ys, strict=True))
        item.facility_ci = bootstrap(pairs, lambda a, _b: 100 * mean(a) / max_mark)
        item.discrimination_ci = bootstrap(pairs, discrimination)
    item.review = review_reason(item)
    return item


class ReviewReason(str):
    """Why a question needs review: equal to the English words (so it compares, sorts and caches
    as text), shown in the reader's language (``str()`` translates each reason when read)."""

    parts: tuple[tuple[str, dict[str, str]], ...]

    def __new__(cls, parts=()):
        parts = tuple(parts)
        obj = super().__new__(cls, "; ".join(text % params for text, params in parts))
        obj.parts = parts
        return obj

    def __str__(self) -> str:
        from django.utils.translation import gettext

        return "; ".join(gettext(text) % params for text, params in self.parts)

    def __reduce__(self):
        return (ReviewReason, (self.parts,))


def review_reason(item: ItemStats) -> str:
    """Why a question needs review, or "" (nothing is flagged below MIN_FOR_FLAG attempts)."""
    if item.n < MIN_FOR_FLAG:
        return ReviewReason()
    reasons = []
    if item.discrimination is not None and item.discrimination < 0:
        reasons.append(
            (gettext_noop("negative discrimination (%(value)s %%)"), _pct(item.discrimination))
        )
    if item.efficiency is not None and item.efficiency < LOW_EFFICIENCY:
        reasons.append(
            (
                gettext_noop("discriminative efficiency below 15 %% (%(value)s %%)"),
                _pct(item.efficiency),
            )
        )
    if item.facility > HIGH_FACILITY:
        reasons.append(
            (gettext_noop("facility above 90 %% (%(value)s %%): too easy"), _pct(item.facility))
        )
    if item.facility < LOW_FACILITY:
        reasons.append(
            (gettext_noop("facility below 20 %% (%(value)s %%): too hard"), _pct(item.facility))
        )
    return ReviewReason(reasons)


def _pct(value: float) -> dict[str, str]:
    return {"value": f"{value:.0f}"}


@dataclass
class TestStats:
    n: int  # attempts
    slots: int  # questions per attempt (P)
    mean: float  # marks
    median: float
    sd: float | None
    skewness: float | None
    kurtosis: float | None
    cic: float | None  # percent (Cronbach's alpha × 100)
    error_ratio: float | None  # percent
    standard_error: float | None  # marks
    cic_ci: Interval | None = None

    @property
    def uncertain(self) -> bool:
        return self.n < FEW

    def percent(self, marks: float | None) -> float | None:
        return None if marks is None else 100 * marks / self.slots


def _cic(rows: list[list[float]]) -> float | None:
    slots = len(rows[0])
    totals = [sum(r) for r in rows]
    k2 = variance(totals)
    if slots < 2 or not k2:
        return None
    slot_vars = [variance(list(column)) or 0.0 for column in zip(*rows, strict=True)]
    return 100 * slots / (slots - 1) * (1 - sum(slot_vars) / k2)


def test_stats(rows: list[list[float]]) -> TestStats | None:
    """Whole-test statistics; rows are attempts, columns the marks of slots 1..P."""
    if not rows:
        return None
    s = len(rows)
    totals = [sum(r) for r in rows]
    avg = mean(totals)
    d = [t - avg for t in totals]
    m2 = sum(x**2 for x in d) / s
    m3 = sum(x**3 for x in d) / s
    m4 = sum(x**4 for x in d) / s
    k2 = s * m2 / (s - 1) if s > 1 else None
    skew = kurt = None
    if k2 and s > 2:
        k3 = s**2 * m3 / ((s - 1) * (s - 2))
        skew = k3 / k2**1.5
    if k2 and s > 3:
        k4 = s**2 * ((s + 1) * m4 - 3 * (s - 1) * m2**2) / ((s - 1) * (s - 2) * (s - 3))
        kurt = k4 / k2**2
    cic = _cic(rows) if s > 1 else None
    er = se = None
    if cic is not None and cic <= 100:
        er = 100 * math.sqrt(1 - cic / 100) if cic >= 0 else None
        se = er / 100 * math.sqrt(k2) if er is not None and k2 else None
    stats = TestStats(
        n=s,
        slots=len(rows[0]),
        mean=avg,
        median=median(totals),
        sd=math.sqrt(k2) if k2 is not None else None,
        skewness=skew,
        kurtosis=kurt,
        cic=cic,
        error_ratio=er,
        standard_error=se,
    )
    if s < FEW and s > 1:
        rng = random.Random(SEED)
        values = sorted(
            v for v in (_cic(rng.choices(rows, k=s)) for _ in range(RESAMPLES)) if v is not None
        )
        if values:
            stats.cic_ci = Interval(
                values[int(0.025 * (len(values) - 1))], values[int(0.975 * (len(values) - 1))]
            )
    return stats


@dataclass
class Report:
    attempts: int
    items: list[ItemStats]
    test: TestStats | None
    sizes: dict[int, int]  # exam length -> attempts
    size: int | None  # the length the test figures use
    which: str = "first"
    attempt_ids: list[int] = field(default_factory=list)
    computed_at: float = 0.0  # time.time() when the figures were computed


def analyse(
    attempts: dict[int, list[tuple[str, int, float]]], size: int | None = None, which: str = "first"
) -> Report:
    """attempt id -> [(slug, position, mark)]: item statistics and whole-test statistics."""
    # One pass over every response: this loop is most of the page's cost at 100,000 responses.
    sizes = Counter(len(responses) for responses in attempts.values())
    if size is None and sizes:
        size = max(sizes, key=lambda k: (sizes[k], k))
    xs: dict[str, list[float]] = defaultdict(list)
    ys: dict[str, list[float]] = defaultdict(list)
    rows = []
    for responses in attempts.values():
        n = len(responses)
        total = sum(r[2] for r in responses)
        others = n - 1 or 1
        row = [0.0] * n if n == size else None
        for slug, position, mark in responses:
            xs[slug].append(mark)
            ys[slug].append((total - mark) / others)
            if row is not None:
                row[(position - 1) % n] = mark
        if row is not None:
            rows.append(row)
    items = [_item(slug, xs[slug], ys[slug]) for slug in sorted(xs)]
    return Report(
        attempts=len(attempts),
        items=items,
        test=test_stats(rows) if size and rows else None,
        sizes=dict(sorted(sizes.items())),
        size=size if rows else None,
        which=which,
        attempt_ids=sorted(attempts),
    )


def response_analysis(options: list[dict], answers: list, kind: str) -> list[dict]:
    """How often each option was chosen: rows {text, correct, count, frequency = count / S}.

    ``options`` are {key, text, correct}; ``answers`` the stored answer of each attempt (None if
    unanswered). Keys of several versions may share a text: rows are merged by text.
    """
    s = len(answers)
    # Rows merge versions by text only where the key agrees: a true/false item whose key was
    # flipped in a later version shows "True" twice, once as right and once as wrong.
    row_of = {o["key"]: (o["text"], bool(o["correct"])) for o in options}
    counts: Counter = Counter()
    none = 0
    for answer in answers:
        if not answer:
            none += 1
            continue
        for key in kinds.of(kind).chosen_keys(answer):
            if key in row_of:
                counts[row_of[key]] += 1
    rows = [
        {"text": text, "correct": correct, "count": counts[(text, correct)],
         "frequency": 100 * counts[(text, correct)] / s if s else 0.0}
        for text, correct in dict.fromkeys(row_of[o["key"]] for o in options)
    ]  # fmt: skip
    rows.append(
        {"text": "(no answer)", "correct": False, "count": none,
         "frequency": 100 * none / s if s else 0.0}
    )  # fmt: skip
    return rows


def outcome_analysis(scores: list[float | None]) -> list[dict]:
    """For kinds without options to count (ordering, matching, json, fix): right, partly, wrong."""
    s = len(scores)
    buckets = Counter(
        "no answer"
        if sc is None
        else "right"
        if sc >= 0.999
        else "partly right"
        if sc > 0
        else "wrong"
        for sc in scores
    )
    return [
        {
            "text": label,
            "count": buckets[label],
            "frequency": 100 * buckets[label] / s if s else 0.0,
        }
        for label in ("right", "partly right", "wrong", "no answer")
    ]


# ----------------------------------------------------------------- loading (Django)


def _attempt_filter(prefix: str = "") -> dict:
    return {
        f"{prefix}mode": "exam",
        f"{prefix}submitted_at__isnull": False,
        f"{prefix}retake_of__isnull": True,
    }


def chosen_attempts(which: str = "first") -> set[int]:
    """Ids of the exams analysed: one query."""
    from .models import Attempt

    rows = (
        Attempt.objects.filter(**_attempt_filter())
        .order_by("started_at", "id")
        .values_list("id", "user_id", "owner_token")
    )
    if which == "all":
        return {r[0] for r in rows}
    seen: set = set()
    first = set()
    for attempt_id, user_id, token in rows:
        owner = ("u", user_id) if user_id is not None else ("t", token or attempt_id)
        if owner not in seen:
            seen.add(owner)
            first.add(attempt_id)
    return first


def _cache_key(which: str, size: int | None) -> str:
    """Changes whenever an exam is submitted: one aggregate query."""
    from django.db.models import Count, Max

    from .models import Attempt

    agg = Attempt.objects.filter(**_attempt_filter()).aggregate(
        n=Count("id"), last=Max("submitted_at"), top=Max("id")
    )
    last = agg["last"].timestamp() if agg["last"] else 0
    return f"quizstats:{which}:{size}:{agg['n']}:{last}:{agg['top']}"


def load_report(which: str = "first", size: int | None = None) -> Report:
    """The report, cached until the next exam is submitted (1 query cached, 4 when not)."""
    # Like Moodle's statistics cache time: figures up to STATS_MAX_AGE seconds old are served
    # as they are (the page says when they were computed), so a busy exam period does not make
    # every instructor's page recompute after each submission. 0 recomputes on every change.
    from django.conf import settings
    from django.core.cache import cache

    latest_key = f"quizstats:latest:{which}:{size}"
    max_age = settings.STATS_MAX_AGE
    latest = cache.get(latest_key)
    if latest is not None and max_age and time.time() - latest.computed_at < max_age:
        return latest
    key = _cache_key(which, size)
    report = cache.get(key)
    if report is not None:
        return report
    # One request (on any server sharing the cache) recomputes; the others serve the figures
    # they have, or wait a little for the first ones, instead of all recomputing at once: under
    # load, 32 simultaneous recomputations over 100,000 responses made requests time out.
    lock_key = f"quizstats:computing:{which}:{size}"
    if max_age and not cache.add(lock_key, 1, timeout=60):
        if latest is not None:
            return latest
        for _ in range(200):  # up to 10 s for the request that is computing
            time.sleep(0.05)
            latest = cache.get(latest_key)
            if latest is not None:
                return latest
    try:
        return _compute_report(which, size, key, latest_key)
    finally:
        if max_age:
            cache.delete(lock_key)


def _compute_report(which: str, size: int | None, key: str, latest_key: str) -> Report:
    from django.core.cache import cache
    from django.db import connections

    from .models import Question, Response

    ids = chosen_attempts(which)
    slug_of = dict(Question.objects.values_list("id", "slug"))
    query = Response.objects.filter(**_attempt_filter("attempt__")).values_list(
        "attempt_id", "question_id", "position", "score"
    )
    # Plain tuples straight from the cursor: Django's row conversion would double the cost here.
    sql, params = query.query.get_compiler(using=query.db).as_sql()
    attempts: dict[int, list[tuple[str, int, float]]] = defaultdict(list)
    with connections[query.db].cursor() as cursor:
        cursor.execute(sql, params)
        for attempt_id, question_id, position, score in cursor.fetchall():
            if attempt_id in ids:
                attempts[attempt_id].append((slug_of[question_id], position, score or 0.0))
    report = analyse(dict(attempts), size=size, which=which)
    report.attempt_ids = []  # not needed once computed; keeps the cached value small
    report.computed_at = time.time()
    cache.set(key, report, 3600)
    cache.set(latest_key, report, 3600)
    return report


def needs_review_by_slug() -> dict[str, str]:
    """slug -> reason, for every question the default statistics flag."""
    return {item.slug: item.review for item in load_report().items if item.review}
