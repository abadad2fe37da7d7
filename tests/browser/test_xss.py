"""The XSS table in real Chromium: nothing may run — no dialog, no page error, no console error,
no window.__xss. The pages are loaded with CSP bypassed, so escaping alone must hold; CSP is
the second wall (tests/browser/test_keyboard_journeys.py checks pages run clean under it)."""

import json

import pytest
from django.test import Client

from quizzes import services
from studyapp.sandbox.models import UploadedRun
from tests.factories import make_question
from tests.test_security_xss import PAYLOADS, hostile_transcript

pytestmark = pytest.mark.django_db(transaction=True)

# Break out of attributes, text areas and titles: the ones that matter in a form's echo.
ECHOED = [p for p in PAYLOADS if p.startswith(('"', "'", "</", "<script", "<img", "<svg"))][:12]


@pytest.fixture
def watched(browser, live_server, learner):
    context = browser.new_context(bypass_csp=True)
    session = Client()
    session.force_login(learner)
    context.add_cookies(
        [{"name": "sessionid", "value": session.cookies["sessionid"].value, "url": live_server.url}]
    )
    page = context.new_page()
    events: list[str] = []
    page.on("dialog", lambda d: (events.append(f"dialog: {d.message}"), d.dismiss()))
    page.on("pageerror", lambda e: events.append(f"page error: {e}"))
    page.on("console", lambda m: m.type == "error" and events.append(f"console: {m.text}"))
    page.on("request", lambda r: "xss-evil" in r.url and events.append(f"request: {r.url}"))

    def clean(where: str):
        assert page.evaluate("() => window.__xss") is None, f"a payload ran on {where}"
        assert events == [], f"{where}: {events}"

    page.clean = clean
    yield page
    context.close()


def test_the_detector_catches_a_payload_that_runs(watched):
    watched.set_content("<img src=x onerror='window.__xss=1'>")
    watched.wait_for_function("() => window.__xss === 1")


def test_an_upload_with_every_payload_runs_nothing(watched, live_server):
    page = watched
    page.goto(live_server.url + "/sandbox/upload/")
    page.get_by_label("Title (optional)").fill(PAYLOADS[3])
    page.get_by_label("Or paste it here").fill(json.dumps(hostile_transcript(PAYLOADS)))
    page.get_by_role("button", name="Upload and open").click()
    page.wait_for_url("**/steps/1/")
    page.clean("step 1")
    run = UploadedRun.objects.get()
    page.locator("#stepper").focus()
    for n in range(2, len(run.data["turns"]) + 1):  # htmx swaps each step in: it must stay inert
        page.keyboard.press("ArrowRight")
        page.locator(".step-count").filter(has_text=f"Step {n} ").wait_for()
        page.clean(f"step {n} (htmx)")
    for path in ("predict/1/", "predict/summary/"):
        page.goto(f"{live_server.url}/sandbox/uploads/{run.pk}/{path}")
        page.clean(path)


def test_upload_titles_run_nothing_in_the_list(watched, live_server, learner):
    doc = hostile_transcript(["plain"])
    data = UploadedRun.objects.create(
        user=learner, title="x", source="transcript", data=doc, size=1
    )
    UploadedRun.objects.bulk_create(
        UploadedRun(user=learner, title=p[:200], source="transcript", data=data.data, size=1)
        for p in PAYLOADS
    )
    watched.goto(live_server.url + "/sandbox/")
    assert watched.get_by_text(PAYLOADS[0], exact=True).count() >= 1  # shown, as text
    watched.clean("the sandbox index")


def test_signup_usernames_echo_as_text(watched, live_server):
    for payload in ECHOED[:6]:
        watched.goto(live_server.url + "/accounts/signup/")
        watched.get_by_label("Username").fill(payload)
        watched.get_by_label("Password", exact=True).fill("Ab12-long-pass!")
        watched.get_by_label("Password confirmation").fill("Ab12-long-pass!")
        watched.locator("main form button[type=submit]").click()
        watched.wait_for_load_state()
        assert watched.get_by_label("Username").input_value() == payload
        watched.clean(f"sign-up with {payload!r}")


def test_practice_json_answers_echo_as_text(watched, live_server, learner):
    make_question("json", "x-json")
    attempt = services.practice_start(
        owner=services.Owner(learner, ""), subtopics=[], which="all", count=1
    )
    watched.goto(f"{live_server.url}/practice/{attempt.pk}/1/")
    for payload in ECHOED:
        watched.locator("#json-text").fill(payload)
        before = watched.locator("#answer-area").element_handle()
        watched.get_by_role("button", name="Check my answer").click()
        # htmx swaps a new #answer-area in after the response: wait for that swap itself (the old
        # area, still on the page until then, would otherwise be read, and a late swap of one
        # answer's echo would land on the next answer's text)
        watched.wait_for_function("area => !area.isConnected", arg=before)
        watched.locator("#answer-area [role=alert]").wait_for()
        assert watched.locator("#json-text").input_value() == payload
        watched.clean(f"practice JSON answer {payload!r}")
