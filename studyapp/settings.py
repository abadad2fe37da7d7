"""Loopcraft settings: one file, configured by environment variables that fail loudly."""

import os
from pathlib import Path

import dj_database_url
from csp.constants import NONE, SELF
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


def envrate(name: str, default: str) -> tuple[int, int]:
    """'10/300' → (10, 300): requests per seconds; a bad value names the variable."""
    value = os.getenv(name, default)
    count, _, seconds = value.partition("/")
    try:
        rate = (int(count), int(seconds))
    except ValueError:
        rate = (0, 0)
    if rate[0] < 1 or rate[1] < 1:
        raise ImproperlyConfigured(
            f"{name} must look like 10/300 (requests per seconds), not {value!r}"
        )
    return rate


# --- Core -----------------------------------------------------------------------------------
DEBUG = envbool("DEBUG", "false")
_DEV_KEY = "dev-only-insecure-key-do-not-use-in-production"
SECRET_KEY = os.getenv("SECRET_KEY", _DEV_KEY if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")
ROOT_URLCONF = "studyapp.urls"
WSGI_APPLICATION = "studyapp.wsgi.application"
TIME_ZONE = "UTC"
USE_TZ = True

# --- Languages (issue 16) -------------------------------------------------------------------
# English is the source and lives at the root; the others under their prefix (studyapp/urls.py:
# i18n_patterns, prefix_default_language=False), so a page's URL alone decides its language and
# a shared page cache needs no cookie. Names are each language's own, as the switcher shows them.
LANGUAGE_CODE = "en"
LANGUAGES = [
    ("en", "English"),
    ("zh-hans", "简体中文"),
    ("zh-hant", "繁體中文"),
    ("pl", "Polski"),
]
#: Django code -> the BCP 47 tag for <html lang> and hreflang (core/i18n.py).
LANGUAGE_TAGS = {"en": "en", "zh-hans": "zh-Hans", "zh-hant": "zh-Hant", "pl": "pl"}
USE_I18N = True
# Dates and numbers come out in each language's own format (|date, |floatformat, intcomma:
# Django 5 always localises); no thousands separator in plain numbers such as ids and counts.
USE_THOUSAND_SEPARATOR = False
# English keeps the site's own date style ("29 November 2026"); the others Django's for them.
FORMAT_MODULE_PATH = ["studyapp.formats"]
# The interface catalogues: locale/<zh_Hans|zh_Hant|pl>/LC_MESSAGES/django.po, compiled by
# `make setup` (manage.py compilemessages); the .mo files are build output, not committed.
LOCALE_PATHS = [BASE_DIR / "locale"]

# --- Apps and middleware --------------------------------------------------------------------
# Which of our apps may import which: README "What is where", tests/test_import_direction.py.
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "django_htmx",
    "template_partials",
    "csp",
    "core",
    "studyapp",
    "studyapp.notes",
    "studyapp.sandbox",
    "quizzes",
    "authoring",
    "progress",
]
MIDDLEWARE = [
    # Outermost: a cached anonymous reading page is answered before the rest of the stack runs,
    # with the headers the stack gave it when it was stored (studyapp/pagecache.py).
    "studyapp.pagecache.PageCacheMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After sessions, before common: it reads the language from the URL prefix (Django's,
    # choosing the same language with less work: core/i18n.py).
    "core.i18n.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "studyapp.security.RequestTooBigMiddleware",  # before CSRF: it reads the POST first
    "django.middleware.csrf.CsrfViewMiddleware",
    # Django's, with the user's row read through the shared cache (studyapp/usercache.py).
    "studyapp.usercache.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # django-csp's, with the header built once per policy (studyapp/security.py).
    "studyapp.security.CSPMiddleware",
    "studyapp.ratelimit.RateLimitMiddleware",
]
TEMPLATES = [
    {
        # Django's, whose {% load i18n %} loads studyapp/templatetags/kepti18n.py (each literal
        # {% translate %} translated once per catalogue)
        "BACKEND": "studyapp.templatetags.kepti18n.DjangoTemplates",
        "NAME": "django",
        "DIRS": [BASE_DIR / "studyapp" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            # {% url %}: each address reversed once per process (studyapp/templatetags/kepturl.py)
            "builtins": [
                "template_partials.templatetags.partials",
                "studyapp.templatetags.kepturl",
            ],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "authoring.context_processors.authoring",
                # The header's fixed URLs, reversed once per process instead of on every page.
                "studyapp.context_processors.site_urls",
                # <html lang>, hreflang alternates and the language switcher (core/i18n.py).
                "core.i18n.languages",
            ],
        },
    },
]
# Django's form renderer with the one-tag widgets (input, textarea) written in Python.
FORM_RENDERER = "core.widgets.FormRenderer"

