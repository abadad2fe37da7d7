"""An honest readiness estimate: a Beta posterior for P(right on a new item), with its interval.

Pure (no Django, no scipy): the Beta quantiles come from the regularised incomplete beta
function, evaluated with the continued fraction of Numerical Recipes (Lentz's method), and
inverted by bisection. Only first answers count: an item answered again is partly remembered,
which is one reason practice scores run high.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from studyapp.agentloop.i18n import gettext_noop

#: Prior Beta(1, 1): every success rate equally likely before the first answer.
PRIOR_A, PRIOR_B = 1.0, 1.0
#: The 90 % equal-tailed interval.
INTERVAL = 0.90
#: The share of items assumed to pass. The exam reports a scaled score (100 to 1000, pass at
#: 720); the scale is not published as a share of items and may differ between forms, so this
#: reads 720 on that scale as 72 % of items right. It is an assumption, shown as one.
PASS_SHARE = 0.72

PRIOR_TEXT = gettext_noop("a uniform prior, Beta(1, 1)")
THRESHOLD_TEXT = gettext_noop(
    # Translators: xgettext:no-python-format (the % signs are literal)
    "We assume a pass needs about 72% of items right. The real exam reports a scaled score from "
    "100 to 1000 with 720 to pass; how scaled points map to items right is not published and can "
    "change between forms, so 72% is a reading of 720/1000, not a published rule."
)
WHY_HIGH_TEXT = gettext_noop(
    "Practice scores run high: you meet the same questions again and remember their answers, "
    "you get feedback straight away, nothing is timed, and you choose the subtopics you like. "
    "This estimate counts only your first answer to each question, and its interval shows how "
    "little a few answers prove."
)


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def beta_cdf(x: float, a: float, b: float) -> float:
    """The regularised incomplete beta function I_x(a, b): P(X ≤ x) for X ~ Beta(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def beta_quantile(p: float, a: float, b: float) -> float:
    """The x with I_x(a, b) = p, by bisection (the CDF is increasing).

    At most 100 halvings; it stops once the midpoint is one of the ends (about 60 in): with
    ``low`` only ever a point whose CDF is below ``p`` and ``high`` one whose CDF is not, every
    further step would set an end to itself, so the answer is the one 100 steps give."""
    low, high = 0.0, 1.0
    for _ in range(100):
        mid = (low + high) / 2
        if mid in (low, high):
            break
        if beta_cdf(mid, a, b) < p:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def _pct(share: float) -> int:
    """A share as a whole percent, half up (as the templates' floatformat rounds)."""
    return math.floor(100 * share + 0.5)


@dataclass(frozen=True)
class Estimate:
    right: int
    answered: int
    a: float
    b: float
    mean: float
    low: float
    high: float

    @property
    def percent(self) -> int:
        return _pct(self.mean)

    @property
    def low_percent(self) -> int:
        return _pct(self.low)

    @property
    def high_percent(self) -> int:
        return _pct(self.high)

    @property
    def text(self) -> str:
        """Never a point without its interval."""
        return f"{self.percent}% (90% interval {self.low_percent}–{self.high_percent}%)"


@lru_cache(maxsize=4096)
def estimate(
    right: int, answered: int, prior: tuple[float, float] = (PRIOR_A, PRIOR_B)
) -> Estimate:
    """The Beta posterior after ``right`` of ``answered`` first answers: a pure function of its
    arguments, kept per process (a dashboard asks for a dozen, each two quantiles by
    bisection; the Estimate is frozen, so every caller may share it)."""
    if not 0 <= right <= answered:
        raise ValueError("right must be between 0 and answered")
    a, b = prior[0] + right, prior[1] + answered - right
    tail = (1 - INTERVAL) / 2
    return Estimate(
        right=right,
        answered=answered,
        a=a,
        b=b,
        mean=a / (a + b),
        low=beta_quantile(tail, a, b),
        high=beta_quantile(1 - tail, a, b),
    )


@dataclass(frozen=True)
class Verdict:
    key: str  # likely / borderline / not-yet / unmeasured
    label: str
    reason: str


def verdict(est: Estimate, threshold: float = PASS_SHARE) -> Verdict:
    """Likely if the whole interval is above the threshold, not yet if it is below, else
    borderline; with no answers there is nothing to judge."""
    pct = round(100 * threshold)
    if est.answered == 0:
        return Verdict(
            "unmeasured", gettext_noop("Not measured yet"), "Answer some questions first."
        )
    if est.low >= threshold:
        return Verdict(
            "likely", gettext_noop("Likely to pass"), f"The whole 90% interval is above {pct}%."
        )
    if est.high < threshold:
        return Verdict(
            "not-yet", gettext_noop("Not yet"), f"The whole 90% interval is below {pct}%."
        )
    return Verdict(
        "borderline",
        gettext_noop("Borderline"),
        f"The 90% interval includes {pct}%: more first answers would narrow it.",
    )
