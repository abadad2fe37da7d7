"""Settings of the app servers that tests/test_scale.py starts: the test settings, with the
production set-up's shared state (cached_db sessions in Redis) and a small log-in limit on."""

from tests.settings import *  # noqa: F403

SESSION_ENGINE = "studyapp.sessions.cached_db"
RATELIMIT_ENABLED = True
RATE_LIMITS = {
    **RATE_LIMITS,  # noqa: F405
    "login": {"views": ["login", "signup"], "rate": (4, 300), "what": "log-in attempts"},
}
# The signed-in user's row through Redis too, as in production (studyapp/usercache.py).
USER_CACHE_SECONDS = 60
