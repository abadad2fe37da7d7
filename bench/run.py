"""`make bench`: the app under gunicorn with production settings and a seeded database, driven
by wrk at 32 connections, one key page at a time; prints req/s, p50, p99, errors and the ratio
to /healthz measured in the same run.

/healthz is measured before every page and after the last: a page's ratio is its req/s over the
mean of the two /healthz runs around it, so a machine whose load drifts (other processes, CPU
boost) still gives comparable ratios.

Environment: BENCH_SECONDS (per page, default 6), BENCH_HEALTHZ_SECONDS (3), BENCH_CONNECTIONS
(32), BENCH_WORKERS (2), BENCH_JSON (write the results there too), BENCH_KEEP (keep the temp dir).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
SECONDS = int(os.getenv("BENCH_SECONDS", "6"))
HEALTHZ_SECONDS = int(os.getenv("BENCH_HEALTHZ_SECONDS", "3"))
CONNECTIONS = int(os.getenv("BENCH_CONNECTIONS", "32"))
WORKERS = int(os.getenv("BENCH_WORKERS", "2"))

# Targets from issue 8: a ratio to /healthz, and a p99 bound.
TARGET_RATIO = {"note": 0.7}
DEFAULT_RATIO = 0.4
P99_MS = 50

LUA = """
wrk.method = "%(method)s"
wrk.body = "%(body)s"
%(headers)s
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH-JSON {\\"requests\\": %%d, \\"duration_us\\": %%d, \\"p50_us\\": %%d, " ..
    "\\"p99_us\\": %%d, \\"errors\\": %%d, \\"bytes\\": %%d}\\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.status + e.timeout, summary.bytes))
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def manage(env: dict, *args: str) -> None:
    result = subprocess.run(
        [PY, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if result.returncode:
        raise SystemExit(f"bench: manage.py {' '.join(args)} failed\n{result.stderr[-3000:]}")


def prepare(tmp: Path) -> tuple[dict, dict]:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("DJANGO", "DATABASE"))},
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"sqlite:///{tmp / 'bench.sqlite3'}",
        "DJANGO_SETTINGS_MODULE": "studyapp.settings",
        "LOG_LEVEL": "WARNING",
    }
    t = time.monotonic()
    manage(env, "migrate", "--noinput")
    manage(env, "loadcontent")
    manage(env, "collectstatic", "--noinput")
    state_file = tmp / "state.json"
    result = subprocess.run(
        [PY, "-m", "bench.seed", str(state_file)], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if result.returncode:
        raise SystemExit(f"bench: seeding failed\n{result.stderr}")
    print(result.stdout.strip(), f"(set-up {time.monotonic() - t:.0f} s)")
    return env, json.loads(state_file.read_text())


def pages(state: dict, base: str, has_stats: bool) -> list[dict]:
    learner = f"sessionid={state['learner_session']}; csrftoken={state['csrf']}"
    # Requests arrive as if through a TLS proxy (X-Forwarded-Proto), as in production: no
    # SSL redirect, and CSRF checks the Origin like it would for a real browser.
    https = {"X-Forwarded-Proto": "https"}
    signed_in = {**https, "Cookie": learner}
    rows = [
        {"name": "healthz", "path": "/healthz", "headers": https, "expect": "ok"},
        {"name": "home", "path": "/", "headers": https, "expect": "Loopcraft"},
        {"name": "note", "path": "/notes/stop-reasons/", "headers": https, "expect": "end_turn"},
        {
            "name": "practice question",
            "path": state["practice_url"],
            "headers": signed_in,
            "expect": "Question 1",
        },
        {
            "name": "answer POST (htmx, CSRF)",
            "path": state["exam_url"],
            "method": "POST",
            "body": state["exam_answer"],
            "headers": {
                **signed_in,
                "HX-Request": "true",
                "X-CSRFToken": state["csrf"],
                "Origin": base.replace("http://", "https://"),
                "Content-Type": "application/x-www-form-urlencoded",
            },
            "expect": "Saved at",
        },
        {"name": "exam page", "path": state["exam_url"], "headers": signed_in, "expect": "timer"},
        {
            "name": "sandbox step partial",
            "path": "/sandbox/parallel-lookups/steps/2/",
            "headers": {**https, "HX-Request": "true"},
            "expect": "stop_reason",
        },
    ]
    if has_stats:
        cookie = f"sessionid={state['instructor_session']}"
        rows.append(
            {
                "name": "author statistics",
                "path": "/author/stats/",
                "headers": {**https, "Cookie": cookie},
                "expect": "",
            }
        )
    return rows


def check(base: str, page: dict) -> None:
    """One request first: a page that redirects or errors would make the figures meaningless."""
    request = urllib.request.Request(
        base + page["path"],
        data=page.get("body", "").encode() if page.get("method") == "POST" else None,
        headers=page["headers"],
        method=page.get("method", "GET"),
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as r:  # noqa: S310 - our own server
            body = r.read().decode()
            status = r.status
    except urllib.error.HTTPError as e:
        raise SystemExit(f"bench: {page['name']} answered {e.code}: {e.read()[:500]!r}") from None
    if status != 200 or page["expect"] not in body:
        raise SystemExit(f"bench: {page['name']} answered {status} without {page['expect']!r}")


def run_wrk(base: str, page: dict, tmp: Path, seconds: int = SECONDS) -> dict:
    headers = "\n".join(
        f'wrk.headers["{k}"] = "{v}"' for k, v in page["headers"].items()
    )  # fmt: skip
    script = tmp / "page.lua"
    script.write_text(
        LUA
        % {"method": page.get("method", "GET"), "body": page.get("body", ""), "headers": headers}
    )
    out = subprocess.run(
        ["wrk", "-t2", f"-c{CONNECTIONS}", f"-d{seconds}s", "--latency", "-s", str(script),
         base + page["path"]],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    line = next(x for x in out.stdout.splitlines() if x.startswith("BENCH-JSON "))
    data = json.loads(line.removeprefix("BENCH-JSON "))
    return {
        "name": page["name"],
        "path": page["path"],
        "rps": data["requests"] / (data["duration_us"] / 1e6),
        "p50_ms": data["p50_us"] / 1000,
        "p99_ms": data["p99_us"] / 1000,
        "errors": data["errors"],
        "kb": data["bytes"] / max(1, data["requests"]) / 1024,
    }


def main() -> int:
    if not shutil.which("wrk"):
        raise SystemExit("bench: wrk is missing (make bench installs Debian's wrk)")
    tmp = Path(tempfile.mkdtemp(prefix="loopcraft-bench-"))
    server = None
    try:
        env, state = prepare(tmp)
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [PY, "-m", "gunicorn", "studyapp.wsgi", "--workers", str(WORKERS), "--bind",
             f"127.0.0.1:{port}", "--log-level", "error", "--backlog", "256"],
            cwd=ROOT, env=env,
        )  # fmt: skip
        for _ in range(100):
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1)  # noqa: S310
                break
            except OSError:
                time.sleep(0.1)
        has_stats = _resolves(env, "/author/stats/")
        rows = pages(state, base, has_stats)
        for page in rows:
            check(base, page)
        healthz, others = rows[0], rows[1:]
        baselines = [run_wrk(base, healthz, tmp, HEALTHZ_SECONDS)]
        results = []
        for page in others:
            results.append(run_wrk(base, page, tmp))
            baselines.append(run_wrk(base, healthz, tmp, HEALTHZ_SECONDS))
        for i, r in enumerate(results):
            r["healthz_rps"] = (baselines[i]["rps"] + baselines[i + 1]["rps"]) / 2
            r["ratio"] = r["rps"] / r["healthz_rps"]
        report(results, baselines, state["counts"])
        if os.getenv("BENCH_JSON"):
            Path(os.environ["BENCH_JSON"]).write_text(
                json.dumps({"results": results, "healthz": baselines, "counts": state["counts"]})
            )
        return 0
    finally:
        if server is not None:
            server.terminate()
            server.wait(timeout=10)
        if not os.getenv("BENCH_KEEP"):
            shutil.rmtree(tmp, ignore_errors=True)


def _resolves(env: dict, path: str) -> bool:
    code = f"from django.urls import resolve; resolve({path!r})"
    result = subprocess.run(
        [PY, "manage.py", "shell", "-c", code], cwd=ROOT, env=env, capture_output=True
    )
    return result.returncode == 0


def report(results: list[dict], baselines: list[dict], counts: dict) -> None:
    print(
        f"\n{CONNECTIONS} connections, {WORKERS} gunicorn sync workers, {SECONDS} s per page "
        f"({HEALTHZ_SECONDS} s of /healthz around each); data: "
        + ", ".join(f"{v} {k}" for k, v in counts.items())
    )
    hz = [b["rps"] for b in baselines]
    p99 = max(b["p99_ms"] for b in baselines)
    print(
        f"/healthz: {min(hz):.0f}–{max(hz):.0f} req/s over {len(hz)} runs, "
        f"p50 {baselines[0]['p50_ms']:.1f} ms, worst p99 {p99:.1f} ms"
    )
    head = (
        f"{'page':<26} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} {'KB':>5} "
        f"{'ratio':>6}  target"
    )
    print(head + "\n" + "-" * (len(head) + 14))
    for r in results:
        want = TARGET_RATIO.get(r["name"], DEFAULT_RATIO)
        ok = r["ratio"] >= want and r["p99_ms"] < P99_MS and r["errors"] == 0
        verdict = "ok" if ok else f"MISS (≥{want}×, p99 <{P99_MS} ms)"
        print(
            f"{r['name']:<26} {r['rps']:>7.0f} {r['p50_ms']:>7.1f} {r['p99_ms']:>7.1f} "
            f"{r['errors']:>6} {r['kb']:>5.1f} {r['ratio']:>5.2f}×  {verdict}"
        )


if __name__ == "__main__":
    sys.exit(main())
