"""Journeys with the keyboard alone — Tab, Shift+Tab, arrows, Space and Enter, never the mouse
and never element.focus() — under the real Content-Security-Policy, which must block nothing."""

import pytest
from playwright.sync_api import expect

from quizzes.models import Attempt
from tests.factories import make_question

pytestmark = pytest.mark.django_db(transaction=True)

# Records every CSP violation the page reports: our own pages must need nothing inline.
CSP_WATCH = """
document.addEventListener("securitypolicyviolation", (e) => {
  (window.__csp = window.__csp || []).push(e.violatedDirective + " " + e.blockedURI);
});
"""


@pytest.fixture
def kb(page):
    page.add_init_script(CSP_WATCH)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))

    def clean():
        assert page.evaluate("() => window.__csp || []") == [], "CSP blocked something"
        assert errors == [], errors

    page.clean = clean
    return page


def tab_to(page, selector: str, *, name: str = "", limit: int = 80) -> None:
    """Press Tab until the focused element matches selector (and contains name)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        hit = page.evaluate(
            "([sel, name]) => { const el = document.activeElement; return !!el"
            " && el.matches(sel) && (el.textContent || el.value || '').includes(name); }",
            [selector, name],
        )
        if hit:
            return
    raise AssertionError(f"Tab never reached {selector} {name!r}: not keyboard reachable")


def test_a_mock_exam_with_the_keyboard_alone(kb, live_server, assert_accessible):
    for i in range(6):
        make_question("single", f"kb-{i}")
    kb.goto(live_server.url + "/exam/")
    tab_to(kb, "select#id_count")  # the topic mock's size (the CCA-F form comes first)
    kb.keyboard.press("Home")  # the first size: 5 questions
    tab_to(kb, "button", name="Start the topic mock")
    kb.keyboard.press("Enter")
    expect(kb.get_by_role("heading", level=1)).to_contain_text("Question 1")

    for n in range(1, 6):
        expect(kb.get_by_role("heading", level=1)).to_contain_text(f"Question {n}")
        tab_to(kb, "input[type=radio]")
        kb.keyboard.press("Space")  # choosing saves it at once, through htmx
        expect(kb.locator("#save-status")).to_contain_text("Saved at")
        if n == 2:
            tab_to(kb, "button", name="Flag for review")
            kb.keyboard.press("Enter")
            expect(kb.locator("#flag-form button")).to_have_attribute("aria-pressed", "true")
            kb.keyboard.press("Shift+Tab")  # back up into the form
        label = "Save and next" if n < 5 else "Save and review"
        tab_to(kb, "button", name=label)
        kb.keyboard.press("Enter")
    expect(kb.get_by_role("heading", level=1)).to_have_text("Review before you submit")
    expect(kb.locator("main")).to_contain_text("1 flagged")
    assert_accessible(kb, "keyboard-exam-summary")
    tab_to(kb, "button", name="Submit the exam")
    kb.keyboard.press("Enter")
    kb.wait_for_url("**/results/")
    attempt = Attempt.objects.get()
    assert attempt.submitted_at is not None
    assert attempt.responses.filter(answered_at__isnull=False).count() == 5
    assert_accessible(kb, "keyboard-exam-results")
    kb.clean()


def test_a_sandbox_run_in_predict_mode_with_the_keyboard_alone(kb, live_server, assert_accessible):
    kb.goto(live_server.url + "/sandbox/")
    tab_to(kb, "a", name="Refund inside the 30-day window")
    kb.keyboard.press("Enter")
    expect(kb.locator(".step-count")).to_have_text("Step 1 of 4")
    tab_to(kb, "#stepper")  # the stepper is a focus stop of its own
    kb.keyboard.press("End")
    expect(kb.locator(".step-count")).to_have_text("Step 4 of 4")
    kb.keyboard.press("Home")
    expect(kb.locator(".step-count")).to_have_text("Step 1 of 4")

    tab_to(kb, "a", name="Predict mode")
    kb.keyboard.press("Enter")
    for n in range(1, 5):
        expect(kb.locator("main .lead")).to_contain_text(f"Step {n} of 4")
        tab_to(kb, "input[type=radio]")
        kb.keyboard.press("Space")
        tab_to(kb, "button", name="Reveal")
        kb.keyboard.press("Enter")  # htmx swaps the verdict in
        expect(kb.locator("#verdict a.button")).to_be_visible()
        tab_to(kb, "#verdict a.button")  # "Next step", or "See your score" after the last
        kb.keyboard.press("Enter")
        kb.wait_for_load_state()
    expect(kb.get_by_role("heading", level=1)).to_have_text("Your predictions")
    expect(kb.locator(".lead")).to_contain_text("out of 4 answered (4 steps)")
    assert_accessible(kb, "keyboard-predict-summary")
    kb.clean()
