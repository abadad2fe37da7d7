"""Hostile Markdown from an author goes through the editor, the preview and practice inert.

Every input lands in a stem, an explanation, an option and a why. The check walks the DOM of
each page: no script but our own static files, no event handler, no style, no frame or plugin,
no javascript:/data:/vbscript: URL, no form that posts elsewhere.
"""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.utils.html import escape

from authoring import services
from quizzes.models import Attempt, Question
from tests.editor import FORM_ENCODED, form_data, post_form
from tests.factories import make_question
from tests.html_tags import start_tags

pytestmark = pytest.mark.django_db

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(1)>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](  javascript:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[x](vbscript:msgbox(1))",
    "![img](javascript:alert(1))",
    '![img](x" onerror="alert(1))',
    '<a href="javascript:alert(1)">x</a>',
    '<iframe src="https://evil.example"></iframe>',
    '<object data="x.swf"></object><embed src="x.swf">',
    "<style>body{display:none}</style>",
    '<div style="background:url(javascript:alert(1))">x</div>',
    '<form action="https://evil.example"><button>Go</button></form>',
    '<meta http-equiv="refresh" content="0;url=https://evil.example">',
    '<base href="https://evil.example/">',
    "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
    "<details open ontoggle=alert(1)>",
    "<<script>script>alert(1)<</script>/script>",
    "[x](java&#115;cript:alert(1))",
    "[x](java%0ascript:alert(1))",
    '<a href="&#106;avascript:alert(1)">x</a>',
    '"><script>alert(1)</script>',
    "'><img src=x onerror=alert(1)>",
    "<!--<script>alert(1)</script>-->",
    "</textarea><script>alert(1)</script>",
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    '[x](https://ok.example "t\\" onmouseover=\\"alert(1)")',
    '<a href="https://ok.example" onclick="alert(1)">x</a>',
    "```html\n<script>alert(1)</script>\n```",
    "{{ request.user }} {% debug %}",
]

BAD_SCHEME = re.compile(r"^(javascript|data|vbscript):", re.I)
CONTROL_CHARACTERS = re.compile(r"[\x00-\x20]")  # a browser drops tabs and newlines in a URL
LOCAL_ACTION = re.compile(r"^(|/[^/].*|\?.*)$")
LINKED = frozenset(("href", "src", "action", "formaction", "xlink:href", "data"))
FORBIDDEN_TAGS = {
    "iframe", "object", "embed", "svg", "math", "base", "frame", "frameset", "applet",
    "style", "noscript", "template",
}  # fmt: skip


def problems(html: str) -> list[str]:
    """Every way a page could run something it did not ship itself."""
    found = []
    for tag, attrs, raw in start_tags(html):
        a = dict(attrs)
        if tag in FORBIDDEN_TAGS:
            found.append(f"<{tag}>")
        if tag == "script":
            if not (a.get("src") or "").startswith("/static/"):
                found.append(f"script {a}")
            if raw.strip():
                found.append(f"inline script: {raw[:40]}")
        if tag == "img" and not (a.get("src") or "").startswith("/static/"):
            found.append(f"img {a}")
        if tag == "meta" and "http-equiv" in a:
            found.append("meta http-equiv")
        if tag == "form" and not LOCAL_ACTION.match(a.get("action") or ""):
            found.append(f"form posting to {a.get('action')}")
        for name, value in attrs:
            if name.startswith("on") or name == "style":
                found.append(f"{tag} {name}={value}")
            if name in LINKED and BAD_SCHEME.match(CONTROL_CHARACTERS.sub("", value or "")):
                found.append(f"{tag} {name}={value}")
    return found


def assert_inert(html: str):
    found = problems(html)
    assert not found, found


CAUGHT = [
    '<img src="x">',
    '<a href=" java\tscript:x">',
    "<svg>",
    '<p style="x">',
    '<form action="https://evil.example">',
    '<meta http-equiv="refresh">',
]