# --- Database and cache ---------------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.parse(
        os.getenv("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=envint("CONN_MAX_AGE", "600"),
        # A dropped PostgreSQL connection is noticed at the start of a request, not by a 500.
        conn_health_checks=True,
    )
}
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
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Embedded by default (local memory in each process, sessions in the database): `make run` needs
# nothing. With several processes or servers, CACHE_URL (or REDIS_URL) names one Redis that holds
# sessions (cached_db: read from Redis, written through to the database), rate-limit counts,
# item statistics and the page cache for every server. docs/DEPLOY.md says what lives where.
CACHE_URL = os.getenv("CACHE_URL", "") or os.getenv("REDIS_URL", "")
if CACHE_URL and not CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(
        f"CACHE_URL must be a redis:// (or rediss://, unix://) URL, not {CACHE_URL!r}"
    )
CACHES = {
    "default": (
        {
            "BACKEND": "studyapp.cache.RedisCache",  # Django's, one client per pool
            "LOCATION": CACHE_URL,
            "KEY_PREFIX": os.getenv("CACHE_KEY_PREFIX", "loopcraft"),
        }
        if CACHE_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}
# Safe only with a cache every process shares: a per-process cache would keep serving a session
# that another process has logged out.
# Django's engines, their per-request queries compiled once (studyapp/sessions).
SESSION_ENGINE = "studyapp.sessions.cached_db" if CACHE_URL else "studyapp.sessions.db"
# The signed-in user's row is read through that shared cache for at most this many seconds
# (studyapp/usercache.py: dropped at once when the user, their groups or permissions change);
# 0 without CACHE_URL, where each process would keep its own copy.
USER_CACHE_SECONDS = envint("USER_CACHE_SECONDS", "60" if CACHE_URL else "0")
# Anonymous reading pages served from the cache named here, public for this many seconds
# (studyapp/pagecache.py); 0 switches the page cache off (the default with DEBUG on).
PAGE_CACHE_ALIAS = "default"
PAGE_CACHE_SECONDS = envint("PAGE_CACHE_SECONDS", "0" if DEBUG else "300")
# Each process checks the shared content version at most this often: a content reload
# (loadcontent) reaches every server within this many seconds.
PAGE_CACHE_VERSION_SECONDS = envint("PAGE_CACHE_VERSION_SECONDS", "1")
PAGE_CACHE_VIEWS = [
    "home",
    "glossary",
    "notes:index",
    "notes:detail",
    "notes:changes",  # "What changed since the exam guide"
    "sandbox:steps",  # library runs only: uploads and live runs have their own URL names
]
if envbool("RATELIMIT_DB_CACHE", "false"):
    # Shared by every app server on one database: `manage.py createcachetable` creates it.
    CACHES["ratelimit"] = {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "loopcraft_ratelimit",
    }

# --- Accounts -------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

# --- Static files, uploads, content ---------------------------------------------------------
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
# The sandbox takes files up to 2 MB; a little headroom for the form around them.
DATA_UPLOAD_MAX_MEMORY_SIZE = 3 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 3 * 1024 * 1024
CONTENT_DIR = Path(os.getenv("CONTENT_DIR", BASE_DIR / "content"))

# --- Security: strict by default when DEBUG is off ------------------------------------------
# SECURE_SSL_REDIRECT can be turned off behind a proxy that already redirects.
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", "false" if DEBUG else "true")
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000")
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", "false")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
SESSION_COOKIE_SECURE = not DEBUG
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SECURE = not DEBUG
# htmx sends the CSRF token read from the cookie (static/js/site.js), as Django documents for
# AJAX, so the pages themselves carry no token and can be shared; the cookie is set by a page
# with a form, or by /csrf/ just before the first htmx POST from a page without one.
CSRF_COOKIE_HTTPONLY = False
CSRF_COOKIE_SAMESITE = "Lax"
SILENCED_SYSTEM_CHECKS = envlist("SILENCED_SYSTEM_CHECKS", "") + (
    # Preloading is a one-way decision for a domain's owner, not a default for every deployment.
    [] if SECURE_HSTS_PRELOAD else ["security.W021"]
)
# Content-Security-Policy on every response (django-csp): only our own files may run or style
# the page; no inline script, no eval, no plug-ins, no framing. htmx is served from /static/
# by django-htmx, and base.html's htmx-config meta tag stops it injecting its indicator
# <style> and using eval, so the policy costs it nothing.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    }
}

