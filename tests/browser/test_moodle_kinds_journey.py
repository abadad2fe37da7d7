"""Issue 13: an instructor finds Import in the sub-navigation, imports a GIFT file with a
short-answer and an essay question, previews them as candidates see them, publishes them, and a
candidate answers both (real Chromium, axe-core on the pages)."""

import pytest
from django.contrib.auth.models import Group
from playwright.sync_api import expect

from quizzes.models import Question

pytestmark = pytest.mark.django_db(transaction=True)

GIFT = """::Type the value::[markdown]Type the `stop_reason` of a turn Claude finished on its own.{
\t=end_turn#Right: the loop exits and uses the answer.
\t=%0%tool_use#No: that asks for tool results.
\t####The natural end of a turn is end_turn.
}

::Explain the cap::[markdown]Explain why a turn cap is a guard and not the way a loop ends.{
\t####The loop ends on end_turn; the cap only stops a runaway loop.
}
"""
DOCS = "https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons"


def test_import_short_answer_and_essay_preview_publish_and_a_candidate_answers_both(
    page, live_server, django_user_model, assert_accessible
):
    user = django_user_model.objects.create_user("ada", password="pw-ada-12345")
    user.groups.add(Group.objects.get_or_create(name="Instructors")[0])
    page.goto(live_server.url + "/accounts/login/?next=/author/")
    page.fill("#id_username", "ada")
    page.fill("#id_password", "pw-ada-12345")
    page.keyboard.press("Enter")
    expect(page).to_have_url(live_server.url + "/author/")

    # Found from the instructor sub-navigation.
    page.get_by_role("navigation", name="Instructor tools").get_by_role(
        "link", name="Import"
    ).click()
    expect(page).to_have_url(live_server.url + "/author/import/")
    page.get_by_label("…or paste the questions").fill(GIFT)
    page.get_by_label("Default subtopic").select_option("guards")
    page.get_by_label("Default notes link").select_option("stop-reasons#end-turn")
    page.get_by_label("Default source").fill(DOCS)
    page.get_by_role("button", name="Preview the import").click()
    preview = page.locator("#import-preview")
    expect(preview).to_contain_text("short_answer")
    expect(preview).to_contain_text("essay")
    expect(preview).to_contain_text("2 new")
    assert_accessible(page, "moodle-kinds-import-preview")
    page.get_by_role("button", name="Import 2 questions").click()
    expect(page.locator(".messages")).to_contain_text("2 created")

    # Preview each as candidates see it, then publish it.
    for slug, control in (("type-the-value", "input[name=text]"), ("explain-the-cap", "textarea")):
        page.goto(live_server.url + f"/author/questions/{slug}/edit/")
        expect(page.locator(f"#preview {control}")).to_have_count(1)
        assert_accessible(page, f"moodle-kinds-preview-{slug}")
        page.get_by_role("button", name="Publish version 1").click()
        expect(page.locator(".messages")).to_contain_text("published")
    assert Question.objects.published().count() == 2

    # A candidate (signed out) practises the subtopic and answers both.
    page.get_by_role("button", name="Log out").click()
    page.goto(live_server.url + "/practice/")
    page.get_by_label("Guards").check()
    page.get_by_role("button", name="Start practising").click()
    for _ in range(2):
        if page.locator(".essay-answer textarea").count():
            page.locator(".essay-answer textarea").fill("The cap only stops a runaway loop.")
            page.get_by_role("button", name="Check my answer").click()
            expect(page.locator(".verdict")).to_contain_text("no automatic grade")
            expect(page.locator(".model-answer")).to_contain_text("runaway loop")
            page.get_by_role("button", name="I got it").click()
            expect(page.locator(".feedback")).to_contain_text("Your own mark")
        else:
            page.get_by_label("Your answer").fill("END_TURN")
            page.get_by_role("button", name="Check my answer").click()
            expect(page.locator(".verdict")).to_contain_text("Right.")
        assert_accessible(page)
        nxt = page.get_by_role("link", name="Next question")
        if nxt.count():
            nxt.click()
