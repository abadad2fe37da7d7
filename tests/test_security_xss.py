"""XSS: a table of hostile inputs pushed through every field that takes user or instructor text
and through uploads; the HTML that comes back must contain nothing that could run.

tests/browser/test_xss.py loads the same pages in Chromium and listens for anything executing.
"""

from __future__ import annotations

import copy
import json
import random
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlencode

import pytest
from django.contrib.messages.storage.cookie import CookieStorage
from django.test import Client

from authoring.context_processors import MY_REPORTS
from authoring.models import ProblemReport
from quizzes import services
from quizzes.models import Attempt, Question, Response
from studyapp.sandbox.models import UploadedRun
from tests import html_tags
from tests.access import MATRIX, PRESENT, client_as
from tests.factories import make_question
from tests.html_tags import read_tags, start_tags

pytestmark = pytest.mark.django_db

# Every payload, if it ran, would set window.__xss or open a dialog (the browser test watches
# both); "xss-evil" marks URLs and htmx targets an injection would point at.
PAYLOADS = [
    "<script>window.__xss=1</script>",
    "<SCRIPT SRC=/xss-evil.js></SCRIPT>",
    "<script>alert(1)</script>",
    "<img src=x onerror=window.__xss=1>",
    '<img src="x" onerror="alert(1)">',
    "<IMG SRC=javascript:alert(1)>",
    "<svg onload=window.__xss=1>",
    "<svg><script>window.__xss=1</script></svg>",
    "<svg><animate onbegin=window.__xss=1 attributeName=x dur=1s>",
    "<body onload=window.__xss=1>",
    "<iframe src=javascript:window.__xss=1></iframe>",
    '<iframe srcdoc="<script>parent.__xss=1</script>"></iframe>',
    "<object data=javascript:window.__xss=1></object>",
    "<embed src=javascript:window.__xss=1>",
    "<details open ontoggle=window.__xss=1>",
    "<input autofocus onfocus=window.__xss=1>",
    "<select autofocus onfocus=window.__xss=1></select>",
    "<textarea autofocus onfocus=window.__xss=1></textarea>",
    "<video><source onerror=window.__xss=1></video>",
    "<audio src=x onerror=window.__xss=1>",
    "<marquee onstart=window.__xss=1>x</marquee>",
    "<div onmouseover=window.__xss=1 style=position:fixed;inset:0>x</div>",
    '"><script>window.__xss=1</script>',
    "'><script>window.__xss=1</script>",
    '" onmouseover="window.__xss=1" x="',
    "' onfocus='window.__xss=1' autofocus='",
    '" autofocus onfocus="window.__xss=1',
    "</textarea><script>window.__xss=1</script>",
    "</title><script>window.__xss=1</script>",
    "</script><script>window.__xss=1</script>",
    "</pre><img src=x onerror=window.__xss=1>",
    "</code></pre><svg onload=window.__xss=1>",
    "<!--<img src=--><img src=x onerror=window.__xss=1//>",
    "<![CDATA[<script>window.__xss=1</script>]]>",
    "javascript:window.__xss=1",
    "JaVaScRiPt:alert(1)",
    "[click](javascript:window.__xss=1)",
    "[click](JAVASCRIPT:alert(1))",
    "![img](javascript:window.__xss=1)",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    '<a href="javascript:window.__xss=1">click</a>',
    '<a href="&#106;avascript:window.__xss=1">entity</a>',
    '<a href="jav&#x09;ascript:window.__xss=1">tab</a>',
    '<form action="javascript:window.__xss=1"><button>go</button></form>',
    '<button formaction="javascript:window.__xss=1">go</button>',
    '<math><mtext><table><mglyph><style><img src=x onerror="window.__xss=1">',
    '<noscript><p title="</noscript><img src=x onerror=window.__xss=1>">',
    "<style>body{background:url(javascript:window.__xss=1)}</style>",
    '<link rel="stylesheet" href="/xss-evil.css">',
    '<meta http-equiv="refresh" content="0;url=javascript:window.__xss=1">',
    '<base href="/xss-evil/">',
    '<div hx-get="/xss-evil/" hx-trigger="load">htmx</div>',
    '<button hx-post="/xss-evil/" hx-trigger="load">htmx post</button>',
    '<div hx-on:htmx:load="window.__xss=1">hx-on</div>',
    '<div data-hx-get="/xss-evil/" data-hx-trigger="load">data-hx</div>',
    "<div hx-vals='js:{a: window.__xss=1}' hx-get='/xss-evil/' hx-trigger='load'>v</div>",
    "{{ request.user.password }}{% debug %}",
    "${window.__xss=1}",
    "';window.__xss=1;//",
    '";window.__xss=1;//',
    "\\u003cscript\\u003ewindow.__xss=1\\u003c/script\\u003e",
    "%3Cscript%3Ewindow.__xss=1%3C/script%3E",
    "&lt;script&gt;window.__xss=1&lt;/script&gt;",
    "<scr<script>ipt>window.__xss=1</scr</script>ipt>",
    "<<script>script>window.__xss=1<</script>/script>",
    "\u2028<script>window.__xss=1</script>\u2029",
    "<img src=x onerror=&#119;indow.__xss=1>",
    "<svg><a xlink:href=javascript:window.__xss=1><text y=20>x</text></a></svg>",
    "<isindex type=image src=1 onerror=window.__xss=1>",
    '<table background="javascript:window.__xss=1">',
]

