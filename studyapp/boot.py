"""What a server process does once it has loaded the application (studyapp/wsgi.py, asgi.py).

Python's cyclic garbage collector walks every tracked object of the oldest generation in one
pass. A worker that has loaded Django, the URL conf, the templates' modules and the anthropic SDK
holds about 190,000 such objects that live as long as the process; each full pass over them paused
a request for 80–340 ms on this machine (docs/BENCHMARKS.md), and every request queued behind it
waited too, which is what the 99th percentile measured. :func:`settle` collects once, then moves
everything alive into the permanent generation (``gc.freeze()``), so later passes walk only what
was made after boot: 5–26 ms. Nothing is leaked: only live objects are frozen, and they would
never have been freed anyway.
"""

from __future__ import annotations

import gc


def settle() -> None:
    """Collect the garbage boot made, then stop the collector from walking what is left."""
    gc.collect()
    gc.freeze()
