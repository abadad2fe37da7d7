"""Every page a visitor or an instructor can open: 0 axe violations, light and dark."""

import pytest
from django.contrib.auth.models import Group

from tests.factories import make_bank

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


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_page_has_no_axe_violations(browser, live_server, django_user_model, axe, scheme):
    make_bank(12)
    context = browser.new_context(color_scheme=scheme)
    page = context.new_page()
    failures = []

    def sweep(paths):
        for path in paths:
            page.goto(live_server.url + path)
            results = axe.run(page)
            if results.violations_count:
                rules = [v["id"] for v in results.response["violations"]]
                failures.append(f"{path}: {rules}")

    sweep(PUBLIC)
    user = django_user_model.objects.create_user("teacher", password="pw-teacher-123")
    user.groups.add(Group.objects.get_or_create(name="Instructors")[0])
    page.goto(live_server.url + "/accounts/login/")
    page.get_by_label("Username").fill("teacher")
    page.get_by_label("Password").fill("pw-teacher-123")
    page.get_by_role("button", name="Log in").click()
    sweep(INSTRUCTOR)
    context.close()
    assert not failures, failures


def test_no_public_page_scrolls_sideways_on_a_phone(browser, live_server):
    make_bank(12)
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    page = context.new_page()
    wide = []
    for path in PUBLIC:
        page.goto(live_server.url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 380:
            wide.append(f"{path}: {width}px")
    context.close()
    assert not wide, wide
