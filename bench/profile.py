"""Profile the signed-in pages in-process: `python -m bench.profile [REQUESTS]`.

Builds the bench's database (bench/run.py: migrate, loadcontent, seed, a throwaway Redis as the
shared cache when redis-server is installed), then calls the WSGI application itself (as gunicorn
does, request signals included) with the bench's cookies: the CPU time per request without the
profiler (best of 3; CPU, not wall time, so other processes on a shared machine matter less),
the SQL of one request, the share of own time by module and the top functions of a cProfile run.

PROFILE_DIR=DIR keeps (and reuses) the prepared database; PROFILE_PAGES=practice,exam picks pages;
PROFILE_TOP=N lines of the profile (0: none), PROFILE_SORT=tottime|cumulative.
"""

from __future__ import annotations

import cProfile
import io
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _inner(state_file: str, n: int, top: int) -> None:
    from wsgiref.util import setup_testing_defaults

    from django.db import connection

    from studyapp.wsgi import application  # the app as gunicorn runs it, signals and all

    state = json.loads(Path(state_file).read_text())
    cookie = f"sessionid={state['learner_session']}; csrftoken={state['csrf']}"

    def call(path: str, method: str = "GET", body: str = "", **headers: str):
        environ: dict = {}
        setup_testing_defaults(environ)
        environ.update(
            {
                "REQUEST_METHOD": method,
                "PATH_INFO": path,
                "HTTP_HOST": "127.0.0.1",
                "SERVER_NAME": "127.0.0.1",
                "HTTP_X_FORWARDED_PROTO": "https",
                "wsgi.input": io.BytesIO(body.encode()),
                "CONTENT_LENGTH": str(len(body)),
                **headers,
            }
        )
        status: list[str] = []
        result = application(environ, lambda s, h, e=None: status.append(s))
        content = b"".join(result)
        result.close()
        if not status[0].startswith("200"):
            raise SystemExit(f"{path} answered {status[0]}: {content[:300]!r}")
        return content

    signed_in = {"HTTP_COOKIE": cookie}
    pages = [
        ("healthz", lambda: call("/healthz")),
        ("practice question", lambda: call(state["practice_url"], **signed_in)),
        (
            "answer POST (htmx, CSRF)",
            lambda: call(
                state["exam_url"],
                "POST",
                state["exam_answer"],
                **signed_in,
                HTTP_HX_REQUEST="true",
                HTTP_X_CSRFTOKEN=state["csrf"],
                HTTP_ORIGIN="https://127.0.0.1",
                CONTENT_TYPE="application/x-www-form-urlencoded",
            ),
        ),  # fmt: skip
        ("exam page", lambda: call(state["exam_url"], **signed_in)),
        # anonymous reading pages, served from the page cache after the first request
        ("note (cached)", lambda: call("/notes/stop-reasons/")),
        (
            "library step (cached)",
            lambda: call("/sandbox/parallel-lookups/steps/2/", HTTP_HX_REQUEST="true"),
        ),
    ]
    only = os.getenv("PROFILE_PAGES", "")
    for name, request in pages:
        if only and not any(w in name for w in only.split(",")):
            continue
        for _ in range(20):  # warm: templates compiled, caches filled
            request()
        queries: list[str] = []

        def log(execute, sql, params, many, context, queries=queries):
            queries.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(log):
            request()
        best = wall = float("inf")
        for _ in range(3):
            t, w = time.process_time(), time.perf_counter()
            for _ in range(n):
                request()
            best = min(best, (time.process_time() - t) / n)
            wall = min(wall, (time.perf_counter() - w) / n)  # + waiting for Redis and SQLite
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(n):
            request()
        profiler.disable()
        out = io.StringIO()
        stats = pstats.Stats(profiler, stream=out)
        calls = stats.total_calls // n  # type: ignore[attr-defined]
        print(f"\n=== {name}: {best * 1000:.2f} ms CPU/request ({wall * 1000:.2f} ms wall), "
              f"{len(queries)} queries, {calls} Python calls/request")  # fmt: skip
        for sql in queries:
            print("   SQL", sql[:160])
        groups: dict[str, float] = {}
        for (path, _line, _fn), row in stats.stats.items():  # type: ignore[attr-defined]
            part = next(
                (g for g in ("django/template", "django/db", "redis", "django/contrib/auth",
                             "django/contrib/sessions", "django/urls", "django/middleware",
                             "csp", "whitenoise", "django/test", "/quizzes/", "/progress/",
                             "/authoring/", "/studyapp/", "django/utils", "django/")
                 if g in path),
                "other",
            )  # fmt: skip
            groups[part] = groups.get(part, 0.0) + row[2]
        total = sum(groups.values())
        print("   own time by module:", ", ".join(
            f"{k} {v / total:.0%}" for k, v in sorted(groups.items(), key=lambda kv: -kv[1])
        ))  # fmt: skip
        if top:
            stats.sort_stats(os.getenv("PROFILE_SORT", "cumulative")).print_stats(top)
            lines = out.getvalue().splitlines()
            start = next(i for i, line in enumerate(lines) if "ncalls" in line)
            print("\n".join(lines[start : start + top + 1]))


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--inner":
        _inner(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    from bench.run import prepare, start_redis

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    top = int(os.getenv("PROFILE_TOP", "45"))
    keep = os.getenv("PROFILE_DIR")  # reuse (or keep) a prepared database there
    tmp = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="loopcraft-profile-"))
    tmp.mkdir(exist_ok=True)
    redis = None
    try:
        redis, cache_url = start_redis(tmp)
        if keep and (tmp / "env.json").exists():
            env = {**json.loads((tmp / "env.json").read_text()), "CACHE_URL": cache_url}
            # this run's PROFILE_* settings, not the ones saved with the database
            env = {k: v for k, v in env.items() if not k.startswith("PROFILE_")}
            env.update({k: v for k, v in os.environ.items() if k.startswith("PROFILE_")})
        else:
            env, _ = prepare(tmp, cache_url)
            (tmp / "env.json").write_text(json.dumps(env))
        subprocess.run(
            [sys.executable, "-m", "bench.profile", "--inner", str(tmp / "state.json"), str(n),
             str(top)],
            cwd=ROOT, env=env, check=True,
        )  # fmt: skip
    finally:
        if redis is not None:
            redis.terminate()
            redis.wait(timeout=10)
        if not keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
