"""A candidate takes a 5-question mock exam in real Chromium, keyboard and mouse."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from quizzes.models import Attempt, Response
from tests.factories import make_bank, make_question

pytestmark = pytest.mark.django_db(transaction=True)


def answer_current_question(page):
    """Answer whatever kind the page shows, the way a person would."""
    radios = page.locator("input[type=radio]")
    boxes = page.locator("input[type=checkbox]")
    selects = page.locator("select")
    textarea = page.locator("textarea")
    fix = page.locator("#fix-text")
    if fix.count():
        fix.press("End")
        fix.type(" ")  # the broken history as given is valid JSON: saved, and graded later
        fix.blur()
    elif radios.count():
        radios.first.check()
    elif boxes.count():
        boxes.nth(0).check()
        boxes.nth(1).check()
    elif textarea.count():
        textarea.fill('{"type": "auto"}')
        textarea.blur()
    elif selects.count():
        for i in range(selects.count()):
            select = selects.nth(i)
            values = [
                v for v in select.locator("option").evaluate_all("os => os.map(o => o.value)") if v
            ]
            select.select_option(
                values[i % len(values)]
                if "pos-" not in (select.get_attribute("name") or "")
                else str(i + 1)
            )
    expect(page.locator("#save-status")).to_contain_text("Saved at")


def test_candidate_takes_a_short_exam(page, live_server, assert_accessible):
    make_bank(40)
    page.goto(live_server.url + "/exam/")
    assert_accessible(page, "exam-start")
    page.get_by_label("Questions").select_option("5")
    page.get_by_role("button", name="Start the topic mock").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Question 1")
    assert_accessible(page, "exam-question")

    answer_current_question(page)  # autosaved by htmx, no button pressed
    page.get_by_role("button", name="Save and next").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Question 2")
    answer_current_question(page)
    page.get_by_role("button", name="Flag for review").click()
    expect(page.get_by_role("button", name="Flagged: unflag")).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(page.locator("#navigator")).to_contain_text("flagged")

    # A reload shows the same remaining time, held on the server.
    before = int(page.locator("#timer").get_attribute("data-seconds-left"))
    page.reload()
    after = int(page.locator("#timer").get_attribute("data-seconds-left"))
    assert 0 <= before - after <= 3
    expect(page.locator("input:checked, select, textarea").first).to_be_visible()

    page.locator("#navigator a").nth(2).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Question 3")
    answer_current_question(page)
    page.get_by_role("link", name="Review and submit").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Review before you submit")
    expect(page.locator("main")).to_contain_text("2 not answered, 1 flagged")
    assert_accessible(page, "exam-summary")
    page.get_by_role("button", name="Submit the exam").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Your results")
    assert_accessible(page, "exam-results")
    page.get_by_role("link", name="Flagged", exact=True).click()
    expect(page.locator(".review-item")).to_have_count(1)
    expect(page).to_have_url(
        f"{live_server.url}/exam/{Attempt.objects.get().pk}/results/?show=flagged"
    )
    page.get_by_role("link", name="Unanswered").click()
    expect(page.locator(".review-item")).to_have_count(2)
    assert Response.objects.filter(answered_at__isnull=False).count() == 3


def test_the_exam_ends_itself_when_time_runs_out(page, live_server):
    make_bank(10)
    page.goto(live_server.url + "/exam/")
    page.get_by_label("Questions").select_option("5")
    page.get_by_role("button", name="Start the topic mock").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Question 1")
    Attempt.objects.update(deadline=timezone.now() + timedelta(seconds=2))
    page.reload()
    expect(page.get_by_role("heading", level=1)).to_have_text("Your results", timeout=8000)
    expect(page.locator(".messages")).to_contain_text("Time ran out")


def test_practice_feedback_swaps_in_and_works_by_keyboard(page, live_server, assert_accessible):
    for i in range(5):
        make_question("single", f"p-{i}")
    page.goto(live_server.url + "/practice/")
    assert_accessible(page, "practice-start")
    page.get_by_role("button", name="Start practising").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Question 1")
    assert_accessible(page, "practice-question")
    page.locator("input[type=radio]").first.focus()
    page.keyboard.press("Space")
    page.get_by_role("button", name="Check my answer").press("Enter")
    expect(page.locator(".feedback")).to_be_visible()
    expect(page.locator(".why").first).to_be_visible()
    assert_accessible(page, "practice-feedback")
