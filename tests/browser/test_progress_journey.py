"""A learner misses a question, sees its concept due tomorrow, a day passes, and reviews it."""

from datetime import timedelta

import pytest
from django.db.models import F
from playwright.sync_api import expect

from progress.models import ConceptCard, ReviewLog
from quizzes.models import Question
from tests.factories import make_question

pytestmark = pytest.mark.django_db(transaction=True)


def a_day_passes():
    """Move the clock: every card and review of the concept happened a day earlier."""
    shift = timedelta(days=1, minutes=5)
    ConceptCard.objects.update(due=F("due") - shift, last_review=F("last_review") - shift)
    ReviewLog.objects.update(reviewed_at=F("reviewed_at") - shift)


def test_answer_then_review_the_concept_a_day_later(page, live_server, assert_accessible):
    first = make_question("single", "cap-a", "guards")
    second = make_question("single", "cap-b", "guards")
    Question.objects.filter(pk__in=[first.pk, second.pk]).update(concept="turn-cap")

    page.goto(live_server.url + "/practice/")
    page.get_by_label("Guards").check()
    page.get_by_label("How many").select_option("5")
    page.get_by_role("button", name="Start practising").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Question 1")
    assert_accessible(page, "progress-practice-certainty")

    stem = page.locator(".stem").inner_text()
    page.get_by_label("Option B").check()  # a wrong option
    page.get_by_label("How sure are you?").select_option("3")
    page.get_by_role("button", name="Check my answer").click()
    expect(page.locator("#answer-area")).to_contain_text("Not quite.")

    page.get_by_role("link", name="My progress").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("My progress")
    expect(page.locator("#cbm-average")).to_have_text("-6.0")
    expect(page.locator("#calibration-table")).to_contain_text("over-confident")
    expect(page.locator('tr[data-subtopic="guards"]')).to_contain_text("1 of 2")
    assert_accessible(page, "progress-dashboard")

    page.get_by_role("link", name="See what comes up next").click()
    expect(page.locator("#nothing-due")).to_be_visible()
    expect(page.locator("#upcoming-list")).to_contain_text("Turn cap, due tomorrow")
    assert_accessible(page, "progress-review-upcoming")

    a_day_passes()
    page.reload()
    expect(page.locator("#due-list")).to_contain_text("Turn cap")
    page.get_by_role("button", name="Start reviewing").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Question 1")
    assert page.locator(".stem").inner_text() != stem  # the question of the concept seen least
    page.get_by_label("Option A right").check()
    page.get_by_label("How sure are you?").select_option("2")
    page.get_by_role("button", name="Check my answer").click()
    expect(page.locator("#answer-area")).to_contain_text("Right.")

    page.goto(live_server.url + "/review/")
    expect(page.locator("#nothing-due")).to_be_visible()
    expect(page.locator("#upcoming-list")).to_contain_text("Turn cap, due in")

    # The retention dial saves in place through htmx, keyboard only.
    page.get_by_label("Desired retention").select_option("85")
    page.get_by_role("button", name="Save").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#retention-form")).to_contain_text("Saved.")
    assert_accessible(page, "progress-review")
