"""Playwright drives Debian's Chromium (never a downloaded browser) against live_server: its
headless shell when installed (tests/selection.py's ``chromium_path`` says why)."""

from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

from tests.selection import chromium_path

CHROMIUM = chromium_path()
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def base_url():
    """No base URL: every journey opens live_server's own. (pytest-playwright provides this
    fixture from a hook that has already run when tests/selection.py registers the plugin.)"""
    return None


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: run .ci/run or set CHROMIUM_PATH")
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture
def axe():
    return Axe()


#: The axe rules that read colours and run by default: color-contrast and link-in-text-block today
#: (the AAA color-contrast-enhanced is off by default, so neither scheme runs it).
COLOUR_RULES_JS = """axe.getRules(['cat.color']).map(r => r.ruleId)
  .filter(id => axe._audit.rules.find(r => r.id === id).enabled)"""
VIOLATIONS_JS = "(options) => axe.run(document, {resultTypes: ['violations'], ...options})"


@pytest.fixture
def axe_sweep(axe):
    """Open each path and return its axe violations (``"<path> (<scheme>): [rule ids]"``), light
    and dark, axe-core injected once per page load.

    Light runs every rule. Dark runs the colour rules only, on the same page switched to
    ``prefers-color-scheme: dark``: the dark scheme changes colours and nothing else (site.css's
    dark blocks only set colours, no script reads the scheme and nothing animates:
    test_axe_sweep.py::test_the_dark_scheme_changes_colours_only), so only the rules that read
    colours can answer differently there, and those run again."""

    def sweep(page, base: str, paths, signed_in: bool = False) -> list[str]:
        # Every page the sweep opens is checked: axe-core comes with each document, sent to the
        # browser once instead of with every page.
        page.context.add_init_script(script=axe.axe_script)
        failures = []
        for path in paths:
            page.emulate_media(color_scheme="light")
            page.goto(base + path)
            if signed_in and page.url != base + path:  # not the page itself but the log-in form
                failures.append(f"{path}: ended at {page.url}")
            colour_rules = page.evaluate(COLOUR_RULES_JS)
            assert "color-contrast" in colour_rules, colour_rules
            for scheme, options in (
                ("light", {}),
                ("dark", {"runOnly": {"type": "rule", "values": colour_rules}}),
            ):
                page.emulate_media(color_scheme=scheme)
                violations = page.evaluate(VIOLATIONS_JS, options)["violations"]
                if violations:
                    failures.append(f"{path} ({scheme}): {[v['id'] for v in violations]}")
        return failures

    return sweep


@pytest.fixture
def assert_accessible(axe):
    """Run axe-core on the page and fail with the rule ids and targets of any violation."""

    def check(page, name=""):
        # Injected once per document: a second check after an htmx swap reuses it.
        if page.evaluate("typeof axe === 'undefined'"):
            page.evaluate(axe.axe_script)
        violations = page.evaluate(VIOLATIONS_JS, {})["violations"]
        if violations:
            details = [f"{v['id']}: {[n['target'] for n in v['nodes']][:3]}" for v in violations]
            pytest.fail(f"axe violations on {name or page.url}: {details}")
        if name:
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)

    return check