# No report-only policy (django-csp reads it too; studyapp.security.CSPMiddleware keeps both).
CONTENT_SECURITY_POLICY_REPORT_ONLY = None

# --- Rate limits (studyapp/ratelimit.py) ----------------------------------------------------
# N requests per S seconds per client (the signed-in user, else the address) on log-in,
# sign-up, uploads, live runs and problem reports.
RATELIMIT_ENABLED = envbool("RATELIMIT_ENABLED", "true")
RATELIMIT_METHODS = ["POST"]
# Behind a proxy every request comes from the proxy: name the header that carries the client,
# e.g. HTTP_X_REAL_IP or HTTP_X_FORWARDED_FOR (its last entry is used).
RATELIMIT_IP_META = os.getenv("RATELIMIT_IP_META", "REMOTE_ADDR")
RATELIMIT_CACHE = "ratelimit" if "ratelimit" in CACHES else "default"
RATE_LIMITS = {
    "login": {
        "views": ["login", "signup"],
        "rate": envrate("RATELIMIT_LOGIN", "10/300"),
        "what": "log-in attempts",
    },
    "upload": {
        "views": ["sandbox:upload"],
        "rate": envrate("RATELIMIT_UPLOAD", "20/600"),
        "what": "uploads",
    },
    # Starting (or forking) a live run, and each API call a run makes.
    "live": {
        "views": ["sandbox:live", "sandbox:live_fork"],
        "rate": envrate("RATELIMIT_LIVE", "10/600"),
        "what": "live runs",
    },
    "live-steps": {
        "views": ["sandbox:live_step"],
        "rate": envrate("RATELIMIT_LIVE_STEPS", "120/600"),
        "what": "live steps",
    },
    # Problem reports are open to anonymous visitors (authoring).
    "reports": {
        "views": ["author:report_problem"],
        "rate": envrate("RATELIMIT_REPORTS", "10/600"),
        "what": "problem reports",
    },
}

# --- The study app --------------------------------------------------------------------------
# The anthropic SDK reads ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL itself; the live sandbox only
# needs to know whether a key is configured.
ANTHROPIC_MODEL = os.getenv("ANTHROPIC_MODEL", "claude-haiku-5-5")  # README: why
# Live mode: tokens one learner (their account, else their browser session) may spend per UTC day.
LIVE_DAILY_TOKEN_CAP = envint("LIVE_DAILY_TOKEN_CAP", "200000")
# Item statistics are served for up to this many seconds before being recomputed (0: recompute
# whenever an exam is submitted).
STATS_MAX_AGE = envint("STATS_MAX_AGE", "300")
# Where live API calls run (studyapp/sandbox/jobs.py, docs/DEPLOY.md): "thread" (a pool in each
# web process) or "external" (`manage.py liveworker`); never inside a request.
LIVE_JOBS = os.getenv("LIVE_JOBS", "thread")
if LIVE_JOBS not in ("thread", "external", "inline"):
    raise ImproperlyConfigured("LIVE_JOBS must be thread or external.")
LIVE_THREADS = envint("LIVE_THREADS", "4")  # calls at once per web process (thread mode)
LIVE_QUEUE_STALE_S = envint("LIVE_QUEUE_STALE_S", "120")  # an unclaimed call fails after this
# FSRS spreads due dates a little so reviews don't bunch up; tests turn it off to pin dates.
PROGRESS_FSRS_FUZZ = True

# --- Logging --------------------------------------------------------------------------------
# One logger per module (logging.getLogger(__name__)); everything goes to the console.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(levelname)s %(name)s: %(message)s"}},
    # API keys (sk-ant-..., and any copy of ANTHROPIC_API_KEY) never reach a log line.
    "filters": {"redact": {"()": "studyapp.agentloop.redact.RedactingFilter"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler", "formatter": "plain", "filters": ["redact"]}
    },
    "root": {"handlers": ["console"], "level": os.getenv("LOG_LEVEL", "INFO")},
}
