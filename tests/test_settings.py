"""Settings come from the environment and fail loudly; production passes the deploy checklist."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "x9!-a-long-random-production-secret-key-with-many-characters-0192837465",
    "ALLOWED_HOSTS": "loopcraft.example.com",
}


def test_production_settings_pass_the_deploy_checklist():
    result = _run("check", "--deploy", "--fail-level", "WARNING", **PRODUCTION)
    assert result.returncode == 0, result.stderr + result.stdout


def test_missing_secret_key_in_production_fails_loudly():
    result = _run("check", DEBUG="false", SECRET_KEY="")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


@pytest.mark.parametrize(("name", "value"), [("DEBUG", "maybe"), ("SECURE_HSTS_SECONDS", "1y")])
def test_bad_values_name_the_variable(name, value):
    result = _run("check", **{**PRODUCTION, name: value})
    assert result.returncode != 0
    assert name in result.stderr


def test_database_url_selects_the_database():
    result = _run(
        "shell",
        "-c",
        "from django.conf import settings; print(settings.DATABASES['default']['NAME'])",
        **PRODUCTION,
        DATABASE_URL="sqlite:////tmp/loopcraft-other.sqlite3",
    )
    assert result.stdout.strip().splitlines()[-1] == "/tmp/loopcraft-other.sqlite3", result.stderr


def test_a_cache_url_selects_redis_for_the_cache_and_sessions_and_a_bad_one_is_named():
    code = (
        "from django.conf import settings as s; "
        "print(s.CACHES['default']['BACKEND'], s.CACHES['default']['LOCATION'], s.SESSION_ENGINE)"
    )
    result = _run("shell", "-c", code, **PRODUCTION, CACHE_URL="redis://10.0.0.20:6379/0")
    assert result.stdout.splitlines()[-1].split() == [
        "django.core.cache.backends.redis.RedisCache",
        "redis://10.0.0.20:6379/0",
        "django.contrib.sessions.backends.cached_db",
    ], result.stderr
    # Without one: each process's memory, and sessions stay in the database.
    plain = _run("shell", "-c", code.replace(", s.CACHES['default']['LOCATION']", ""), **PRODUCTION)
    assert plain.stdout.splitlines()[-1].split() == [
        "django.core.cache.backends.locmem.LocMemCache",
        "django.contrib.sessions.backends.db",
    ], plain.stderr
    bad = _run("check", **PRODUCTION, CACHE_URL="memcached://x")
    assert bad.returncode != 0 and "CACHE_URL" in bad.stderr
