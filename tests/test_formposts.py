"""The test client posts a form's fields url-encoded, as a browser posts this site's forms, and
multipart only where the site's form asks for it (tests/formposts.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import RequestFactory
from django.test.client import MULTIPART_CONTENT, encode_multipart
from django.urls import resolve, reverse

from tests.formposts import MULTIPART_FORMS, URLENCODED

ROOT = Path(__file__).resolve().parent.parent
FIELDS = {
    "text": 'two\nlines & a "quote" <b> ünï 字',
    "n": 3,
    "x": 0.5,
    "on": True,
    "pick": ["a", "b", ""],
    "empty": [],
}


def _templates() -> list[Path]:
    apps = ("authoring", "core", "progress", "quizzes", "studyapp")
    return [p for app in apps for p in (ROOT / app).rglob("*.html")]


def test_the_multipart_forms_are_the_ones_the_templates_declare(author):
    declared = [p for p in _templates() if "multipart/form-data" in p.read_text()]
    assert sorted(p.name for p in declared) == ["io_import.html", "upload.html"]
    for name in MULTIPART_FORMS:  # each page's one multipart form posts to that page
        url = reverse(name)
        forms = re.findall(r"<form\b[^>]*>", author.get(url).content.decode())
        multipart = [f for f in forms if 'enctype="multipart/form-data"' in f]
        assert len(multipart) == 1, name
        action = re.search(r'action="([^"]*)"', multipart[0])
        assert resolve(action[1] if action else url).view_name == name


def test_fields_are_url_encoded_and_read_as_the_multipart_body_reads():
    factory = RequestFactory()
    ours = factory.post("/practice/1/1/", FIELDS)
    assert ours.content_type == URLENCODED
    body = encode_multipart("BoUnDaRy", FIELDS)
    django = factory.generic(
        "POST", "/practice/1/1/", body, "multipart/form-data; boundary=BoUnDaRy"
    )
    assert list(ours.POST.lists()) == list(django.POST.lists()) != []
    assert factory.post("/pl/practice/1/1/?x=1", {"a": "1"}).content_type == URLENCODED
    empty = factory.post("/practice/1/1/")  # no fields: no body (Django's was a boundary)
    assert empty.body == b"" and empty.POST.dict() == {}


@pytest.mark.parametrize(
    ("path", "data"),
    [
        ("/sandbox/upload/", {"title": "t", "text": "{}"}),  # the forms that ask for multipart
        ("/pl/sandbox/upload/", {"title": "t"}),
        ("/zh-hans/author/import/?x=1", {"text": "x"}),
        ("/practice/1/1/", {"file": SimpleUploadedFile("a.txt", b"a")}),  # a file
        ("/practice/1/1/", {"pick": [SimpleUploadedFile("a.txt", b"a")]}),
        ("/practice/1/1/", {"when": object()}),  # not a form field's value
        ("/practice/1/1/", {1: "x"}),
    ],
)
def test_what_a_browser_would_not_url_encode_is_sent_as_djangos_client_sends_it(path, data):
    assert RequestFactory().post(path, data).content_type == "multipart/form-data"


def test_a_named_content_type_and_a_missing_value_are_djangos():
    factory = RequestFactory()
    posted = factory.post("/practice/1/1/", {"a": "1"}, content_type="application/json")
    assert posted.content_type == "application/json"
    assert factory.post("/x/", {"a": 1}, content_type=MULTIPART_CONTENT).content_type == (
        URLENCODED
    )
    with pytest.raises(TypeError, match="Cannot encode None"):
        factory.post("/practice/1/1/", {"a": None})
