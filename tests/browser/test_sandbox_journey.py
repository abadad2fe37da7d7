"""A learner steps through a recorded loop by keyboard, toggles raw JSON and predicts."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)


def test_learner_steps_through_a_run_with_the_keyboard(page, live_server, assert_accessible):
    page.goto(live_server.url + "/sandbox/")
    assert_accessible(page, "sandbox-library")
    page.get_by_role("link", name="Refund inside the 30-day window").first.click()
    page.wait_for_load_state()
    expect(page.locator(".step-count")).to_have_text("Step 1 of 4")
    assert_accessible(page, "sandbox-step")

    page.locator("#stepper").focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator(".step-count")).to_have_text("Step 2 of 4")
    expect(page).to_have_url(live_server.url + "/sandbox/refund-25-days/steps/2/")
    page.keyboard.press("End")
    expect(page.locator(".step-count")).to_have_text("Step 4 of 4")
    expect(page.locator(".decision")).to_contain_text("Stop and use the answer")
    page.keyboard.press("Home")
    expect(page.locator(".step-count")).to_have_text("Step 1 of 4")
    page.keyboard.press("t")
    expect(page.locator(".step-count")).to_have_text("Step 2 of 4")

    # Keys typed elsewhere on the page do nothing.
    page.get_by_role("link", name="Predict mode").first.focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator(".step-count")).to_have_text("Step 2 of 4")

    page.get_by_role("button", name="Show raw JSON").click()
    expect(page.locator(".raw-json").first).to_contain_text('"type": "tool_use"')
    page.locator("#stepper").focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator(".step-count")).to_have_text("Step 3 of 4")
    expect(page.locator(".raw-json").first).to_be_visible()  # the choice is remembered
    page.get_by_role("button", name="Show rendered blocks").click()
    expect(page.locator(".raw-json")).to_have_count(0)


def test_a_broken_loop_shows_the_checkers_finding(page, live_server, assert_accessible):
    page.goto(live_server.url + "/sandbox/broken-split-results/steps/1/")
    page.locator("#stepper").focus()
    page.keyboard.press("f")
    expect(page.locator(".findings")).to_be_visible()
    assert_accessible(page, "sandbox-finding")


def test_learner_completes_predict_mode(page, live_server, assert_accessible):
    page.goto(live_server.url + "/sandbox/web-search-pause-turn/predict/1/")
    assert_accessible(page, "sandbox-predict")
    page.get_by_label("Send the paused turn back as is").check()
    page.get_by_role("button", name="Reveal").click()
    expect(page.locator("#verdict")).to_contain_text("Right.")
    page.get_by_role("link", name="Next step").click()
    page.get_by_label("Run the tools, send every result in one message").check()
    page.get_by_role("button", name="Reveal").click()
    expect(page.locator("#verdict")).to_contain_text("Not quite.")
    expect(page.locator("#verdict")).to_contain_text("Stop and use the answer")
    page.get_by_role("link", name="See your score").click()
    expect(page.locator(".lead")).to_contain_text("1 right out of 2 answered")
    assert_accessible(page, "sandbox-predict-summary")


def test_back_and_forward_after_keyboard_steps_keep_url_and_page_together(page, live_server):
    """Regression: site.js pushed history entries htmx ignored, so Back changed only the URL."""
    base = live_server.url + "/sandbox/refund-25-days/steps/"
    page.goto(base + "1/")
    page.locator("#stepper").focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator(".step-count")).to_have_text("Step 2 of 4")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".step-count")).to_have_text("Step 3 of 4")
    expect(page).to_have_url(base + "3/")
    page.go_back()
    expect(page).to_have_url(base + "2/")
    expect(page.locator(".step-count")).to_have_text("Step 2 of 4")
    page.go_back()
    expect(page).to_have_url(base + "1/")
    expect(page.locator(".step-count")).to_have_text("Step 1 of 4")
    page.go_forward()
    expect(page).to_have_url(base + "2/")
    expect(page.locator(".step-count")).to_have_text("Step 2 of 4")
    # a link click (htmx's own push) mixed in, then Back, still agrees
    page.get_by_role("link", name="Forward →").click()
    expect(page.locator(".step-count")).to_have_text("Step 3 of 4")
    page.go_back()
    expect(page).to_have_url(base + "2/")
    expect(page.locator(".step-count")).to_have_text("Step 2 of 4")


def test_real_api_shapes_upload_accessible_and_phone_wide(browser, live_server, axe):
    """A cut SSE stream and an API error body upload; their pages pass axe and fit 375 px."""
    from pathlib import Path

    shapes = Path(__file__).resolve().parent.parent / "fixtures" / "shapes"
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    page = context.new_page()
    problems = []
    uploads = [
        (shapes / "stream_cut_tool_use.sse").read_text(),
        '{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}, '
        '"request_id": "req_011CSHoEeqs5C35K2UUqR7FyVeryLongIdentifierThatMustWrapOnAPhone"}',
    ]
    for text in uploads:
        page.goto(live_server.url + "/sandbox/upload/")
        page.get_by_label("Or paste it here").fill(text)
        page.get_by_role("button", name="Upload").click()
        page.wait_for_load_state()
        expect(page.locator(".step-count")).to_have_text("Step 1 of 1")
        base = page.url.rsplit("/steps/", 1)[0]
        for path in ("/steps/1/", "/overview/", "/conversation/"):
            page.goto(base + path)
            results = axe.run(page)
            if results.violations_count:
                problems.append(f"{path}: {[v['id'] for v in results.response['violations']]}")
            width = page.evaluate("document.documentElement.scrollWidth")
            if width > 380:
                problems.append(f"{path}: {width}px wide")
    context.close()
    assert not problems, problems


def test_overview_step_conversation_compare_and_share(browser, live_server, axe):
    from pathlib import Path

    text = (
        Path(__file__).resolve().parents[2] / "content/transcripts/parallel-lookups.json"
    ).read_text()
    owner = browser.new_context()
    page = owner.new_page()
    problems = []

    def check(name):
        results = axe.run(page)
        if results.violations_count:
            problems.append(f"{name}: {[v['id'] for v in results.response['violations']]}")

    page.goto(live_server.url + "/sandbox/parallel-lookups/overview/")
    check("overview")
    page.get_by_role("link", name="Step 2", exact=True).click()
    expect(page.locator(".step-count")).to_have_text("Step 2 of 2")
    page.get_by_role("link", name="Conversation").first.click()
    expect(page.locator(".conv-assistant")).to_have_count(2)
    check("conversation")
    page.get_by_role("link", name="Compare with another run").click()
    page.get_by_label("Second run").select_option("refund-25-days")
    page.get_by_role("button", name="Compare").click()
    expect(page.locator(".message.info")).to_contain_text("They diverge at step 1")
    check("compare")

    page.goto(live_server.url + "/sandbox/upload/")
    page.get_by_label("Or paste it here").fill(text)
    page.get_by_role("button", name="Upload and open").click()
    page.get_by_role("button", name="Publish a read-only link").click()
    link = page.locator("#share-link").input_value()
    check("owner step with link")

    stranger = browser.new_context()
    other = stranger.new_page()
    other.goto(link)
    expect(other.locator(".timeline-row")).to_have_count(2)
    other.get_by_role("link", name="Step 1", exact=True).click()
    expect(other.locator(".step-count")).to_have_text("Step 1 of 2")
    expect(other.get_by_role("button", name="Publish a read-only link")).to_have_count(0)

    page.get_by_role("button", name="Revoke the link").click()
    assert other.goto(link).status == 404

    page.goto(live_server.url + "/sandbox/refusal/predict/1/")
    expect(page.locator("h1")).to_have_text("Predict mode")
    owner.close()
    stranger.close()
    assert not problems, problems
