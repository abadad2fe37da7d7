"""A CCA-F format mock and a day-one review session, in real Chromium."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from progress import flashcards
from progress.models import ConceptCard
from quizzes.models import Attempt
from tests.factories import load_real_bank

pytestmark = pytest.mark.django_db(transaction=True)


def phone_width(browser, url) -> int:
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    page = context.new_page()
    page.goto(url)
    width = page.evaluate("document.documentElement.scrollWidth")
    context.close()
    return width


def test_a_ccaf_mock_keeps_answers_on_reload_and_submits_at_time_out(
    page, browser, live_server, assert_accessible
):
    load_real_bank()  # as loadcontent writes it, built once per session
    page.goto(live_server.url + "/exam/")
    page.get_by_label("Items per scenario").select_option("5")
    page.get_by_role("button", name="Start a CCA-F format exam").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Question 1 of 20")
    brief = page.locator("#scenario-brief")
    expect(brief).to_contain_text("Scenario 1 of 4")
    expect(brief.locator("dd").first).to_be_visible()  # open on the scenario's first item
    expect(page.get_by_role("link", name="Exam", exact=True)).to_have_attribute(
        "aria-current", "page"
    )
    assert page.locator("input[type=radio]").count() == 4  # one key, three distractors
    assert_accessible(page, "ccaf-question")

    page.locator("input[type=radio]").nth(2).check()
    expect(page.locator("#save-status")).to_contain_text("Saved at")
    chosen = page.locator("input[type=radio]").nth(2).get_attribute("value")
    page.get_by_role("button", name="Save and next").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Question 2")
    expect(page.locator("#scenario-brief")).not_to_have_attribute("open", "")
    page.locator("input[type=radio]").first.check()
    expect(page.locator("#save-status")).to_contain_text("Saved at")

    page.reload()  # mid-way: the saved answer is still chosen
    expect(page.locator("input[type=radio]:checked")).to_have_count(1)
    page.locator("#navigator a").first.click()
    expect(page.locator(f'input[value="{chosen}"]')).to_be_checked()

    page.get_by_role("link", name="Review and submit").click()
    expect(page.locator("#summary-table tbody tr")).to_have_count(20)
    expect(page.locator("#summary-table")).to_contain_text("Answer saved")
    assert_accessible(page, "ccaf-summary")
    assert phone_width(browser, page.url) <= 380

    attempt = Attempt.objects.get()
    assert attempt.exam_format == "ccaf"
    Attempt.objects.update(deadline=timezone.now() + timedelta(seconds=2))
    page.goto(f"{live_server.url}/exam/{attempt.pk}/q/3/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Your results", timeout=8000)
    expect(page.locator("#scenario-table tbody tr")).to_have_count(4)
    assert_accessible(page, "ccaf-results")
    attempt.refresh_from_db()
    assert attempt.is_submitted and attempt.responses.filter(answered_at__isnull=False).count() == 2


def test_a_day_one_review_session(page, browser, live_server, assert_accessible):
    load_real_bank()  # as loadcontent writes it, built once per session
    page.goto(live_server.url + "/review/")
    expect(page.locator("#nothing-due")).to_be_visible()
    expect(page.get_by_role("button", name="Study ahead")).to_be_visible()
    assert_accessible(page, "review-day-one")
    assert phone_width(browser, page.url) <= 380

    total = len(flashcards.all_cards())
    page.get_by_role("link", name=f"Review {total} flashcards").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Flashcards")
    expect(page.locator("#cards-left")).to_contain_text(f"{total} due")
    front = page.locator("#card-front").inner_text()
    page.get_by_text("Show the answer").focus()
    page.keyboard.press("Enter")  # the disclosure opens from the keyboard
    expect(page.get_by_role("button", name="Good")).to_be_visible()
    assert_accessible(page, "flashcard-answer")
    assert phone_width(browser, page.url) <= 380
    page.get_by_role("button", name="Good").click()
    expect(page.locator("#cards-left")).to_contain_text(f"{total - 1} due")
    assert page.locator("#card-front").inner_text() != front
    assert ConceptCard.objects.filter(concept__startswith=flashcards.PREFIX).count() == 1

    page.goto(live_server.url + "/review/")
    page.get_by_role("button", name="Study ahead").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Question 1 of 10")
    page.locator("input[type=radio], input[type=checkbox]").first.check()
    page.get_by_role("button", name="Check my answer").click()
    expect(page.locator(".verdict")).to_be_focused()  # focus lands on the verdict
    assert_accessible(page, "study-ahead-feedback")
