"""Step pages of an uploaded 200-turn run vs a 5-turn run, in process: the ratio should be ~1.

Run by ``make bench`` (after the wrk load test). Each upload is parsed and checked once, at
upload time; a step page then reads it from the per-process store.
"""

from __future__ import annotations

import cProfile
import json
import os
import pstats
import statistics
import sys
import time


def _log(turns: int) -> str:
    """A transcript of ``turns`` calls: each a tool_use answered by one tool_result, then end_turn
    (the transcript form: a raw log of 200 turns resends the history and passes the 2 MB cap)."""
    model = "claude-sonnet-4-5"
    out = []
    for i in range(turns):
        last = i == turns - 1
        content = (
            [{"type": "text", "text": "All done."}]
            if last
            else [{"type": "tool_use", "id": f"toolu_{i:04d}", "name": "lookup", "input": {"n": i}}]
        )
        response = {
            "id": f"msg_{i:04d}", "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": "end_turn" if last else "tool_use",
            "stop_sequence": None, "usage": {"input_tokens": 100 + 40 * i, "output_tokens": 30},
        }  # fmt: skip
        results = [] if last else [
            {"type": "tool_result", "tool_use_id": f"toolu_{i:04d}", "content": "ok"}
        ]  # fmt: skip
        out.append({"response": response, "tool_results": results})
    tools = [{"name": "lookup", "description": "Look one up.", "input_schema": {"type": "object"}}]
    return json.dumps(
        {
            "format": "loopcraft.transcript/1", "model": model, "max_tokens": 512, "tools": tools,
            "messages": [{"role": "user", "content": "Look up every order."}], "turns": out,
        }
    )  # fmt: skip


def main() -> int:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()
    from django.test.utils import setup_test_environment

    setup_test_environment()
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_databases

    setup_databases(verbosity=0, interactive=False)
    client = Client()
    times, calls, sizes = {}, {}, {}
    for turns in (5, 200):
        response = client.post("/sandbox/upload/", {"title": f"{turns}", "text": _log(turns)})
        assert response.status_code == 302, response.content.decode()[-2000:]
        url = response["Location"]
        pk = url.split("/")[3]
        samples = []
        for k in range(60):
            step = 1 + (k % 5)
            t = time.perf_counter()
            page = client.get(f"/sandbox/uploads/{pk}/steps/{step}/")
            samples.append(time.perf_counter() - t)
            assert page.status_code == 200, page.status_code
        times[turns] = statistics.median(samples[10:])
        # Python function calls per request: the work itself, whatever the machine's load.
        profiler = cProfile.Profile()
        profiler.enable()
        for k in range(20):
            client.get(f"/sandbox/uploads/{pk}/steps/{1 + (k % 5)}/")
        profiler.disable()
        calls[turns] = pstats.Stats(profiler).total_calls / 20  # type: ignore[attr-defined]
        sizes[turns] = len(page.content) / 1024
    connection.close()
    ratio = times[200] / times[5]
    print(
        f"upload step pages (in process, wall time, median): 5 turns {times[5] * 1000:.1f} ms, "
        f"200 turns {times[200] * 1000:.1f} ms, ratio {ratio:.2f}; Python calls per request "
        f"{calls[5]:.0f} vs {calls[200]:.0f} ({calls[200] / calls[5]:.2f}×); "
        f"{sizes[5]:.0f} KB vs {sizes[200]:.0f} KB sent (the chart's bars and the table's rows)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