URL_ATTRS = {"href", "src", "action", "formaction", "xlink:href", "data", "background", "poster"}
BAD_SCHEMES = ("javascript:", "vbscript:", "data:text/html")
BAD_TAGS = {"iframe", "object", "embed", "base", "frame", "frameset", "applet", "isindex", "style"}
CONTROL = re.compile(r"[\s\x00-\x1f]")


def problems(tags) -> list[str]:
    """Everything among the start tags of a page that could run code or load something of an
    attacker's."""
    found = []
    for tag, attrs, _ in tags:
        for name, value in attrs:
            value = value or ""
            if name.startswith("on"):
                found.append(f"<{tag} {name}=…>: an event handler")
            if name in URL_ATTRS and CONTROL.sub("", value).lower().startswith(BAD_SCHEMES):
                found.append(f"<{tag} {name}={value[:40]!r}>: a script URL")
            if (name.startswith(("hx-", "data-hx-")) or name in URL_ATTRS) and (
                "xss-evil" in value or "__xss" in value
            ):
                found.append(f"<{tag} {name}={value[:40]!r}>: an injected target")
            if name == "srcdoc":
                found.append(f"<{tag} srcdoc>")
        if tag in BAD_TAGS:
            found.append(f"<{tag}>")
        if tag in ("meta", "script", "link"):
            a = dict(attrs)
            if tag == "meta" and a.get("http-equiv"):
                found.append("<meta http-equiv>")
            if tag == "script" and not (a.get("src") or "").startswith("/static/"):
                found.append("<script> that is not ours")
            if tag == "link" and "xss-evil" in (a.get("href") or ""):
                found.append("<link> to an injected stylesheet")
    return found


class ParsedTags(HTMLParser):
    """The same start tags read by html.parser itself, to show start_tags reads no fewer."""

    def __init__(self, html: str):
        super().__init__(convert_charrefs=True)
        self.tags: list = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs, ""))


#: a start tag's text -> what problems() finds in that tag alone (read_tags: the same text is
#: the same tag): a sweep's pages repeat most of their tags, each is judged once
_FOUND: dict[str, list[str]] = {}


def page_problems(html: str) -> list[str]:
    """problems(start_tags(html)), in the same order: it judges each tag on its own."""
    found: list[str] = []
    for text, tag, attrs, _ in read_tags(html):
        verdict = _FOUND.get(text)
        if verdict is None:
            if len(_FOUND) >= 50_000:
                _FOUND.clear()
            verdict = _FOUND[text] = problems([(tag, attrs, "")])
        found += verdict
    return found


