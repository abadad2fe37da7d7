"""Settings for the test run: the production settings file, with the environment a test needs."""

import os

os.environ.setdefault("SECRET_KEY", "tests-only-secret-key-0123456789-abcdefghijklmnopqrstuvwxyz")
os.environ.setdefault("ALLOWED_HOSTS", "testserver,localhost,127.0.0.1")
os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
os.environ.setdefault("WHITENOISE_USE_FINDERS", "true")
os.environ.setdefault("DEBUG", "false")
# Playwright's sync API runs an event loop in the test thread; the ORM must still work there.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

from studyapp.settings import *  # noqa: E402, F403

STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Every test client builds the middleware anew; WhiteNoise would list every static file through
# the finders each time (about 25 ms). Autorefresh looks a file up when it is asked for.
WHITENOISE_AUTOREFRESH = True
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
# Rate limits are off for the suite (every test client is 127.0.0.1); tests/test_security_ratelimit
# turns them on with small numbers.
RATELIMIT_ENABLED = False

# Statistics are recomputed whenever an exam is submitted (production serves them for up to
# STATS_MAX_AGE seconds).
STATS_MAX_AGE = 0
