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


def test_the_start_and_fork_forms_refuse_what_the_model_rejects(
    page, live_server, api, assert_accessible
):
    page.goto(live_server.url + "/sandbox/live/")
    # The start form greys out what the chosen model rejects, and says why (site.js) ...
    page.get_by_label("Model", exact=True).select_option("claude-sonnet-5-5")
    assert page.locator('select[name="tool_choice"] option[value="any"]').is_disabled()
    expect(page.locator("#model-limits")).to_contain_text(
        "claude-sonnet-5-5 rejects forced tool_choice"
    )
    # ... and the server refuses it anyway when it is sent (no script, or a crafted post).
    page.evaluate(
        """() => {
            const o = document.querySelector('select[name="tool_choice"] option[value="any"]');
            o.disabled = false;
            o.selected = true;
        }"""
    )
    page.get_by_role("button", name="Create the run").click()
    expect(page.get_by_role("alert")).to_contain_text(
        "claude-sonnet-5-5 rejects forced tool_choice"
    )
    assert api.requests == []

    page.get_by_label("Model", exact=True).select_option("claude-haiku-5-5")
    page.get_by_label("tool_choice", exact=True).select_option("any")
    page.get_by_role("button", name="Create the run").click()
    expect(page.get_by_role("button", name="Step: one API call")).to_be_visible()
    api.script += [reply(call := tool_use("lookup_order", {"order_id": "20931"}))]
    page.get_by_role("button", name="Run to the end").click()
    expect(page.locator(".live-controls")).to_be_visible()
    assert api.requests[0]["tool_choice"] == {"type": "any"} and api.rejected == []
    assert call["id"]

    # A run on Sonnet 5.5: the fork form greys out forced tool_choice and says why.
    page.goto(live_server.url + "/sandbox/live/")
    page.get_by_label("Model", exact=True).select_option("claude-sonnet-5-5")
    page.get_by_role("button", name="Create the run").click()
    expect(page.get_by_role("button", name="Step: one API call")).to_be_visible()
    assert page.locator('select[name="tool_choice"] option[value="any"]').is_disabled()
    expect(page.locator(".greyed")).to_contain_text("claude-sonnet-5-5 rejects forced tool_choice")
    assert_accessible(page, "live-fork-greyed")
