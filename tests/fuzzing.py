"""Hypothesis settings for the whole suite: a quick look while developing, a thorough one in CI.

``HYPOTHESIS_PROFILE=ci`` (set by .ci/run) runs each property test with the number of examples it
names; the default ``dev`` profile caps every test at ``DEV_EXAMPLES``, so ``pytest`` on a laptop
stays quick while CI still searches as deep as each test asks.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
DEV_EXAMPLES = 10
CI_EXAMPLES = 400

settings.register_profile("dev", max_examples=DEV_EXAMPLES)
settings.register_profile("ci", max_examples=CI_EXAMPLES)
settings.load_profile(PROFILE)


def fuzz(examples: int | None = None, *, derandomize: bool = False) -> settings:
    """Settings for a test that fuzzes a slow entry point: ``examples`` in CI (the profile's
    number when omitted), at most ``DEV_EXAMPLES`` otherwise; no deadline, and no health check
    for slow data or for fixtures shared by the examples."""
    if examples is None:
        examples = settings.default.max_examples
    elif PROFILE != "ci":
        examples = min(examples, DEV_EXAMPLES)
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=derandomize,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
