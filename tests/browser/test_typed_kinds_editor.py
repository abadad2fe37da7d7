"""An instructor writes a numerical question in the browser editor (issue 13): a bad row is named
on the row, the live preview shows the number box, publishing makes it a question candidates
answer. Real Chromium, axe-core on the editor."""

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from quizzes.models import Question

pytestmark = pytest.mark.django_db(transaction=True)
DOCS = "https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons"


def test_instructor_writes_a_numerical_question_in_the_editor(
    page, live_server, django_user_model, assert_accessible
):
    user = django_user_model.objects.create_user("ada", password="pw-ada-12345")
    user.groups.add(Group.objects.get_or_create(name="Instructors")[0])
    page.goto(live_server.url + "/accounts/login/?next=/author/questions/new/")
    page.fill("#id_username", "ada")
    page.fill("#id_password", "pw-ada-12345")
    page.keyboard.press("Enter")
    page.get_by_role("link", name="Numerical (a number, with a tolerance)").click()

    page.get_by_label("Slug").fill("two-results")
    page.get_by_label("Subtopic").select_option("tool-results")
    page.get_by_label("Concept").fill("one-result-per-call")
    page.get_by_label("Notes section").select_option("stop-reasons#tool-use")
    page.get_by_label("Sources").fill(DOCS)
    page.get_by_label("Stem").fill("Two parallel tool calls need how many `tool_result` blocks?")
    page.get_by_label("Explanation").fill("One result per call, all in one user message.")
    page.get_by_label("The exam vs today").select_option("sampling")
    row = page.locator("fieldset.option-row").first
    row.get_by_label("Number (or * for any other number)").fill("two")
    row.get_by_label("Why (shown after answering)").fill("One per call.")
    page.get_by_role("button", name="Publish").click()
    expect(row).to_contain_text("answer must be a number or * (got 'two')")
    assert not Question.objects.filter(slug="two-results").exists()

    row = page.locator("fieldset.option-row").first
    row.get_by_label("Number (or * for any other number)").fill("2")
    row.get_by_label("Tolerance (±)").fill("0")
    page.get_by_role("button", name="Preview").click()
    expect(page.locator("#preview input[name=text]")).to_be_visible()
    assert_accessible(page, "author-editor-numerical")
    page.get_by_role("button", name="Publish").click()
    expect(page.locator(".messages")).to_contain_text("Version 1 published.")
    q = Question.objects.current().get(slug="two-results")
    assert (q.kind, q.status, q.data["today"]) == ("numerical", "published", "sampling")
    assert [(a["answer"], a["grade"]) for a in q.data["answers"]] == [(2.0, 1.0)]