def assert_inert(html: str, where: str) -> None:
    found = page_problems(html)
    assert not found, f"{where}: {found}"


def test_the_table_is_long_enough_and_the_detector_works():
    assert len(PAYLOADS) >= 60 and len(set(PAYLOADS)) == len(PAYLOADS)
    caught = 0
    for payload in PAYLOADS:  # pasted raw, most of them must be caught by the detector
        found = problems(start_tags(payload))
        # html.parser reading the same text finds nothing the fast reader misses
        assert set(problems(ParsedTags(payload).tags)) <= set(found), payload
        assert page_problems(payload) == found, payload  # the verdicts kept per tag: the same
        caught += bool(found)
    assert caught >= 45, caught


def test_the_fast_reader_reads_every_tag_of_a_page_as_html_parser_does(shared_world, client):
    client_as(client, shared_world, "instructor")
    for name in ("author:index", "author:question_edit", "sandbox:steps", "notes:detail"):
        html = client.get(MATRIX[name].url(name, shared_world)).content.decode()
        parsed = [(t, a) for t, a, _ in ParsedTags(html).tags]
        html_tags._READ.clear()  # every tag read afresh, then every tag as kept
        for _ in ("read", "kept"):
            ours = [(tag, attrs) for tag, attrs, _ in start_tags(html)]
            assert len(ours) > 100 and ours == parsed, name
        assert page_problems(html) == problems(start_tags(html)) == [], name
    pasted = "".join(PAYLOADS)  # what the fast reader reads in a page of payloads
    assert set(problems(ParsedTags(pasted).tags)) <= set(problems(start_tags(pasted)))


def post_form(client: Client, url: str, data: dict, *, multipart: bool = False, **extra):
    """``data`` posted as a browser sends a form: url-encoded, unless the form asks for
    multipart/form-data (the two with a file to upload)."""
    if multipart:
        return client.post(url, data, **extra)
    body = urlencode(data, doseq=True)
    return client.post(url, body, content_type="application/x-www-form-urlencoded", **extra)


# --- the fields ---------------------------------------------------------------------------


@pytest.mark.parametrize("payload", PAYLOADS)
def test_signup_username(client, payload):
    response = post_form(
        client,
        "/accounts/signup/",
        {"username": payload, "password1": "Ab12-long-pass!", "password2": "Ab12-long-pass!"},
    )
    assert response.status_code in (200, 302)
    assert_inert(response.content.decode(), "signup form")
    if response.status_code == 302:  # accepted: the name is shown in the header from now on
        assert_inert(client.get("/").content.decode(), "home after signup")


def test_practice_json_answer(learner):
    question = make_question("json", "x-json")
    Question.objects.exclude(pk=question.pk).update(status="draft")  # the module's world's
    client = Client()
    client.force_login(learner)
    owner = services.Owner(learner, "")
    attempt = services.practice_start(owner=owner, subtopics=[], which="all", count=1)
    unanswered = attempt.responses.select_related("question").get()
    assert unanswered.question == question  # the one published question, drawn
    refused_url = f"/practice/{attempt.pk}/1/"
    # (Response.answered is "answered_at is set")
    still_unanswered = Response.objects.filter(
        pk=unanswered.pk, answered_at=None, answer__isnull=True
    )
    for payload in PAYLOADS:
        # Not JSON: refused and echoed back (by htmx). Nothing is saved, so the next payload
        # meets the same unanswered question in the same attempt (checked each time).
        response = post_form(client, refused_url, {"text": payload}, headers={"HX-Request": "true"})
        assert response.status_code == 200
        assert_inert(response.content.decode(), f"practice JSON answer {payload!r}")
        assert still_unanswered.exists(), payload
        # JSON: saved, graded and shown again (a new attempt each time: the set practice_start
        # draws from a pool of that one question, written as it writes it)
        text = json.dumps({"type": payload, "name": payload})
        seed = random.randrange(2**53)
        fresh = services.attempt_start(
            owner=owner, mode=Attempt.Mode.PRACTICE, question_ids=[question.pk], seed=seed
        )
        url = f"/practice/{fresh.pk}/1/"
        response = post_form(client, url, {"text": text})
        assert response.status_code == 200
        assert_inert(response.content.decode(), f"practice JSON answer {text!r}")
        assert_inert(client.get(url).content.decode(), f"practice page after {text!r}")


