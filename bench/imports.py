"""`make bench-imports`: import previews of pathological files at 1x and 10x their size.

Each case is timed at a base size n and at 10 n; the ratio of the two times is what matters: an
import linear in its input gives about 10, a quadratic one about 100. Runs in-process against
the development database (``make setup``); nothing is written.

Environment: BENCH_IMPORT_SCALE (multiplies every base size, default 1), BENCH_JSON (write the
results there too).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCALE = float(os.getenv("BENCH_IMPORT_SCALE", "1"))
LINEAR_RATIO = 20  # 10x the input may cost at most 20x the time (10 is linear; 100 quadratic)
NOISE_S = 0.25  # a 10x run faster than this is too short to judge on a shared machine


# Small questions are valid single-choice questions (three options), so a preview goes all the
# way: read, map, check, compare with the bank.
def gift_same_name(n: int) -> str:
    return "".join(f"::Same name:: Question {i}? {{=right ~wrong ~other}}\n\n" for i in range(n))


def gift_small(n: int) -> str:
    return "".join(f"::q{i}:: Question {i}? {{=right ~wrong ~other}}\n\n" for i in range(n))


def gift_many_options(n: int) -> str:
    return "::many:: Which? {=right " + " ".join(f"~wrong {i}" for i in range(n)) + "}\n"


def gift_tildes(n: int) -> str:
    return "::tildes:: Which? {=right " + "~" * n + "}\n"


def _xml_question(i: int, options: int = 2) -> str:
    answers = "".join(
        f'<answer fraction="0"><text>wrong {k}</text></answer>' for k in range(options)
    )
    return (
        f'<question type="multichoice"><name><text>q{i}</text></name>'
        f"<questiontext><text>Question {i}?</text></questiontext><single>true</single>"
        f'<answer fraction="100"><text>right</text></answer>{answers}</question>\n'
    )


def xml_small(n: int) -> str:
    return "<quiz>\n" + "".join(_xml_question(i) for i in range(n)) + "</quiz>\n"


def xml_many_options(n: int) -> str:
    return "<quiz>\n" + _xml_question(0, n) + "</quiz>\n"


def _yaml_question(i: int, options: int = 2) -> str:
    rows = "".join(
        f"      - text: wrong {k}\n        why: no\n        family: misread-contract\n"
        for k in range(options)
    )
    return (
        f"  - slug: q-{i}\n    kind: single\n    subtopic: stop-reasons\n    concept: c\n"
        f"    notes: stop-reasons#end-turn\n    sources: [https://example.com]\n"
        f"    stem: Question {i}?\n    explanation: Because.\n    options:\n"
        f"      - text: right\n        correct: true\n        why: yes\n{rows}"
    )


def yaml_small(n: int) -> str:
    return "questions:\n" + "".join(_yaml_question(i) for i in range(n))


def yaml_many_options(n: int) -> str:
    return "questions:\n" + _yaml_question(0, n)


def detect_blank_lines(n: int) -> str:
    return "\n" * n + "not a bank\n"


CASES = {
    # name: (generator, base size, what is measured)
    "gift-same-name": (gift_same_name, 1000, "preview"),
    "gift-small": (gift_small, 2000, "preview"),
    "gift-many-options": (gift_many_options, 1000, "preview"),
    "gift-tildes": (gift_tildes, 10_000, "preview"),
    "xml-small": (xml_small, 2000, "preview"),
    "xml-many-options": (xml_many_options, 1000, "preview"),
    "yaml-small": (yaml_small, 500, "preview"),
    "yaml-many-options": (yaml_many_options, 1000, "preview"),
    "detect-blank-lines": (detect_blank_lines, 100_000, "detect"),
}


def setup() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
    import django

    django.setup()


def measure(name: str, n: int) -> tuple[float, int]:
    from quizzes.formats import Defaults, detect
    from quizzes.importing import import_preview

    generator, _, what = CASES[name]
    text = generator(n)
    defaults = Defaults("stop-reasons", "stop-reasons#end-turn", "https://example.com")
    started = time.perf_counter()
    if what == "detect":
        detect(text)
    else:
        import_preview(text, "auto", defaults)
    return time.perf_counter() - started, len(text.encode())


def main(argv: list[str]) -> int:
    setup()
    names = argv or list(CASES)
    for name in names:  # warm up: imports and first queries are not the case's cost
        measure(name, 10)
    results = []
    print(f"{'case':22} {'n':>8} {'bytes':>10} {'1x s':>8} {'10x s':>8} {'ratio':>6}")
    for name in names:
        n = max(1, int(CASES[name][1] * SCALE))
        small, size = min(measure(name, n) for _ in range(3))
        big, _ = measure(name, 10 * n)
        ratio = big / small if small else float("inf")
        results.append(
            {"case": name, "n": n, "bytes": size, "t1": small, "t10": big, "ratio": ratio}
        )
        results[-1]["linear"] = ratio <= LINEAR_RATIO or big < NOISE_S
        flag = "" if results[-1]["linear"] else "  <-- not linear"
        print(f"{name:22} {n:>8} {size:>10} {small:>8.3f} {big:>8.3f} {ratio:>6.1f}{flag}")
    if os.getenv("BENCH_JSON"):
        Path(os.environ["BENCH_JSON"]).write_text(json.dumps(results, indent=2))
    return 0 if all(r["linear"] for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
