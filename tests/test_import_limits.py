"""Imports stay linear in their input, fit our own full export, and refuse the absurd in words."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from bench import imports as bench
from quizzes import importing, schema
from quizzes.formats import MAX_ANSWERS, Defaults, detect, gift, moodlexml
from quizzes.models import Question
from tests.factories import make_bank

DEFAULTS = Defaults("stop-reasons", "stop-reasons#end-turn", "https://example.com")


# --- format detection: one pass --------------------------------------------------------------


def test_detection_of_many_blank_lines_is_one_pass():
    # The old pattern (#.*\n|\s*\n)*questions backtracked exponentially: 26 lines took 8 s.
    assert detect("\n" * 5000 + "not a bank") == "gift"
    assert detect("\n" * 5000 + "questions:\n  - slug: a\n") == "yaml"
    assert detect("# a comment\n\n   \nquestions :\n") == "yaml"
    assert detect("  questions:\n") == "gift"  # indented: not the top-level key


# --- linear parts, counted -------------------------------------------------------------------


class CountingSet(set):
    lookups = 0

    def __contains__(self, item):
        CountingSet.lookups += 1
        return super().__contains__(item)


def test_same_named_questions_get_slugs_in_linear_work():
    used, next_n = CountingSet(), {}
    slugs = [importing._unique("same-name", used, next_n) for _ in range(2000)]
    assert slugs[:3] == ["same-name", "same-name-2", "same-name-3"]
    assert len(set(slugs)) == 2000
    assert CountingSet.lookups <= 2 * 2000  # the old search tried every earlier suffix: n²/2


def test_a_free_slug_is_still_found_after_a_taken_suffix():
    used, next_n = {"a-3"}, {}
    assert [importing._unique("a", used, next_n) for _ in range(3)] == ["a", "a-2", "a-4"]


@pytest.mark.django_db
def test_imported_questions_are_checked_without_a_yaml_round_trip(monkeypatch):
    calls = []
    real = schema.parse_text
    monkeypatch.setattr(schema, "parse_text", lambda *a, **k: calls.append(1) or real(*a, **k))
    preview = importing.import_preview(bench.gift_small(50), "gift", DEFAULTS)
    assert len(preview.rows) + len(preview.errors) >= 50
    assert calls == []  # one YAML dump and parse per question was 97 % of an import's time


@pytest.mark.parametrize(
    ("reader", "text"),
    [
        (gift.parse, bench.gift_many_options(10_000)),
        (gift.parse, bench.gift_tildes(100_000)),
        (moodlexml.parse, bench.xml_many_options(10_000)),
    ],
)
def test_a_question_with_thousands_of_answers_is_refused_before_it_is_read(reader, text):
    parsed = reader(text)
    assert parsed.questions == []
    assert len(parsed.errors) == 1
    assert f"an import takes at most {MAX_ANSWERS}" in parsed.errors[0].message


def test_a_yaml_question_with_thousands_of_options_gets_one_message():
    # 2,000 options (far over the 4 x 5 past which the options are not checked one by one):
    # one message per option would be 2,000 of them; the YAML reading scales in bench/imports.py.
    result = schema.parse_text(bench.yaml_many_options(2_000))
    messages = [p.message for p in result.problems]
    assert "options must have 3 to 5 entries (has 2001)" in messages
    assert len(messages) < 5  # not one message per option


# --- the cap fits our own full export ----------------------------------------------------------


@pytest.mark.template_context  # reads response.context
@pytest.mark.django_db
def test_the_whole_bank_exported_as_xml_imports_back(author):
    make_bank(40)
    long = "A long explanation that makes the bank the size of a real one. " * 2000
    Question.objects.update(explanation=long)
    text, _ = importing.export_questions("moodlexml", importing.exportable())
    size = len(text.encode())
    assert 2_000_000 < size < importing.MAX_BYTES  # over the old 2 MB cap
    upload = SimpleUploadedFile("bank.xml", text.encode(), content_type="text/xml")
    response = author.post("/author/import/", {"file": upload, "format": "auto"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "larger than" not in html
    assert response.context["preview"].errors == []
    assert response.context["preview"].format == "moodlexml"


@pytest.mark.django_db
def test_a_file_over_the_cap_is_named_on_the_form(author):
    upload = SimpleUploadedFile(
        "big.xml", b"<quiz>" + b" " * (importing.MAX_BYTES + 1) + b"</quiz>"
    )
    response = author.post("/author/import/", {"file": upload, "format": "auto"})
    assert response.status_code == 200
    assert "The file is larger than 8 MB, the size limit for an import." in (
        response.content.decode()
    )


@pytest.mark.django_db
@pytest.mark.parametrize("enforce_csrf", [False, True])
def test_text_pasted_over_the_post_limit_comes_back_to_the_form_with_a_message(
    instructor, enforce_csrf
):
    client = Client(enforce_csrf_checks=enforce_csrf)
    client.force_login(instructor)
    body = {"text": "x" * (3 * 1024 * 1024 + 10), "format": "auto"}
    response = client.post("/author/import/", body)
    assert response.status_code == 303
    assert response["Location"] == "/author/import/"
    page = client.get("/author/import/").content.decode()
    assert "larger than 3 MB, the limit for text typed or pasted into a form" in page


@pytest.mark.django_db
def test_an_htmx_post_over_the_limit_redirects_the_whole_page(author):
    body = {"text": "x" * (3 * 1024 * 1024 + 10)}
    response = author.post("/author/import/", body, headers={"HX-Request": "true"})
    assert response.status_code == 413
    assert response["HX-Redirect"] == "/author/import/"


# --- a rejected file is named in words ------------------------------------------------------

MALFORMED = {
    "JSON object": ('{"questions": [{"stem": "x"}]}', "a JSON document"),
    "JSON array": ("[1, 2, 3]", "a JSON document"),
    "HTML page": ("<!DOCTYPE html><html><body>Quiz</body></html>", "an HTML page"),
    "other XML": ("<root><item/></root>", "without a Moodle &lt;quiz&gt; element"),
    "CSV": ("question,answer\nWhat?,Yes\nWho?,No\n", "comma-separated values (CSV)"),
    "YAML without questions": ("title: x\nitems:\n  - a\n", "without a top-level questions"),
    "prose": ("Just some prose.\nAnother line.\n", "plain text with no question in it"),
    "Markdown": ("# Title\n\n* item\n* other\n", "plain text with no question in it"),
    "PDF": ("%PDF-1.4\n%âãÏÓ\n1 0 obj", "a PDF document"),
    "ZIP": ("PK\x03\x04\x14\x00\x06\x00", "a ZIP archive"),
}


@pytest.mark.django_db
@pytest.mark.parametrize("name", list(MALFORMED))
def test_a_file_in_no_format_we_read_is_named_in_words(author, name):
    text, words = MALFORMED[name]
    if name in ("PDF", "ZIP"):  # files, as an instructor would pick them by mistake
        upload = SimpleUploadedFile("bank.bin", text.encode())
        response = author.post("/author/import/", {"file": upload, "format": "auto"})
    else:
        response = author.post("/author/import/", {"text": text, "format": "auto"})
    html = response.content.decode()
    assert response.status_code == 200
    assert "This is not a question file we can read: it looks like" in html
    assert words in html
    preview = html[html.index('id="import-preview"') :]  # the page's own rules name the kinds
    assert "short answer" not in preview and "description (no answer)" not in preview
