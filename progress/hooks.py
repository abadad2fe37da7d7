"""The one call the practice view makes after it saves an answer."""

from __future__ import annotations

import time

from django.core import signing
from django.utils import timezone

from quizzes.models import Attempt

from . import rules, services

STAMP_SALT = "progress.shown-at"
STAMP_MAX_AGE = 24 * 3600  # an older stamp says nothing about how quick the answer was


def make_stamp(response_id: int, shown_at: float | None = None) -> str:
    """A signed note of when a question was shown, carried in the form as a hidden field."""
    shown = time.time() if shown_at is None else shown_at
    return signing.dumps({"r": response_id, "t": round(shown, 3)}, salt=STAMP_SALT)


def seconds_since_shown(stamp: str, response_id: int, now: float | None = None) -> float | None:
    """Seconds from showing to answering, or None when the stamp is missing or not ours."""
    if not stamp:
        return None
    try:
        data = signing.loads(stamp, salt=STAMP_SALT, max_age=STAMP_MAX_AGE)
    except signing.BadSignature:
        return None
    if not isinstance(data, dict) or data.get("r") != response_id:
        return None
    elapsed = (time.time() if now is None else now) - float(data.get("t", 0))
    return elapsed if elapsed >= 0 else None


def practice_answered(request, response) -> None:
    """Record the stated certainty and review the concept's FSRS card for a saved answer."""
    attempt = response.attempt
    user = getattr(request, "user", None)
    if (
        attempt.user_id is not None
        and user is not None
        and user.is_authenticated
        and user.pk == attempt.user_id
        and not Attempt.user.is_cached(attempt)
    ):
        # The attempt is this visitor's (the view found it as theirs): its owner is the
        # request's user, already loaded, not a query of its own.
        Attempt.user.field.set_cached_value(attempt, user)
    now = timezone.now()
    services.answer_record(
        response=response,
        certainty=rules.parse_certainty(request.POST.get("certainty")),
        seconds=seconds_since_shown(
            request.POST.get("shown", ""), response.pk, now=now.timestamp()
        ),
        now=now,
    )
