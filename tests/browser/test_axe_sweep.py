"""Every page a visitor or an instructor can open: 0 axe violations, light and dark (every rule
in light, the colour rules in dark: tests/browser/conftest.py axe_sweep says why)."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from tests.factories import make_bank

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.django_db(transaction=True)

PUBLIC = [
    "/", "/notes/", "/notes/tool-choice/", "/notes/changes/", "/glossary/", "/traps/",
    "/practice/", "/exam/", "/sandbox/tool-choice-any/steps/1/",
    "/sandbox/", "/sandbox/upload/", "/sandbox/live/", "/sandbox/thinking-tool-loop/steps/1/",
    "/sandbox/refusal/predict/1/", "/accounts/login/", "/accounts/signup/", "/me/", "/review/",
    "/review/cards/",
    "/no-such-page/", "/sandbox/parallel-lookups/overview/",
    "/sandbox/parallel-lookups/conversation/", "/sandbox/web-search-pause-turn/conversation/",
    "/sandbox/web-search-pause-turn/overview/", "/sandbox/refusal/predict/summary/",
    "/sandbox/compare/?a=refund-45-days&b=refund-45-days-manager-claim",
    # Each visitor's reading status without JavaScript; a check-yourself answer sent empty.
    "/notes/reading/", "/notes/tool-choice/read/", "/notes/tool-choice/check/b-0/?answered=1",
]  # fmt: skip
INSTRUCTOR = [
    "/author/", "/author/questions/new/", "/author/questions/b-3/edit/", "/author/reports/",
    "/author/import/", "/author/export/", "/author/stats/", "/author/stats/b-3/",
    # The editor rows of the typed-answer kinds (issue 13).
    "/author/questions/new/?kind=short_answer", "/author/questions/new/?kind=numerical",
    "/author/questions/new/?kind=essay", "/author/questions/new/?kind=matching",
]  # fmt: skip


def _groups(paths: list[str], n: int) -> list[list[str]]:
    """n groups of every n-th page: the long pages at the top of a list land in different ones."""
    return [paths[i::n] for i in range(n)]


# Four or five pages a test (5-10 s), so that pytest-xdist spreads the sweep over its workers.
PUBLIC_GROUPS = _groups(PUBLIC, 7)
INSTRUCTOR_GROUPS = _groups(INSTRUCTOR, 3)


@pytest.mark.parametrize(
    "paths", PUBLIC_GROUPS, ids=[f"public-{n}" for n in range(1, len(PUBLIC_GROUPS) + 1)]
)
def test_every_public_page_has_no_axe_violations(browser, live_server, axe_sweep, paths):
    make_bank(12)
    context = browser.new_context()
    failures = axe_sweep(context.new_page(), live_server.url, paths)
    context.close()
    assert not failures, failures


@pytest.mark.parametrize(
    "paths",
    INSTRUCTOR_GROUPS,
    ids=[f"instructor-{n}" for n in range(1, len(INSTRUCTOR_GROUPS) + 1)],
)
def test_every_instructor_page_has_no_axe_violations(
    browser, live_server, instructor, axe_sweep, paths
):
    make_bank(12)
    session = Client()
    session.force_login(instructor)
    context = browser.new_context()
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": session.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    failures = axe_sweep(context.new_page(), live_server.url, paths, signed_in=True)
    context.close()
    assert not failures, failures


DARK_ONLY_GREY = """<!doctype html><html lang="en"><head><title>Sweep check</title>
<style>body { background: #fff; color: #222; }
@media (prefers-color-scheme: dark) { body { background: #121517; } }</style></head>
<body><main><h1>Readable in light only</h1><p>Dark grey text.</p>%s</main></body></html>"""


def test_the_sweep_finds_what_each_scheme_breaks(browser, axe_sweep):
    """The sweep itself can fail: a rule broken in both schemes is named once (light), a
    contrast broken only in the dark scheme is named for dark, after the page was switched."""
    context = browser.new_context()
    pages = {
        "/dark-only/": DARK_ONLY_GREY % "",
        "/no-alt/": DARK_ONLY_GREY.replace("#121517", "#fff") % '<img src="data:,">',
    }
    context.route(
        "http://sweep.test/**",
        lambda route: route.fulfill(
            content_type="text/html",
            body=pages[route.request.url.removeprefix("http://sweep.test")],
        ),
    )
    failures = axe_sweep(context.new_page(), "http://sweep.test", list(pages))
    context.close()
    assert failures == ["/dark-only/ (dark): ['color-contrast']", "/no-alt/ (light): ['image-alt']"]


def test_the_sweep_groups_hold_every_page_once():
    for pages, groups in ((PUBLIC, PUBLIC_GROUPS), (INSTRUCTOR, INSTRUCTOR_GROUPS)):
        swept = [p for g in groups for p in g]
        assert sorted(swept) == sorted(pages) and len(set(swept)) == len(pages)


def test_the_dark_scheme_changes_colours_only():
    """What lets the dark sweep run the colour rules only (tests/browser/conftest.py axe_sweep):
    every declaration under prefers-color-scheme: dark sets a colour, no script asks for the
    scheme (the page is switched after loading) and nothing animates a change of colour."""
    css = (ROOT / "static" / "css" / "site.css").read_text()
    dark = []
    for match in re.finditer(r"@media \(prefers-color-scheme: dark\) \{", css):
        depth, i = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(css[i], 0)
            i += 1
        dark.append(css[match.end() : i - 1])
    assert len(dark) == css.count("prefers-color-scheme: dark") >= 1
    declarations = [
        d.strip() for block in dark for rule in re.findall(r"\{([^{}]*)\}", block)
        for d in rule.split(";") if d.strip()
    ]  # fmt: skip
    assert declarations
    for declaration in declarations:
        name, value = (part.strip() for part in declaration.split(":", 1))
        assert name.startswith("--") or name in ("color", "background", "background-color"), name
        assert re.fullmatch(r"#[0-9a-f]{3,8}", value), declaration
    assert not re.search(r"transition|animation", css)
    scripts = [p.read_text() for p in (ROOT / "static").rglob("*.js")]
    assert scripts and not any(re.search(r"prefers-color-scheme|matchMedia", js) for js in scripts)
    apps = [d for d in ROOT.iterdir() if d.is_dir() and d.name not in (".venv", ".git")]
    templates = [p.read_text() for d in apps for p in d.glob("**/templates/**/*.html")]
    assert templates and not any("prefers-color-scheme" in t for t in templates)


@pytest.mark.parametrize("paths", _groups(PUBLIC, 2), ids=["public-1", "public-2"])
def test_no_public_page_scrolls_sideways_on_a_phone(browser, live_server, paths):
    make_bank(12)
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    page = context.new_page()
    wide = []
    for path in paths:
        page.goto(live_server.url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 380:
            wide.append(f"{path}: {width}px")
    context.close()
    assert not wide, wide