def test_the_check_catches_each_kind_of_hostile_markup_and_passes_ours():
    assert problems('<script src="/static/x.js"></script><p>x</p>') == []
    assert problems("<script>alert(1)</script>") == ["script {}", "inline script: alert(1)"]
    for html in CAUGHT:
        assert problems(html), html


@pytest.fixture(scope="module")
def source(django_db_setup, django_db_blocker) -> dict:
    """The parsed form of a single-choice question, as the editor starts from it; every test
    here fills its fields with hostile text (read once for the module, never changed)."""
    with django_db_blocker.unblock():
        question = make_question("single", slug="model")
        parsed = services.question_parsed(question)
        Question.objects.filter(slug="model").delete()
    return parsed


def hostile_form(source: dict, text: str, slug: str) -> dict:
    return form_data(
        {**source, "slug": slug},
        stem=text,
        explanation=text,
        **{"opt-1-text": text + " (B)", "opt-1-why": text, "opt-0-why": text},
    )


def test_the_form_posted_as_a_browser_posts_it_reads_as_the_test_clients_multipart(rf, source):
    """tests.editor.post_form's body gives the view what the test client's default gives."""
    data = hostile_form(source, "\r\n".join(HOSTILE) + "\n\r\x00 ±", "hostile")
    for sent in (data, {**data, "save": "", "list": ["a", "b & c"]}):
        multipart = rf.post("/", sent).POST
        urlencoded = rf.post("/", urlencode(sent, doseq=True), content_type=FORM_ENCODED).POST
        assert list(urlencoded.lists()) == list(multipart.lists())


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_markdown_stays_inert_in_the_editor_and_preview(author, source, text):
    data = hostile_form(source, text, "hostile")
    preview = post_form(
        author, "/author/questions/preview/", {**data, "save": ""}, headers={"HX-Request": "true"}
    )
    assert preview.status_code == 200 and '<article class="question"' in preview.content.decode()
    assert_inert(preview.content.decode())
    saved = post_form(author, "/author/questions/new/?kind=single", data)
    assert saved.status_code == 302, saved.content.decode()[:2000]
    page = author.get(saved["Location"]).content.decode()
    assert_inert(page)
    # What the author typed comes back in the form as text, escaped, never as markup.
    assert escape(text) + "</textarea>" in page
    question = Question.objects.current().get(slug="hostile")
    assert_inert(question.stem_html + question.explanation_html)


def test_a_template_tag_in_markdown_is_shown_as_typed(author):
    source = services.question_parsed(make_question("single", slug="model"))
    author.post("/author/questions/new/?kind=single", hostile_form(source, HOSTILE[-1], "tpl"))
    assert Question.objects.get(slug="tpl").stem_html == "<p>{{ request.user }} {% debug %}</p>"


def test_every_hostile_input_at_once_is_inert_in_practice_and_its_feedback(client, author):
    source = services.question_parsed(make_question("single", slug="model"))
    everything = "\n\n".join(HOSTILE)
    assert (
        author.post(
            "/author/questions/new/?kind=single", hostile_form(source, everything, "all")
        ).status_code
        == 302
    )
    Question.objects.filter(slug="model").update(status="draft")
    client.logout()
    client.post("/practice/", {"which": "all", "count": 10})
    attempt = Attempt.objects.latest("pk")
    page = client.get(f"/practice/{attempt.pk}/1/").content.decode()
    assert "(B)" in page
    assert_inert(page)
    right = Question.objects.get(slug="all").options.get(correct=True)
    answered = client.post(f"/practice/{attempt.pk}/1/", {"choice": right.key}).content.decode()
    assert "Right." in answered
    assert_inert(answered)


def test_a_null_character_is_named_not_a_crash(author):
    source = services.question_parsed(make_question("single", slug="model"))
    response = author.post(
        "/author/questions/new/?kind=single", hostile_form(source, "a\x00b", "nul")
    )
    assert response.status_code == 422
    assert "Null characters are not allowed." in response.content.decode()
