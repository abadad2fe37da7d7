"""Seed a benchmark database: the full bank is loaded by loadcontent; this adds learners,
thousands of finished attempts with graded responses, and the sessions the load generator uses.

Run with the benchmark's environment (bench/run.py does): ``python -m bench.seed OUT.json``.
Writes what the driver needs (cookies, CSRF token, URLs) to OUT.json.
"""

from __future__ import annotations

import json
import os
import random
import sys
from datetime import timedelta

import django

CHOICE_KINDS = ("single", "truefalse", "next_action")


def seed(learners: int = 200, attempts_per_learner: int = 15, seed: int = 8) -> dict:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.utils import timezone

    from quizzes import grading, services
    from quizzes.models import Attempt, Question, Response

    rng = random.Random(seed)
    User = get_user_model()
    questions = list(Question.objects.published().prefetch_related("options"))
    if not questions:
        raise SystemExit("bench: the bank is empty; run manage.py loadcontent first")
    users = User.objects.bulk_create(
        User(username=f"bench{i}", password="!unusable") for i in range(learners)
    )
    now = timezone.now()
    attempts = []
    for user in users:
        for _ in range(attempts_per_learner):
            mode = rng.choice([Attempt.Mode.PRACTICE, Attempt.Mode.EXAM])
            started = now - timedelta(days=rng.randrange(60), minutes=rng.randrange(1440))
            attempts.append(
                Attempt(
                    mode=mode,
                    user=user,
                    seed=rng.randrange(2**53),
                    started_at=started,
                    deadline=started + timedelta(minutes=20) if mode == "exam" else None,
                    submitted_at=started + timedelta(minutes=15),
                    question_count=10,
                )
            )
    attempts = Attempt.objects.bulk_create(attempts, batch_size=500)
    responses = []
    for attempt in attempts:
        for position, q in enumerate(rng.sample(questions, 10), start=1):
            options = [o.key for o in q.options.all()]
            answer = {"choice": rng.choice(options)} if q.kind in CHOICE_KINDS else None
            graded = grading.grade(q.grading_spec(), answer) if answer else None
            responses.append(
                Response(
                    attempt=attempt,
                    question=q,
                    position=position,
                    answer=answer,
                    score=graded.score if graded else 0.0,
                    is_correct=graded.correct if graded else False,
                    families=graded.families if graded else [],
                    answered_at=attempt.started_at + timedelta(minutes=position),
                )
            )
    Response.objects.bulk_create(responses, batch_size=2000)

    # The load generator's own learner: a practice set and a 60-question exam in progress.
    learner = User.objects.create_user("bench-learner", password=None)
    owner = services.Owner(learner, "")
    practice = services.practice_start(owner=owner, subtopics=[], which="all", count=20)
    exam = services.exam_start(owner=owner, count=60)
    single = exam.responses.filter(question__kind="single").select_related("question").first()
    choice = single.question.options.order_by("position").first().key
    instructor = User.objects.create_user("bench-instructor", password=None, is_staff=False)
    instructor.groups.add(Group.objects.get_or_create(name="Instructors")[0])
    return {
        "learner_session": _session(learner),
        "instructor_session": _session(instructor),
        "practice_url": f"/practice/{practice.pk}/1/",
        "exam_url": f"/exam/{exam.pk}/q/{single.position}/",
        "exam_answer": f"choice={choice}",
        "counts": {
            "questions": Question.objects.count(),
            "users": User.objects.count(),
            "attempts": Attempt.objects.count(),
            "responses": Response.objects.count(),
        },
    }


def _session(user) -> str:
    """A signed-in session for user, as its cookie value."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return store.session_key


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studyapp.settings")
    django.setup()
    from django.middleware.csrf import _get_new_csrf_string

    state = seed()
    state["csrf"] = _get_new_csrf_string()  # the cookie's secret; sent as the header too
    with open(sys.argv[1], "w") as f:
        json.dump(state, f, indent=2)
    print("bench: seeded", state["counts"])


if __name__ == "__main__":
    main()
