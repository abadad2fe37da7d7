"""Two workers saving exam answers into one SQLite file: `python -m bench.writelock DIR`.

DIR is a database ``python -m bench.profile`` prepared and kept (``PROFILE_DIR=DIR``). Two
processes each save the bench's exam answer 2,000 times, with 1.5 ms of CPU between two saves
(the rest of a request), once through the exam's old write (BEGIN IMMEDIATE, the attempt's row,
the UPDATE through the ORM, COMMIT) and once through the one UPDATE ``services.response_save``
runs on SQLite. It prints the wall time of a save: when the other process holds the write lock,
SQLite's busy handler sleeps 1, 2, 5, 10 … ms before it tries again, which is what a worker's
99th percentile under ``make bench`` waits for.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SAVES = 2000


def _worker(state_file: str, how: str) -> None:
    import django

    django.setup()
    from django.db import transaction
    from django.utils import timezone

    from core.prepared import prepared_update
    from quizzes import services
    from quizzes.models import Response

    state = json.loads(Path(state_file).read_text())
    parts = state["exam_url"].strip("/").split("/")  # exam/<pk>/q/<position>
    response = Response.objects.get(attempt_id=int(parts[1]), position=int(parts[3]))
    fields = {"answer": {"choice": "a"}, "score": 1.0, "is_correct": True, "families": [],
              "answered_at": timezone.now()}  # fmt: skip
    save = prepared_update(
        ("save-if-open", False),
        lambda pk, attempt, now: services._if_open(pk, attempt, now, False),
        tuple(fields),
        pk=1_999_999_001,
        attempt=1_999_999_002,
        now=services._STAND_IN_NOW,
    )

    def old() -> None:
        with transaction.atomic():
            services._lock_open(response.attempt_id, timezone.now())
            Response.objects.filter(pk=response.pk).update(**fields)

    def new() -> None:
        save.run(fields, pk=response.pk, attempt=response.attempt_id, now=timezone.now())

    write = old if how == "old" else new
    for _ in range(100):
        write()
    times = []
    for _ in range(SAVES):
        start = time.process_time()
        while time.process_time() - start < 0.0015:
            pass
        t = time.perf_counter()
        write()
        times.append(time.perf_counter() - t)
    times.sort()
    median, p99 = times[SAVES // 2] * 1000, times[SAVES * 99 // 100] * 1000
    slow = sum(t > 0.001 for t in times)
    print(f"{how}: median {median:.2f} ms, p99 {p99:.2f} ms, max {times[-1] * 1000:.1f} ms, "
          f"{slow} of {SAVES} over 1 ms")  # fmt: skip


def main() -> None:
    if sys.argv[1] == "--worker":
        _worker(sys.argv[2], sys.argv[3])
        return
    tmp = Path(sys.argv[1])
    env = {**json.loads((tmp / "env.json").read_text()), "CACHE_URL": ""}
    env["PYTHONPATH"] = str(ROOT)
    for how in ("old", "new", "old", "new"):
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "bench.writelock", "--worker", str(tmp / "state.json"), how],
                cwd=ROOT,
                env={**os.environ, **env},
            )  # fmt: skip
            for _ in range(2)
        ]
        for proc in procs:
            proc.wait()


if __name__ == "__main__":
    main()
