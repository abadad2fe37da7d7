"""Playwright drives Debian's Chromium (never a downloaded browser) against live_server."""

import os
from pathlib import Path

import pytest
from axe_playwright_python.sync_playwright import Axe

CHROMIUM = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


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


@pytest.fixture
def assert_accessible(axe):
    """Run axe-core on the page and fail with the rule ids and targets of any violation."""

    def check(page, name=""):
        results = axe.run(page)
        if results.violations_count:
            details = [
                f"{v['id']}: {[n['target'] for n in v['nodes']][:3]}"
                for v in results.response["violations"]
            ]
            pytest.fail(f"axe violations on {name or page.url}: {details}")
        if name:
            ARTIFACTS.mkdir(exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)

    return check