TRANSCRIPT = json.loads(
    (
        Path(__file__).resolve().parent.parent / "content/transcripts/parallel-lookups.json"
    ).read_text()
)


def hostile_transcript(payloads: list[str]) -> dict:
    """A real recorded loop with the payloads in every text a transcript carries."""
    doc = copy.deepcopy(TRANSCRIPT)
    doc.update(title=payloads[0], summary="\n".join(payloads), tags=payloads, system=payloads[-1])
    doc["tools"][0]["description"] = " ".join(payloads)
    first = doc["turns"][0]
    first["note"] = "\n\n".join(payloads)
    content = first["response"]["content"]
    content[0]["text"] = "\n".join(payloads)
    content[1]["input"] = {p: p for p in payloads}
    # A tool name the loop never declared: flagged as a finding, with the name in its message.
    content[2]["name"] = payloads[0]
    for p in payloads:
        content.append({"type": "text", "text": p})
        content.append({"type": p[:60], "data": p})  # an unknown block type named by the payload
    first["tool_results"][0]["content"] = "\n".join(payloads)
    first["tool_results"][1]["content"] = [{"type": "text", "text": p} for p in payloads]
    doc["turns"][-1]["response"]["content"][0]["text"] = payloads[-1]
    return doc


def _upload_pages(run: UploadedRun) -> list[str]:
    turns = len(run.data["turns"])
    urls = [f"/sandbox/uploads/{run.pk}/steps/{n}/" for n in range(1, turns + 1)]
    urls += [f"/sandbox/uploads/{run.pk}/predict/1/", f"/sandbox/uploads/{run.pk}/predict/summary/"]
    return urls + ["/sandbox/"]


def test_an_upload_carrying_every_payload_in_every_text_renders_inert(client):
    text = json.dumps(hostile_transcript(PAYLOADS))
    response = client.post("/sandbox/upload/", {"title": "", "text": text})
    assert response.status_code == 302, response.content.decode()[-2000:]
    run = UploadedRun.objects.latest("pk")
    assert run.title == PAYLOADS[0]  # the transcript's own title: the run just uploaded
    for url in _upload_pages(run):
        for headers in ({}, {"HX-Request": "true"}):
            page = client.get(url, headers=headers)
            assert page.status_code == 200, url
            html = page.content.decode()
            assert_inert(html, f"{url} {headers}")
    step1 = client.get(f"/sandbox/uploads/{run.pk}/steps/1/").content.decode()
    assert "&lt;script&gt;window.__xss=1&lt;/script&gt;" in step1  # shown, as text


def test_upload_titles_and_tool_names_render_inert(client):
    stored_as = UploadedRun.objects.values_list("title", "source", "data")
    cookie = CookieStorage(None)  # reads and writes the messages cookie
    said = []  # every upload's "Uploaded <title>" message, shown on the list of uploads below
    for payload in PAYLOADS:
        text = json.dumps(hostile_transcript([payload]))
        shown = None  # the stored run whose step 1 was checked for this payload
        for title in ("", payload):  # the transcript's own title, then the form's
            response = client.post("/sandbox/upload/", {"title": title, "text": text})
            assert response.status_code == 302, payload
            # Set aside (the htmx step below shows none): left in the cookie, each upload would
            # read and write every earlier one again (140 of them by the end).
            said += cookie._decode(client.cookies.pop("messages").value)
            step1 = response["Location"]  # the run just stored, at its step 1
            stored = stored_as.get(pk=re.fullmatch(r"/sandbox/uploads/(\d+)/steps/1/", step1)[1])
            if stored == shown:  # the form's title stored as the transcript's was: the same page
                continue
            shown = stored
            page = client.get(step1, headers={"HX-Request": "true"})
            assert_inert(page.content.decode(), f"step 1 of an upload titled {payload!r}")
    client.cookies["messages"] = cookie._encode(said)
    assert_inert(client.get("/sandbox/").content.decode(), "the list of uploads")


