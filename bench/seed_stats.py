"""Seed 100,000 mock-exam responses into a separate SQLite file and time /author/stats/.

    .venv/bin/python bench/seed_stats.py [--responses 100000] [--db /tmp/FILE.sqlite3]

Learners get an ability and questions a difficulty, so the figures look like a real bank's.
Prints the page time with the report cached and uncached (median of several runs).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--responses", type=int, default=100_000)
    parser.add_argument("--per-exam", type=int, default=20)
    # Outside the repository: 100,000 responses make a 12 MB file that nobody should commit.
    default_db = Path(tempfile.gettempdir()) / "loopcraft-bench-stats.sqlite3"
    parser.add_argument("--db", default=str(default_db))
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = f"sqlite:///{args.db}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    from django.contrib.auth.models import Group, User
    from django.core.cache import cache
    from django.core.management import call_command
    from django.db import connection, reset_queries
    from django.test import Client
    from django.utils import timezone

    from quizzes.models import Attempt, Question, Response

    call_command("migrate", verbosity=0)
    if not Question.objects.exists():
        call_command("loadcontent", verbosity=0)
    have = Response.objects.filter(attempt__mode="exam").count()
    if have < args.responses:
        seed(args, Question, Attempt, Response, User, timezone, timedelta)
    user, _ = User.objects.get_or_create(username="bench-instructor")
    user.groups.add(Group.objects.get(name="Instructors"))
    client = Client()
    client.force_login(user)
    total = Response.objects.filter(attempt__mode="exam").count()

    def timed(clear: bool) -> float:
        if clear:
            cache.clear()
        start = time.perf_counter()
        response = client.get("/author/stats/")
        elapsed = time.perf_counter() - start
        assert response.status_code == 200, response.status_code
        return elapsed * 1000

    def trivial() -> float:
        start = time.perf_counter()
        client.get("/healthz")
        return (time.perf_counter() - start) * 1000

    timed(True)  # warm up imports and templates
    cold = [timed(True) for _ in range(args.runs)]
    warm = [timed(False) for _ in range(args.runs)]
    base = [trivial() for _ in range(args.runs)]
    connection.force_debug_cursor = True
    reset_queries()
    cache.clear()
    client.get("/author/stats/")
    queries = len(connection.queries)
    print(f"{total} exam responses, {Attempt.objects.filter(mode='exam').count()} exams")
    print(f"/author/stats/ uncached: median {statistics.median(cold):.0f} ms "
          f"(min {min(cold):.0f}, max {max(cold):.0f}); {queries} queries")  # fmt: skip
    print(f"/author/stats/ cached:   median {statistics.median(warm):.0f} ms "
          f"(min {min(warm):.0f}, max {max(warm):.0f})")  # fmt: skip
    print(f"/healthz (same run, for scale): median {statistics.median(base):.1f} ms; machine load "
          f"{os.getloadavg()[0]:.1f}")  # fmt: skip


def seed(args, Question, Attempt, Response, User, timezone, timedelta) -> None:  # noqa: N803
    from quizzes.services import draw_exam

    rng = random.Random(42)
    pool = list(Question.objects.published().values_list("id", "subtopic"))
    difficulty = {qid: rng.gauss(0, 1) for qid, _ in pool}
    exams = args.responses // args.per_exam
    learners = [
        User(username=f"bench-learner-{i}") for i in range(exams * 4 // 5)
    ]  # a fifth of them sit a second exam
    User.objects.bulk_create(learners, ignore_conflicts=True)
    learners = list(User.objects.filter(username__startswith="bench-learner-"))
    ability = {u.id: rng.gauss(0, 1) for u in learners}
    now = timezone.now()
    attempts = [
        Attempt(
            mode="exam", user=learners[i % len(learners)], seed=i,
            started_at=now - timedelta(minutes=exams - i),
            submitted_at=now - timedelta(minutes=exams - i) + timedelta(minutes=30),
            question_count=args.per_exam,
        )
        for i in range(exams)
    ]  # fmt: skip
    Attempt.objects.bulk_create(attempts, batch_size=2000)
    attempts = list(Attempt.objects.filter(mode="exam").order_by("id"))
    responses = []
    for a in attempts:
        for pos, qid in enumerate(draw_exam(pool, args.per_exam, random.Random(a.seed)), 1):
            p = 1 / (1 + 2.718 ** -(1.2 * (ability[a.user_id] - difficulty[qid])))
            right = rng.random() < p
            responses.append(
                Response(attempt=a, question_id=qid, position=pos, score=1.0 if right else 0.0,
                         is_correct=right, answered_at=a.started_at)
            )  # fmt: skip
    Response.objects.bulk_create(responses, batch_size=5000)


if __name__ == "__main__":
    main()
