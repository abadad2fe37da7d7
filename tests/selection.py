"""What a run selects decides what it imports: the browser journeys and Playwright only when a
browser test can run.

Every test in tests/browser/ is marked ``browser`` (tests/browser/conftest.py marks them by
path) and no test elsewhere may carry the mark (checked at every collection, below). So when
``-m`` rules the mark out (``pytest -m "not browser"``), tests/browser/ is not collected at all:
its modules, axe and the SDK they import are never loaded, instead of imported and then
deselected. pytest-playwright's plugin (pyproject's addopts says ``-p no:playwright``) is
registered only when a browser test can run: the mark expression allows it and the paths given,
if any, reach into tests/browser/.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

BROWSER_DIR = Path(__file__).resolve().parent / "browser"
PLAYWRIGHT_PLUGIN = "pytest_playwright.pytest_playwright"
_IN_BROWSER_DIR = str(BROWSER_DIR) + os.sep  # a string test: Path.parents costs µs per item


#: Debian's chromium-headless-shell: the same Blink and V8 without the desktop browser around
#: them (Playwright's own choice for headless runs). On two cores the 66 journeys took 154 s of
#: wall clock and 297 s of CPU with /usr/bin/chromium, 102 s and 185 s with the shell.
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
FULL_CHROMIUM = "/usr/bin/chromium"


def chromium_path(environ=os.environ, exists=os.path.exists) -> str:
    """The browser the journeys drive: ``CHROMIUM_PATH`` when set, else the headless shell when
    installed, else the full browser."""
    return environ.get("CHROMIUM_PATH") or (
        HEADLESS_SHELL if exists(HEADLESS_SHELL) else FULL_CHROMIUM
    )


def _in_browser_dir(item: pytest.Item) -> bool:
    return str(item.path).startswith(_IN_BROWSER_DIR)


def mark_expression_allows_browser(markexpr: str) -> bool:
    """Whether some test marked ``browser`` (with any other marks) can match ``-m markexpr``.

    True for no expression and for one pytest cannot parse (pytest reports it itself)."""
    if not markexpr:
        return True
    try:
        from _pytest.mark.expression import Expression

        expression = Expression.compile(markexpr)
    except Exception:  # noqa: BLE001 (a malformed expression is pytest's to report)
        return True

    def satisfiable(fixed: dict) -> bool:
        # Backtracking over the marks the expression asks about, in the order it asks: an
        # unassigned mark reads False first; if the expression is still False, try it True.
        asked = []

        def matcher(name: str, /, **kwargs) -> bool:
            key = (name, tuple(sorted(kwargs.items())))
            if key == ("browser", ()):
                return True
            if key not in fixed:
                asked.append(key)
            return fixed.get(key, False)

        if expression.evaluate(matcher):
            return True
        return any(satisfiable({**fixed, key: True}) for key in dict.fromkeys(asked))

    return satisfiable({})


def paths_reach_browser(args: list[str], rootdir: Path) -> bool:
    """Whether the paths on the command line (none: testpaths, the whole of tests/) include
    tests/browser/ or something inside it."""
    paths = [arg.split("::")[0] for arg in args if not arg.startswith("-")]
    if not paths:
        return True
    for path in paths:
        resolved = (rootdir / path).resolve() if not Path(path).is_absolute() else Path(path)
        if resolved == BROWSER_DIR or BROWSER_DIR in resolved.parents:
            return True
        if resolved in BROWSER_DIR.parents:
            return True
    return False


def browser_tests_may_run(config: pytest.Config) -> bool:
    namespace = config.known_args_namespace
    return mark_expression_allows_browser(namespace.markexpr or "") and paths_reach_browser(
        list(namespace.file_or_dir or []), config.invocation_params.dir
    )


def pytest_addoption(parser, pluginmanager) -> None:
    # Runs when this plugin is registered (tests/conftest.py's pytest_plugins), after the
    # command line was read once and before it is read in full: pytest-playwright's own options
    # (--browser, --headed, …) are still added in time.
    config = pluginmanager.get_plugin("pytestconfig")
    if browser_tests_may_run(config):
        pluginmanager.import_plugin(PLAYWRIGHT_PLUGIN)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    if collection_path == BROWSER_DIR and not mark_expression_allows_browser(
        config.getoption("markexpr") or ""
    ):
        return True
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test marked ``browser`` outside tests/browser/ would run in a ``-m browser`` run only, and
    might need Playwright where it isn't loaded: collection fails instead."""
    strays = [
        item.nodeid
        for item in items
        if item.get_closest_marker("browser") and not _in_browser_dir(item)
    ]
    if strays:
        raise pytest.UsageError(
            f"tests marked browser must live in tests/browser/ (they run with Playwright): {strays}"
        )


def pytest_collection_finish(session: pytest.Session) -> None:
    """And every collected test of tests/browser/ carries the mark (its conftest adds it by path):
    one without it would be skipped with the directory by ``-m "not browser"`` and never run."""
    unmarked = [
        item.nodeid
        for item in session.items
        if _in_browser_dir(item) and not item.get_closest_marker("browser")
    ]
    if unmarked:
        raise pytest.UsageError(f"tests in tests/browser/ must be marked browser: {unmarked}")
