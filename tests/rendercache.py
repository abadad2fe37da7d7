"""Markdown a previous run rendered, answered from a file instead of rendered again.

core.rendering keeps every text it renders without generated blocks (``_render_plain``, an
lru_cache): texts that render the same every time. The real bank with its three translations is
about 8,900 of them, and the first process to load it (loadcontent, the factories' real bank)
spent 2.3 s of CPU rendering them, in every run and every pytest-xdist worker. A run saves the
texts it rendered and their HTML next to the test database (``.test-db.sqlite3.render-<hash>``,
ignored by git); a later run whose hash matches answers those texts from the file, and renders
every other text as before.

The hash covers what the HTML depends on: the source of every module in core/ (rendering.py,
its sanitiser and extensions' settings) and the installed Markdown, nh3 and Pygments. Change any
of them and the file no longer matches: every text is rendered afresh. Only this run's texts are
saved (fuzzed texts do not pile up); the workers of one xdist run add theirs to one file.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import pickle
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: this process's texts: (text, toc, trusted) -> what _render_plain returns
_USED: dict[tuple[str, bool, bool], tuple[str, tuple[dict, ...]]] = {}


def fingerprint() -> str:
    digest = hashlib.sha256(sys.version.encode())
    for name in ("markdown", "nh3", "pygments"):
        digest.update(f"{name}=={version(name)}\n".encode())
    for path in sorted((ROOT / "core").glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _path() -> Path:
    return ROOT / f".test-db.sqlite3.render-{fingerprint()}"


def _read(path: Path) -> dict:
    try:
        with path.open("rb") as f:
            return pickle.load(f)  # noqa: S301 - our own file, written below
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ValueError):
        return {}


def pytest_configure(config):
    from core import rendering

    path = _path()
    kept = _read(path).get("texts", {})
    render = rendering._render_plain

    def _render_plain(text: str, toc: bool, trusted: bool):
        key = (text, toc, trusted)
        found = _USED.get(key)
        if found is None:
            found = kept.get(key)
            if found is None:
                found = render(text, toc, trusted)
            _USED[key] = found
        return found

    rendering._render_plain = _render_plain
    config.stash[_PATH] = path


_PATH = pytest.StashKey[Path]()


def pytest_sessionfinish(session):
    path = session.config.stash.get(_PATH, None)
    if path is None or not _USED:
        return
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", "")
    lock = path.with_name(path.name + ".lock")
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        texts = dict(_USED)
        saved = _read(path)
        if run and saved.get("run") == run:  # another worker of this run saved first
            texts = {**saved.get("texts", {}), **texts}
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        with partial.open("wb") as f:
            pickle.dump({"run": run, "texts": texts}, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, path)
    for old in ROOT.glob(".test-db.sqlite3.render-*"):
        if old.name not in (path.name, lock.name) and not old.name.endswith(".partial"):
            old.unlink(missing_ok=True)
