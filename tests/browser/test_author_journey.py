"""An instructor imports a GIFT question, edits it with the live preview, publishes it, and finds
it in practice, in real Chromium (axe-core on every page)."""

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from quizzes.models import Question

pytestmark = pytest.mark.django_db(transaction=True)

GIFT = """::Loop stops::[markdown]Which stop reason means the loop must act? {
=tool_use#Right: the application runs the tools and sends the results.
~end_turn#No: the turn is over.
~max_tokens#No: the output was cut off.
}
"""
DOCS = "https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons"


def test_instructor_imports_edits_with_the_preview_publishes_and_finds_it_in_practice(
    page, live_server, django_user_model, assert_accessible
):
    user = django_user_model.objects.create_user("ada", password="pw-ada-12345")
    user.groups.add(Group.objects.get_or_create(name="Instructors")[0])
    page.goto(live_server.url + "/accounts/login/?next=/author/import/")
    page.fill("#id_username", "ada")
    page.fill("#id_password", "pw-ada-12345")
    page.keyboard.press("Enter")
    expect(page).to_have_url(live_server.url + "/author/import/")

    # Import: preview first, then write.
    page.get_by_label("…or paste the questions").fill(GIFT)
    page.get_by_label("Format").select_option("gift")
    page.get_by_label("Default subtopic").select_option("stop-reasons")
    page.get_by_label("Default notes link").select_option("stop-reasons#tool-use")
    page.get_by_label("Default source").fill(DOCS)
    page.get_by_role("button", name="Preview the import").click()
    expect(page.locator("#import-preview")).to_contain_text("1 new")
    assert_accessible(page, "author-import-preview")
    page.get_by_role("button", name="Import 1 question").click()
    expect(page.locator(".messages")).to_contain_text("1 created")
    assert Question.objects.current().get(slug="loop-stops").status == "draft"

    # The list: filter to drafts, open the question.
    page.get_by_role("link", name="For instructors").click()
    page.get_by_label("Status").select_option("draft")
    expect(page.locator("#results")).to_contain_text("1 question.")
    assert_accessible(page, "author-list")
    page.get_by_role("link", name="loop-stops").click()

    # The editor: the preview follows the typing, rendered as candidates see it.
    expect(page.locator("#preview .stem")).to_contain_text("Which stop reason means")
    page.get_by_label("Stem").fill("Which `stop_reason` tells the loop to **run the tools**?")
    expect(page.locator("#preview .stem code")).to_have_text("stop_reason")
    expect(page.locator("#preview .stem strong")).to_have_text("run the tools")
    expect(page.locator("#preview input[type=radio][name=choice]")).to_have_count(3)
    assert_accessible(page, "author-editor")
    # The import left the wrong answers without a trap family; the editor asks for one.
    for select in page.locator("select[name$='-family']").all():
        if select.is_visible():
            select.select_option("ends-on-text")
    page.get_by_role("button", name="Publish as version 2").click()
    expect(page.locator(".messages")).to_contain_text("Version 2 published.")
    assert_accessible(page, "author-published")
    v2 = Question.objects.current().get(slug="loop-stops")
    assert (v2.version, v2.status) == (2, "published")

    # Practice: the candidate's view of the new version.
    page.get_by_role("link", name="Practice").click()
    page.get_by_label("Stop reasons").check()
    page.get_by_role("button", name="Start practising").click()
    expect(page.locator(".stem")).to_contain_text("tells the loop to run the tools")
    assert_accessible(page, "author-question-in-practice")
    page.get_by_label("tool_use").check()
    page.get_by_role("button", name="Check my answer").click()
    expect(page.locator(".verdict")).to_contain_text("Right.")


def test_a_learner_reports_a_problem_and_an_instructor_resolves_it(
    page, live_server, django_user_model, assert_accessible
):
    from tests.factories import make_question

    make_question("truefalse", slug="tf-report")
    page.goto(live_server.url + "/practice/")
    page.get_by_role("button", name="Start practising").click()
    page.get_by_text("Report a problem with this question").click()
    page.get_by_label("What is wrong with this question?").fill("The key looks wrong to me.")
    page.get_by_role("button", name="Send the report").click()
    expect(page.locator(".report-problem")).to_contain_text("Thank you")
    assert_accessible(page, "report-sent")

    user = django_user_model.objects.create_user("ada", password="pw-ada-12345")
    user.groups.add(Group.objects.get_or_create(name="Instructors")[0])
    page.goto(live_server.url + "/accounts/login/?next=/author/reports/")
    page.fill("#id_username", "ada")
    page.fill("#id_password", "pw-ada-12345")
    page.keyboard.press("Enter")
    expect(page.locator(".reports-table")).to_contain_text("The key looks wrong to me.")
    assert_accessible(page, "author-reports")
    page.get_by_role("button", name="Resolve report").click()
    expect(page.locator(".reports-table")).to_contain_text("Resolved by ada")
