"""Settings for the test run: the production settings file, with the environment a test needs."""

import os
from urllib.parse import urlsplit, urlunsplit

os.environ.setdefault("SECRET_KEY", "tests-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost,127.0.0.1")
os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
os.environ.setdefault("WHITENOISE_USE_FINDERS", "true")
os.environ.setdefault("DEBUG", "false")
# Playwright's sync API runs an event loop in the test thread; the ORM must still work there.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def _own_redis_database(url: str, worker: str) -> str:
    """The Redis URL for one pytest-xdist worker ("gw0", "gw1", …): database 1, 2, … after the
    given one, so one worker's cache.clear() (every test starts with one) never empties
    another's cache."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss"):
        return url
    base = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{base + 1 + int(worker.removeprefix('gw'))}"))


# pytest-xdist: each worker has its own test database (pytest-django adds a suffix) and, with
# CACHE_URL (CI's PostgreSQL + Redis run), its own Redis database. The processes a test starts
# (tests/test_scale.py's app servers) inherit the URL already moved, and the mark that says so.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
if _WORKER and os.environ.get("TESTS_REDIS_DATABASE_OF") != _WORKER:
    for _name in ("CACHE_URL", "REDIS_URL"):
        if os.environ.get(_name):
            os.environ[_name] = _own_redis_database(os.environ[_name], _WORKER)
    os.environ["TESTS_REDIS_DATABASE_OF"] = _WORKER

from studyapp.settings import *  # noqa: E402, F403

STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# The test clients' middleware is built again after every setting change (tests/conftest.py),
# hundreds of times a run; WhiteNoise would list every static file through the finders each time
# (about 25 ms). Autorefresh looks a file up when it is asked for.
WHITENOISE_AUTOREFRESH = True
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
# Rate limits are off for the suite (every test client is 127.0.0.1); tests/test_security_ratelimit
# turns them on with small numbers.
RATELIMIT_ENABLED = False

# Statistics are recomputed whenever an exam is submitted (production serves them for up to
# STATS_MAX_AGE seconds).
STATS_MAX_AGE = 0

# With CACHE_URL (CI's PostgreSQL + Redis run) everything else uses Redis, but the suite keeps
# sessions in the database so the query counts it pins mean the same on both set-ups; the
# cached_db engine is tested on its own (tests/test_scale.py) and by the two-process test.
SESSION_ENGINE = "studyapp.sessions.db"

# A file, not SQLite's shared-cache memory database: live-mode worker threads write while requests
# read, and only a file database has real locking with a busy timeout (shared-cache tables answer
# "database table is locked" at once). Django creates and removes it for each run.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / ".test-db.sqlite3")}  # noqa: F405

# Live API calls run before the request returns in most tests (deterministic); the tests that
# prove a slow call holds no request (tests/test_live_jobs.py) switch to "thread".
LIVE_JOBS = "inline"

# Users are read from the database on every request, as in the embedded set-up, so the pinned
# query counts mean the same with CACHE_URL; tests/test_usercache.py turns the cache on.
USER_CACHE_SECONDS = 0

# pytest keeps every log record of a test and shows them when it fails ("Captured log"); the
# console handler would format and redact each INFO and WARNING line a second time into captured
# stderr (every 404 and 403 of the access matrix writes one). Errors still reach the console.
LOGGING = {
    **LOGGING,  # noqa: F405
    "handlers": {"console": {**LOGGING["handlers"]["console"], "level": "ERROR"}},  # noqa: F405
}
