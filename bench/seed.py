"""Seed a benchmark database: the full bank is loaded by loadcontent; this adds learners,
thousands of finished attempts with graded responses, and the sessions the load generator uses.

Run with the benchmark's environment (bench/run.py does): ``python -m bench.seed OUT.json``.
Writes what the driver needs (cookies, CSRF token, URLs) to OUT.json.
"""

from __future__ import annotations

import copy
import json
import os
import random
import sys
from datetime import timedelta

import django

CHOICE_KINDS = ("single", "truefalse", "next_action")


def long_transcript(turns: int) -> dict:
    """A valid recorded loop of `turns` steps: one order lookup per step, then the answer."""
    model = "claude-sonnet-4-5"
    data = {
        "format": "loopcraft.transcript/1",
        "slug": f"bench-{turns}-turns",
        "title": f"A {turns}-step loop",
        "model": model,
        "max_tokens": 1024,
        "tools": [
            {
                "name": "lookup_order",
                "description": "Fetch one order by its number.",
                "input_schema": {
                    "type": "object",
                    "properties": {"order_id": {"type": "string"}},
                    "required": ["order_id"],
                },
            }
        ],
        "tool_choice": {"type": "auto"},
        "messages": [{"role": "user", "content": "Check every order of this customer."}],
        "turns": [],
    }
    for i in range(turns):
        last = i == turns - 1
        usage = {"input_tokens": 400 + 60 * i, "output_tokens": 40}
        content = [{"type": "text", "text": f"Looking up order {20000 + i}."}]
        if last:
            content = [{"type": "text", "text": f"All {turns - 1} orders are delivered."}]
        else:
            content.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_{i:05d}",
                    "name": "lookup_order",
                    "input": {"order_id": str(20000 + i)},
                }
            )
        turn = {
            "response": {
                "id": f"msg_{i:05d}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": content,
                "stop_reason": "end_turn" if last else "tool_use",
                "stop_sequence": None,
                "usage": usage,
            }
        }
        if not last:
            turn["tool_results"] = [
                {
                    "type": "tool_result",
                    "tool_use_id": f"toolu_{i:05d}",
                    "content": f"Order {20000 + i}: delivered.",
                }
            ]
        data["turns"].append(turn)
    return data


def uploads(user) -> dict:
    """Two uploads of the benchmark learner: a 5-step and a 200-step loop."""
    from studyapp.agentloop.transcript import parse_transcript
    from studyapp.sandbox.models import UploadedRun

    urls = {}
    for turns in (5, 200):
        raw = long_transcript(turns)
        data = parse_transcript(raw, strict=True).to_dict()
        run = UploadedRun.objects.create(
            user=user, title=raw["title"], source="transcript", data=data, size=len(str(raw))
        )
        urls[turns] = f"/sandbox/uploads/{run.pk}/steps/3/"
    return urls


def grow_bank(total: int) -> int:
    """Copies of published questions (with their options) until the bank holds `total`."""
    from quizzes.models import Option, Question

    originals = list(Question.objects.published().prefetch_related("options"))
    have = Question.objects.count()
    copies, i = [], 0
    while have + len(copies) < total:
        q = originals[i % len(originals)]
        copies.append((q, list(q.options.all())))
        i += 1
    made = []
    for q, _ in copies:
        clone = copy.copy(q)
        clone.pk = clone.id = None
        clone.slug = f"{q.slug[:60]}-copy-{len(made)}"
        made.append(clone)
    made = Question.objects.bulk_create(made, batch_size=500)
    options = []
    for new, (_, opts) in zip(made, copies, strict=True):
        for o in opts:
            options.append(
                Option(
                    question=new, key=o.key, position=o.position, text=o.text,
                    text_html=o.text_html, correct=o.correct, why=o.why, why_html=o.why_html,
                    family=o.family, match=o.match,
                )
            )  # fmt: skip
    Option.objects.bulk_create(options, batch_size=2000)
    return Question.objects.count()


def seed(learners: int = 200, attempts_per_learner: int = 50, seed: int = 8) -> dict:
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
        "upload_urls": uploads(learner),
        "learner_session": _session(learner),
        "instructor_session": _session(instructor),
        "practice_url": f"/practice/{practice.pk}/1/",
        "practice_count": practice.responses.count(),
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
    if sys.argv[1] == "--grow-bank":
        print("bench: the bank now holds", grow_bank(int(sys.argv[2])), "questions")
        return
    from django.middleware.csrf import _get_new_csrf_string

    state = seed()
    state["csrf"] = _get_new_csrf_string()  # the cookie's secret; sent as the header too
    with open(sys.argv[1], "w") as f:
        json.dump(state, f, indent=2)
    print("bench: seeded", state["counts"])


if __name__ == "__main__":
    main()
