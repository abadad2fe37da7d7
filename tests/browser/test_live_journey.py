"""A learner drives a live loop in Chromium against the scripted fake of the Messages API."""

import pytest
from playwright.sync_api import expect

from tests.fakes import reply, text, tool_use

pytestmark = pytest.mark.django_db(transaction=True)


def test_learner_steps_forks_and_saves_a_live_run(page, live_server, api, assert_accessible):
    call = tool_use("lookup_order", {"order_id": "20931"})
    api.script += [
        reply(text("Let me look that order up."), call),
        reply(text("Your order arrived 25 days ago, so it is still refundable.")),
        reply(text("Forked answer without tools.")),
    ]
    page.goto(live_server.url + "/sandbox/live/")
    assert_accessible(page, "live-start")
    page.get_by_label("Manual: I write each tool result").check()
    page.get_by_role("button", name="Create the run").click()
    expect(page.get_by_role("button", name="Step: one API call")).to_be_visible()
    assert_accessible(page, "live-run")

    page.get_by_role("button", name="Step: one API call").click()  # streamed, then reloaded
    expect(page.get_by_role("heading", name="Your turn: write the tool results")).to_be_visible()
    box = page.get_by_label("Result content", exact=False)
    box.fill("Order 20931 delivered 25 days ago.")
    page.get_by_role("button", name="Send the results in one message and call again").click()
    expect(page.locator(".live-controls")).to_contain_text("The run has ended")
    assert (
        api.requests[1]["messages"][-1]["content"][0]["content"]
        == "Order 20931 delivered 25 days ago."
    )
    assert_accessible(page, "live-ended")

    page.get_by_label("Keep the first N steps").fill("0")
    page.get_by_label("New tool_choice").select_option("none")
    page.get_by_role("button", name="Fork from this step").click()
    expect(page.locator(".messages")).to_contain_text("Forked at step 0")
    page.get_by_role("button", name="Step: one API call").click()
    expect(page.locator(".live-controls")).to_contain_text("The run has ended")
    assert api.requests[2]["tool_choice"] == {"type": "none"}

    page.get_by_role("button", name="Save to my runs").click()
    expect(page.locator(".step-count")).to_have_text("Step 1 of 1")
