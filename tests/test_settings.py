"""Settings come from the environment and fail loudly; production passes the deploy checklist."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

ROOT = Path(__file__).resolve().parent.parent


def _run(*args, **env):
    ours = (
        "DEBUG",
        "SECRET_KEY",
        "ALLOWED_HOSTS",
        "SECURE_SSL_REDIRECT",
        "DATABASE_URL",
        "DJANGO_ALLOW_ASYNC_UNSAFE",
        "CACHE_URL",  # CI's PostgreSQL + Redis run sets it for the suite, not for these checks
        "REDIS_URL",
    )
    base = {k: v for k, v in os.environ.items() if k not in ours and not k.startswith("WHITE")}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "studyapp.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_the_deploy_checklist(production_env):
    # A process of its own: the checklist needs Django set up with these settings.
    result = _run("check", "--deploy", "--fail-level", "WARNING", **production_env)
    assert result.returncode == 0, result.stderr + result.stdout


def test_missing_secret_key_in_production_fails_loudly(settings_from_env):
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY must be set"):
        settings_from_env(DEBUG="false", SECRET_KEY="")


@pytest.mark.parametrize(("name", "value"), [("DEBUG", "maybe"), ("SECURE_HSTS_SECONDS", "1y")])
def test_bad_values_name_the_variable(settings_from_env, production_env, name, value):
    with pytest.raises(ImproperlyConfigured, match=name):
        settings_from_env(**{**production_env, name: value})


def test_database_url_selects_the_database(settings_from_env, production_env):
    loaded = settings_from_env(**production_env, DATABASE_URL="sqlite:////tmp/other.sqlite3")
    assert loaded["DATABASES"]["default"]["NAME"] == "/tmp/other.sqlite3"


def test_a_cache_url_selects_redis_for_the_cache_and_sessions_and_a_bad_one_is_named(
    settings_from_env, production_env
):
    s = settings_from_env(**production_env, CACHE_URL="redis://127.0.0.1:6390/0")
    # Django's own RedisCache, with one client per connection pool (studyapp/cache.py)
    assert s["CACHES"]["default"]["BACKEND"] == "studyapp.cache.RedisCache"
    assert s["CACHES"]["default"]["LOCATION"] == "redis://127.0.0.1:6390/0"
    assert s["SESSION_ENGINE"] == "studyapp.sessions.cached_db"
    # Without one: each process's memory, and sessions stay in the database.
    plain = settings_from_env(**production_env)
    assert plain["CACHES"]["default"]["BACKEND"] == "django.core.cache.backends.locmem.LocMemCache"
    assert plain["SESSION_ENGINE"] == "studyapp.sessions.db"
    with pytest.raises(ImproperlyConfigured, match="CACHE_URL"):
        settings_from_env(**production_env, CACHE_URL="memcached://x")


def test_the_redis_cache_is_djangos_and_reuses_one_client_per_pool():
    from django.core.cache.backends.redis import RedisCache as Djangos

    from studyapp.cache import RedisCache

    cache = RedisCache("redis://127.0.0.1:6390/0", {})
    assert isinstance(cache, Djangos)
    # No connection is made until a command runs: building clients needs no server.
    first = cache._cache.get_client("k")
    assert cache._cache.get_client("other") is first
    assert cache._cache.get_client("k", write=True) is first  # one server: one pool
