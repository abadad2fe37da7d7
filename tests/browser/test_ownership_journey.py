"""An anonymous learner uploads a run, starts a live run and reports a problem, then signs up:
all three are still theirs, at the same addresses."""

import json

import pytest
from playwright.sync_api import expect

from authoring.models import ProblemReport
from tests.factories import make_question
from tests.fakes import reply, text
from tests.transcripts import MESSAGE

pytestmark = pytest.mark.django_db(transaction=True)


def test_work_made_before_sign_up_stays_the_learners(page, live_server, api):
    api.script += [reply(text("Your order is refundable."))]
    make_question("truefalse", slug="tf-owned")

    page.goto(live_server.url + "/sandbox/upload/")
    page.get_by_label("Or paste it here").fill(json.dumps(MESSAGE))
    page.get_by_role("button", name="Upload and open").click()
    expect(page.locator(".step-count")).to_be_visible()
    upload_url = page.url

    page.goto(live_server.url + "/sandbox/live/")
    # Anonymous visitors run live mode on their own key (the server's is for accounts only).
    page.get_by_label("Your own API key (optional)").fill("sk-ant-api03-" + "k" * 60)
    page.get_by_role("button", name="Create the run").click()
    page.get_by_role("button", name="Step: one API call").click()
    expect(page.locator(".live-controls")).to_contain_text("The run has ended")
    live_url = page.url

    page.goto(live_server.url + "/practice/")
    page.get_by_role("button", name="Start practising").click()
    page.get_by_text("Report a problem with this question").click()
    page.get_by_label("What is wrong with this question?").fill("Both options look right.")
    page.get_by_role("button", name="Send the report").click()
    expect(page.locator(".report-problem")).to_contain_text("Thank you")

    page.goto(live_server.url + "/accounts/signup/")
    page.fill("#id_username", "newcomer")
    page.fill("#id_password1", "pw-newcomer-123")
    page.fill("#id_password2", "pw-newcomer-123")
    page.get_by_role("button", name="Create my account").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()

    page.goto(upload_url)
    expect(page.locator(".step-count")).to_be_visible()
    page.goto(live_url)
    expect(page.locator(".live-controls")).to_contain_text("The run has ended")
    page.goto(live_server.url + "/sandbox/")
    expect(page.locator(".upload-list")).to_contain_text("Uploaded response")
    assert ProblemReport.objects.get().user.username == "newcomer"