def test_a_refused_upload_echoes_the_text_inert(client):
    for payload in PAYLOADS:
        response = client.post("/sandbox/upload/", {"title": payload, "text": payload})
        assert response.status_code == 400
        assert_inert(response.content.decode(), "refused upload")


def test_a_resolution_note_renders_inert_for_the_instructor_and_the_learner(shared_world):
    """The note an instructor writes when closing a report is shown twice: in the report's row
    (what the htmx resolve answers, and the resolved list) and on the reporter's own page. The
    form sweep below posts it but never opens either (its redirect lands on the open reports).
    Each payload is the whole note of a report of its own; the reporter's page lists their
    newest MY_REPORTS reports, so it (and the resolved list) is opened once per that many notes
    and must show every one of them, as text."""
    world = shared_world
    teacher = client_as(Client(), world, "instructor")
    reporter = client_as(Client(), world, "learner")
    question, learner = world.report.question, world.users["learner"]
    for start in range(0, len(PAYLOADS), MY_REPORTS):
        chunk = PAYLOADS[start : start + MY_REPORTS]
        reports = ProblemReport.objects.bulk_create(
            ProblemReport(question=question, user=learner, text="typo") for _ in chunk
        )
        for report, payload in zip(reports, chunk, strict=True):
            row = post_form(
                teacher,
                f"/author/reports/{report.pk}/resolve/",
                {"outcome": "resolved", "note": payload},
                headers={"HX-Request": "true"},
            )
            assert row.status_code == 200, payload
            assert_inert(row.content.decode(), f"the resolved report's row with {payload!r}")
        stored = ProblemReport.objects.filter(pk__in=[r.pk for r in reports])
        assert dict(stored.values_list("pk", "resolution_note")) == {
            r.pk: p.strip() for r, p in zip(reports, chunk, strict=True)
        }
        mine = reporter.get("/me/").content.decode()
        assert "Problems you reported" in mine
        assert_inert(mine, f"the reporter's page with the notes {chunk!r}")
        listed = teacher.get("/author/reports/?status=resolved").content.decode()
        assert_inert(listed, f"the resolved reports with the notes {chunk!r}")
        for payload in chunk:  # shown, as text
            assert _escaped(payload) in mine and _escaped(payload) in listed, payload


def _escaped(text: str) -> str:
    from django.utils.html import escape

    return str(escape(text.strip()))


# --- every other form, found on the pages themselves -------------------------------------


class Forms(HTMLParser):
    """The POST forms on a page, with their text fields and a default for the others."""

    def __init__(self):
        super().__init__()
        self.forms: list[dict] = []
        self._select = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and (a.get("method") or "").lower() == "post":
            multipart = (a.get("enctype") or "").lower() == "multipart/form-data"
            self.forms.append(
                {"action": a.get("action"), "text": [], "fixed": {}, "multipart": multipart}
            )
        if not self.forms:
            return
        form = self.forms[-1]
        name = a.get("name")
        if tag == "textarea" and name:
            form["text"].append(name)
        elif tag == "input" and name and name != "csrfmiddlewaretoken":
            kind = (a.get("type") or "text").lower()
            if kind in ("text", "search", "url", "email"):
                form["text"].append(name)
            elif kind in ("hidden", "number") or (
                kind in ("radio", "checkbox") and name not in form["fixed"]
            ):
                form["fixed"].setdefault(name, a.get("value", "1"))
        elif tag == "select" and name:
            self._select = name
        elif tag == "option" and self._select and a.get("value"):
            form["fixed"].setdefault(self._select, a["value"])

    def handle_endtag(self, tag):
        if tag == "select":
            self._select = None


