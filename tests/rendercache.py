"""Markdown a previous run converted, answered from a file instead of converted again.

core.rendering converts a text in one pure step (``_convert``: the Markdown parsed and
sanitised, a generated block's marker left as a placeholder; the blocks run afterwards, every
time). The real bank with its three translations is about 8,900 texts and the notes in four
languages 52 more: the first process to load them (loadcontent, the factories' real bank, the
notes' libraries) spent about 3.5 s of CPU converting them, in every run and every pytest-xdist
worker. A run saves the texts it converted and what came out next to the test database
(``.test-db.sqlite3.render-<hash>``, ignored by git); a later run whose hash matches answers
those texts from the file, and converts every other text as before.

The hash covers what the HTML depends on: the source of every module in core/ (rendering.py,
its sanitiser and extensions' settings) and the installed Markdown, nh3 and Pygments. Change any
of them and the file no longer matches: every text is rendered afresh. A run adds the texts it
used to those saved before (a run of a few tests no longer leaves the next full run to convert
the whole bank again), the ones it used last; the workers of one xdist run add theirs to one
file. At most ``MAX_TEXTS`` are kept, those used least recently dropped first: fuzzed texts,
new in every run, do not pile up.
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
#: this process's texts: _convert's arguments -> what it returned
_USED: dict[tuple, tuple] = {}
#: a whole run uses about 10,600 texts (5 MB, read in 25 ms)
MAX_TEXTS = 30_000


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
    convert = rendering._convert

    def _convert(text: str, block_names: frozenset[str], toc: bool, trusted: bool):
        key = (text, block_names, toc, trusted)
        found = _USED.get(key)
        if found is None:
            found = kept.get(key)
            if found is None:
                found = convert(text, block_names, toc, trusted)
            _USED[key] = found
        return found

    rendering._convert = _convert
    config.stash[_PATH] = path


_PATH = pytest.StashKey[Path]()


def merged(saved: dict, used: dict, limit: int = MAX_TEXTS) -> dict:
    """The texts to save: ``saved`` (least recently used first) with ``used`` moved or added at
    the end, the oldest dropped beyond ``limit``."""
    texts = {key: value for key, value in saved.items() if key not in used}
    texts.update(used)
    excess = len(texts) - limit
    if excess > 0:
        texts = dict(list(texts.items())[excess:])
    return texts


def pytest_sessionfinish(session):
    path = session.config.stash.get(_PATH, None)
    if path is None or not _USED:
        return
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID", "")
    lock = path.with_name(path.name + ".lock")
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        texts = merged(_read(path).get("texts", {}), _USED)
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        with partial.open("wb") as f:
            pickle.dump({"run": run, "texts": texts}, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(partial, path)
    for old in ROOT.glob(".test-db.sqlite3.render-*"):
        if old.name not in (path.name, lock.name) and not old.name.endswith(".partial"):
            old.unlink(missing_ok=True)
