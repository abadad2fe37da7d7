"""Loopcraft settings: one file, configured by environment variables that fail loudly."""

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: str) -> bool:
    value = os.getenv(name, default).strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {value!r}")


def envint(name: str, default: str) -> int:
    value = os.getenv(name, default)
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}") from None


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.getenv(name, default).split(",") if item.strip()]


DEBUG = envbool("DEBUG", "false")
_DEV_KEY = "dev-only-insecure-key-do-not-use-in-production"
SECRET_KEY = os.getenv("SECRET_KEY", _DEV_KEY if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "studyapp",
    "studyapp.notes",
    "studyapp.sandbox",
    "quizzes",
    "authoring",
    "progress",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "studyapp.security.RequestTooBigMiddleware",  # before CSRF: it reads the POST first
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
]

ROOT_URLCONF = "studyapp.urls"
WSGI_APPLICATION = "studyapp.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "studyapp" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "builtins": ["template_partials.templatetags.partials"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "authoring.context_processors.authoring",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        os.getenv("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=envint("CONN_MAX_AGE", "600"),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Serve files from the finders when collectstatic has not run (development and tests).
WHITENOISE_USE_FINDERS = DEBUG or envbool("WHITENOISE_USE_FINDERS", "false")
WHITENOISE_AUTOREFRESH = DEBUG

CONTENT_DIR = Path(os.getenv("CONTENT_DIR", BASE_DIR / "content"))

# Uploads: the sandbox takes files up to 2 MB; a little headroom for the form around them.
DATA_UPLOAD_MAX_MEMORY_SIZE = 3 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 3 * 1024 * 1024

CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# Security: strict by default when DEBUG is off; SECURE_SSL_REDIRECT can be turned off behind a
# proxy that already redirects.
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", "false" if DEBUG else "true")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000")
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", "false")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_HTTPONLY = True
SILENCED_SYSTEM_CHECKS = envlist("SILENCED_SYSTEM_CHECKS", "")
if not SECURE_HSTS_PRELOAD:
    # Preloading is a one-way decision for a domain's owner, not a default for every deployment.
    SILENCED_SYSTEM_CHECKS.append("security.W021")

# The anthropic SDK reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL itself; the live sandbox only
# needs to know whether a key is configured.
ANTHROPIC_MODEL = os.getenv("ANTHROPIC_MODEL", "claude-haiku-5-5")  # README: why

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # API keys (sk-ant-..., and any copy of ANTHROPIC_API_KEY) never reach a log line.
    "filters": {"redact": {"()": "studyapp.agentloop.redact.RedactingFilter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["redact"]}},
    "root": {"handlers": ["console"], "level": os.getenv("LOG_LEVEL", "INFO")},
}

# --- Production hardening (issue 8): CSP, rate limits, cookies, database robustness ----------
# Content-Security-Policy on every response (studyapp/security.py has the default policy).
MIDDLEWARE.append("studyapp.security.ContentSecurityPolicyMiddleware")
# Rate limits on log-in, sign-up, uploads and live runs: N requests per S seconds per client.
MIDDLEWARE.append("studyapp.ratelimit.RateLimitMiddleware")
RATELIMIT_ENABLED = envbool("RATELIMIT_ENABLED", "true")
# Behind a proxy every request comes from the proxy: name the header that carries the client,
# e.g. HTTP_X_REAL_IP or HTTP_X_FORWARDED_FOR (its last entry is used).
RATELIMIT_IP_META = os.getenv("RATELIMIT_IP_META", "REMOTE_ADDR")
RATELIMIT_CACHE = os.getenv("RATELIMIT_CACHE", "default")


def _envrate(name: str, default: str) -> tuple[int, int]:
    from studyapp.ratelimit import parse_rate

    return parse_rate(name, os.getenv(name, default))


RATE_LIMITS = {
    "login": {
        "views": ["login", "signup"],
        "rate": _envrate("RATELIMIT_LOGIN", "10/300"),
        "what": "log-in attempts",
    },
    "upload": {
        "views": ["sandbox:upload"],
        "rate": _envrate("RATELIMIT_UPLOAD", "20/600"),
        "what": "uploads",
    },
    # Starting (or forking) a live run, and each API call a run makes.
    "live": {
        "views": ["sandbox:live", "sandbox:live_fork"],
        "rate": _envrate("RATELIMIT_LIVE", "10/600"),
        "what": "live runs",
    },
    "live-steps": {
        "views": ["sandbox:live_step"],
        "rate": _envrate("RATELIMIT_LIVE_STEPS", "120/600"),
        "what": "live steps",
    },
}
# Problem reports are open to anonymous visitors (authoring).
RATE_LIMITS["reports"] = {
    "views": ["author:report_problem"],
    "rate": _envrate("RATELIMIT_REPORTS", "10/600"),
    "what": "problem reports",
}
if envbool("RATELIMIT_DB_CACHE", "false"):
    # Shared by every app server on one database: `manage.py createcachetable` creates it.
    CACHES["ratelimit"] = {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "loopcraft_ratelimit",
    }
    RATELIMIT_CACHE = "ratelimit"
# htmx sends the token from <body hx-headers>; no script needs to read the cookie.
CSRF_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
# A dropped PostgreSQL connection is noticed at the start of a request, not by a 500.
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Concurrent writers wait for the lock (up to 20 s) instead of failing with "locked";
    # WAL lets readers go on while one request writes.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )

# Item statistics are served for up to this many seconds before being recomputed (0: recompute
# whenever an exam is submitted).
STATS_MAX_AGE = envint("STATS_MAX_AGE", "300")
# Live mode: tokens one learner (account or browser) may spend per UTC day.
LIVE_DAILY_TOKEN_CAP = envint("LIVE_DAILY_TOKEN_CAP", "200000")  # per signed-in account, per day
# Where live API calls run (studyapp/sandbox/jobs.py, docs/DEPLOY.md): "thread" (a pool in each
# web process) or "external" (`manage.py liveworker`); never inside a request.
LIVE_JOBS = os.getenv("LIVE_JOBS", "thread")
if LIVE_JOBS not in ("thread", "external", "inline"):
    raise ImproperlyConfigured("LIVE_JOBS must be thread or external.")
LIVE_THREADS = envint("LIVE_THREADS", "4")  # calls at once per web process (thread mode)
LIVE_QUEUE_STALE_S = envint("LIVE_QUEUE_STALE_S", "120")  # an unclaimed call fails after this