PROBE = "xssprobe"


def _pages_not_showing(client: Client, action: str, form: dict) -> set[str]:
    """The page the form's redirect lands on, when it does not show a plain word posted in
    every text field (nothing the form posts reaches it); else nothing."""
    data = {**form["fixed"], **dict.fromkeys(form["text"], PROBE)}
    response = post_form(client, action, data, multipart=form["multipart"])
    if response.status_code not in (301, 302, 303):
        return set()
    target = response["Location"]
    landed = client.get(target, follow=True)
    return set() if PROBE in landed.content.decode() else {target}


@pytest.mark.parametrize("name", [n for n in PRESENT if MATRIX[n].get["instructor"] == 200])
def test_every_form_on_every_page_echoes_and_stores_text_inert(shared_world, name):
    """Covers the forms this file does not name, the authoring ones included, as they land.
    The world is built once for the module: what each test's posts store is rolled back.

    A post that redirects is followed and the page it lands on checked, payload after payload,
    unless that page shows nothing of what the form posts: before the payloads, the form is
    posted once with a plain word in every text field, and a page its redirect lands on that
    does not contain the word is opened again only after the last payload. (Comparing the pages
    two payloads land on is not enough: a sanitiser drops two scripts alike.)"""
    world = shared_world
    client = client_as(Client(), world, "instructor")
    url = MATRIX[name].url(name, world)
    page = client.get(url)
    if not page["Content-Type"].startswith("text/html"):
        return  # a download (the .apkg export) has no forms to fill
    html = page.content.decode()
    forms = Forms()
    forms.feed(html)
    posted = False
    for form in forms.forms:
        action = form["action"] or url
        if not form["text"] or "logout" in action:
            continue
        blind = _pages_not_showing(client, action, form)  # redirect targets, checked last
        for payload in PAYLOADS:
            data = {**form["fixed"], **dict.fromkeys(form["text"], payload)}
            response = post_form(client, action, data, multipart=form["multipart"])
            posted = True
            assert response.status_code < 500
            assert_inert(response.content.decode(), f"{action} with {payload!r}")
            if response.status_code in (307, 308):  # the same post again there, as follow=True
                response = post_form(
                    client, response["Location"], data, multipart=form["multipart"], follow=True
                )
                assert response.status_code < 500
                assert_inert(response.content.decode(), f"{action} (redirected) with {payload!r}")
            elif response.status_code in (301, 302, 303) and response["Location"] not in blind:
                target = response["Location"]
                followed = client.get(target, follow=True)
                assert followed.status_code < 500
                there = followed.content.decode()
                assert_inert(there, f"{target} after {action} with {payload!r}")
                response = followed
            # A login or sign-up form may have changed who is signed in.
            # (a log-in cycles the session the shared world made, so log in again for real)
            if response.wsgi_request.user != world.users["instructor"]:
                client.force_login(world.users["instructor"])
        for target in blind:  # and once more after the last post
            assert_inert(client.get(target).content.decode(), f"{target} after {action}")
    if posted:  # else the page as first opened is the page as it stands
        html = client.get(url).content.decode()
    assert_inert(html, f"{url} after the posts")


def test_the_sweep_skips_only_pages_that_do_not_show_what_was_posted(shared_world):
    """Resolving a report lands on the open reports: a page that shows nothing of the note
    (opened after the last payload), until an open report's text is the word posted."""
    world = shared_world
    client = client_as(Client(), world, "instructor")
    url = MATRIX["author:reports"].url("author:reports", world)

    def resolve_form():
        forms = Forms()
        forms.feed(client.get(url).content.decode())
        return next(f for f in forms.forms if "note" in f["text"])

    form = resolve_form()
    assert _pages_not_showing(client, form["action"], form) == {"/author/reports/"}
    ProblemReport.objects.create(question=world.report.question, text=PROBE)
    ProblemReport.objects.create(question=world.report.question, text="another")
    form = resolve_form()
    assert _pages_not_showing(client, form["action"], form) == set()  # shown: followed
