"""What a server process does once it has loaded the application (studyapp/wsgi.py, asgi.py).

Python's cyclic garbage collector walks every tracked object of the oldest generation in one
pass. A worker that has loaded Django, the URL conf, the templates' modules and the anthropic SDK
holds about 190,000 such objects that live as long as the process; each full pass over them paused
a request for 80–340 ms on this machine (docs/BENCHMARKS.md), and every request queued behind it
waited too, which is what the 99th percentile measured. :func:`settle` collects once, then moves
everything alive into the permanent generation (``gc.freeze()``), so later passes walk only what
was made after boot: 5–26 ms. Nothing is leaked: only live objects are frozen, and they would
never have been freed anyway.

What a worker keeps from its first requests (compiled templates, the kept page shells, the
compiled queries, the cached pages) is made after boot, so :class:`SettleAfter` settles again at
its 100th, 1,000th, 10,000th and 100,000th request: four full passes in a worker's life, after
which the passes walk only what the latest requests made (docs/BENCHMARKS.md).
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable


def settle() -> None:
    """Collect the garbage boot made, then stop the collector from walking what is left."""
    gc.collect()
    gc.freeze()


class SettleAfter:
    """A WSGI application that calls :func:`settle` after its 100th, 1,000th, 10,000th and
    100,000th request (each time after the request's response was built)."""

    def __init__(self, app: Callable[..., Iterable[bytes]], at: tuple[int, ...] = ()) -> None:
        self.app = app
        self.at = list(at or (100, 1_000, 10_000, 100_000))
        self.served = 0

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        result = self.app(environ, start_response)
        if self.at:
            self.served += 1
            if self.served >= self.at[0]:
                self.at.pop(0)
                settle()
        return result
