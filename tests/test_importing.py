"""Import preview and apply, export, round trips, the views and the command."""

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from quizzes import importing
from quizzes.formats import Defaults
from quizzes.models import Question

from .factories import make_question
from .imports import FIXTURES, FORM_DEFAULTS, gift_features

pytestmark = pytest.mark.django_db
DEFAULTS = Defaults("stop-reasons", "stop-reasons#max-tokens", "https://example.com/doc")


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("boss", password="pw-boss-123", is_staff=True)


# ------------------------------------------------------------------ preview and apply


def test_the_preview_lists_creates_skips_and_writes_nothing():
    preview = importing.import_preview(gift_features(), "auto", DEFAULTS)
    assert preview.format == "gift" and preview.errors == []
    assert preview.count_create == 16  # numerical, short answer and essay are kinds now
    assert {s.name for s in preview.skipped} == {"Description"}
    assert all(r.status == "draft" for r in preview.rows)
    stop = next(r for r in preview.rows if r.slug == "stop-on-max-tokens")
    assert (stop.where, stop.kind) == ("line 7", "single")
    assert "notes link (default: stop-reasons#max-tokens)" in stop.filled
    assert Question.objects.count() == 0


def test_applying_writes_drafts_in_one_go_and_a_second_preview_says_unchanged():
    importing.import_apply(importing.import_preview(gift_features(), "gift", DEFAULTS))
    q = Question.objects.current().get(slug="stop-on-max-tokens")
    assert (q.status, q.origin, q.kind, q.notes_ref) == (
        "draft", "browser", "single", "stop-reasons#max-tokens",
    )  # fmt: skip
    assert q.options.get(correct=True).why == "The text was cut off."
    # The file gives no ids: importing it again makes new questions, and the preview says so.
    again = importing.import_preview(gift_features(), "gift", DEFAULTS)
    stop = next(r for r in again.rows if r.slug == "stop-on-max-tokens-2")
    assert stop.action == "create" and any("stop-on-max-tokens" in w for w in stop.warnings)


def test_a_changed_question_is_an_update_that_makes_a_new_version():
    importing.import_apply(importing.import_preview(gift_features(), "gift", DEFAULTS))
    ours, _ = importing.export_questions("gift", importing.exportable())  # now with our ids
    changed = ours.replace("The text was cut off.", "It was truncated.")
    preview = importing.import_preview(changed, "gift", DEFAULTS)
    assert [r.slug for r in preview.rows if r.action == "update"] == ["stop-on-max-tokens"]
    importing.import_apply(preview)
    assert Question.objects.filter(slug="stop-on-max-tokens").count() == 2


def test_without_defaults_each_question_says_what_to_choose():
    preview = importing.import_preview("::q::Which?{=a ~b ~c}", "gift", Defaults())
    assert [e.message for e in preview.errors] == [
        "the file gives no subtopic, notes link, source: choose a default for it on the import form"
    ]


def test_our_bank_rules_apply_too_with_the_line():
    preview = importing.import_preview("::q::Which?{=a ~b}", "gift", DEFAULTS)
    assert [(e.where, e.message) for e in preview.errors] == [
        ("line 1", "options must have 3 to 5 entries (has 2)")
    ]


def test_a_file_with_errors_imports_nothing():
    text = (FIXTURES / "gift_malformed.gift.txt").read_text()
    preview = importing.import_preview(text, "gift", DEFAULTS)
    assert len(preview.errors) == 9 and preview.count_create == 1
    assert not preview.can_apply
    with pytest.raises(ValueError, match="nothing was imported"):
        importing.import_apply(preview)
    assert Question.objects.count() == 0


def test_duplicate_names_get_distinct_slugs():
    preview = importing.import_preview("::Q::A?{=a ~b ~c}\n\n::Q::B?{=a ~b ~c}", "gift", DEFAULTS)
    assert [r.slug for r in preview.rows] == ["q", "q-2"]


# ------------------------------------------------------------------ round trips


def _comparable(d: dict) -> dict:
    return {k: v for k, v in d.items() if k not in ("line", "status", "file")}


@pytest.fixture
def bank(one_of_each):
    return one_of_each


def test_yaml_round_trip_gives_the_same_questions_for_every_kind(bank):
    text, skipped = importing.export_questions("yaml", importing.exportable())
    assert skipped == []
    preview = importing.import_preview(text, "auto")
    assert preview.errors == []
    assert sorted(r.slug for r in preview.rows) == sorted(q.slug for q in bank.values())
    assert {r.action for r in preview.rows} == {"unchanged"}  # same content hash as stored


@pytest.mark.parametrize("fmt", ["gift", "moodlexml"])
def test_gift_and_xml_round_trip_the_kinds_they_can_hold(bank, fmt):
    text, skipped = importing.export_questions(fmt, importing.exportable())
    assert sorted(slug for slug, _ in skipped) == [
        "t-fix", "t-json", "t-next-action", "t-ordering",
    ]  # fmt: skip
    assert all("has no equivalent" in reason for _, reason in skipped)
    assert "skipped t-ordering" in text  # the file says what was left out
    preview = importing.import_preview(text, "auto", Defaults())
    assert preview.format == fmt and preview.errors == [] and preview.skipped == []
    yaml_text, _ = importing.export_questions("yaml", importing.exportable())
    originals = {
        q["slug"]: _comparable(q) for q in importing.schema.parse_text(yaml_text).questions
    }
    assert len(preview.rows) == 4
    for row in preview.rows:
        assert _comparable(row.parsed) == originals[row.slug], row.slug
        assert row.status == "published" and row.action == "unchanged"


def test_exported_yaml_loads_with_loadcontent(bank, tmp_path):
    text, _ = importing.export_questions("yaml", importing.exportable())
    path = tmp_path / "export.yaml"
    path.write_text(text)
    assert importing.schema.parse_files([path]).problems == []


# ------------------------------------------------------------------ views


PAGES = [("author:import", {}), ("author:export", {})]


@pytest.mark.parametrize("name, kwargs", PAGES)
def test_anonymous_visitors_go_to_the_login_page(client, name, kwargs):
    response = client.get(reverse(name, kwargs=kwargs))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


@pytest.mark.parametrize("name, kwargs", PAGES)
def test_learners_get_403(client, learner, name, kwargs):
    client.force_login(learner)
    assert client.get(reverse(name, kwargs=kwargs)).status_code == 403


@pytest.mark.parametrize("name, kwargs", PAGES)
def test_instructors_and_staff_get_the_page(client, instructor, staff, name, kwargs):
    for user in (instructor, staff):
        client.force_login(user)
        assert client.get(reverse(name, kwargs=kwargs)).status_code == 200


def test_a_learner_cannot_apply_an_import(client, learner):
    client.force_login(learner)
    data = {"text": "::q::Which?{=a ~b ~c}", "format": "gift", **FORM_DEFAULTS}
    assert client.post(reverse("author:import_apply"), data).status_code == 403
    assert Question.objects.count() == 0


def test_uploading_a_file_shows_the_preview_then_apply_imports(client, instructor):
    client.force_login(instructor)
    with open(FIXTURES / "gift_features.gift.txt", "rb") as f:
        response = client.post(
            reverse("author:import"), {"file": f, "format": "auto", **FORM_DEFAULTS}
        )
    page = response.content.decode()
    assert response.status_code == 200
    assert "stop-on-max-tokens" in page and "Question type description" in page
    assert "Import 16 questions" in page
    assert Question.objects.count() == 0
    data = {"text": gift_features(), "format": "gift", **FORM_DEFAULTS}
    response = client.post(reverse("author:import_apply"), data)
    assert response.status_code == 302
    assert Question.objects.filter(status="draft").count() == 16


def test_the_htmx_preview_is_only_the_fragment(client, instructor):
    client.force_login(instructor)
    data = {"text": "::q::Which?{=a ~b ~c}", "format": "gift", **FORM_DEFAULTS}
    response = client.post(reverse("author:import"), data, headers={"HX-Request": "true"})
    page = response.content.decode()
    assert 'id="import-preview"' in page and "<html" not in page


@pytest.mark.parametrize(
    "data, message",
    [
        ({}, "Upload a file or paste some questions."),
        ({"text": "x", "default_notes": "no anchor"}, "Write the notes link as note-slug#anchor."),
        ({"text": "x", "default_source": "http://insecure.example"}, "must be an https:// URL"),
    ],
)
def test_bad_form_input_is_named_not_a_500(client, instructor, data, message):
    client.force_login(instructor)
    response = client.post(reverse("author:import"), {"format": "auto", **data})
    assert response.status_code == 200 and message in response.content.decode()


def test_a_file_that_is_not_utf8_is_named(client, instructor, tmp_path):
    client.force_login(instructor)
    path = tmp_path / "latin1.txt"
    path.write_bytes("Qu\xe9?{=a ~b ~c}".encode("latin-1"))
    with open(path, "rb") as f:
        response = client.post(reverse("author:import"), {"file": f, "format": "auto"})
    assert "not UTF-8 text" in response.content.decode()


def test_broken_xml_is_explained_on_the_page(client, instructor):
    client.force_login(instructor)
    data = {"text": (FIXTURES / "moodle_not_well_formed.xml").read_text(), "format": "auto"}
    response = client.post(reverse("author:import"), data)
    assert response.status_code == 200
    assert "Invalid XML file" in response.content.decode()


def test_apply_refuses_a_file_with_errors(client, instructor):
    client.force_login(instructor)
    data = {"text": (FIXTURES / "gift_malformed.gift.txt").read_text(), "format": "gift",
            **FORM_DEFAULTS}  # fmt: skip
    response = client.post(reverse("author:import_apply"), data)
    assert response.status_code == 400 and Question.objects.count() == 0


def test_import_needs_csrf(instructor):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(instructor)
    data = {"text": "::q::Which?{=a ~b ~c}", "format": "gift", **FORM_DEFAULTS}
    assert client.post(reverse("author:import_apply"), data).status_code == 403


@pytest.mark.parametrize("fmt, needle", [("gift", "::t-single::"), ("moodlexml", "<quiz>"),
                                         ("yaml", "questions:")])  # fmt: skip
def test_export_downloads_a_file(client, instructor, bank, fmt, needle, django_assert_num_queries):
    client.force_login(instructor)
    # session, user, instructor check, questions, their options, their translations
    with django_assert_num_queries(6):
        response = client.get(reverse("author:export"), {"format": fmt})
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    assert needle in response.content.decode()


def test_export_with_an_unknown_format_says_so(client, instructor):
    client.force_login(instructor)
    response = client.get(reverse("author:export"), {"format": "pdf"})
    assert response.status_code == 400 and "Choose a format." in response.content.decode()


# ------------------------------------------------------------------ management command


def test_importquestions_dry_run_writes_nothing(tmp_path, capsys):
    path = tmp_path / "q.gift"
    path.write_text(gift_features())
    call_command("importquestions", str(path), "--dry-run", "--subtopic", "stop-reasons",
                 "--notes", "stop-reasons#max-tokens",
                 "--source", "https://example.com/doc")  # fmt: skip
    out = capsys.readouterr().out
    assert "create    stop-on-max-tokens (single, draft) [line 7]" in out
    assert "create    essay (essay, draft) [line 64]" in out
    assert "skipped   Description" in out
    assert "dry run, nothing written" in out and Question.objects.count() == 0


def test_importquestions_writes_and_reports_errors(tmp_path):
    path = tmp_path / "q.xml"
    path.write_text((FIXTURES / "moodle_features.xml").read_text())
    call_command("importquestions", str(path), "--format", "moodlexml",
                 "--notes", "tool-choice#modes", "--source", "https://example.com/doc")  # fmt: skip
    assert Question.objects.filter(subtopic="tool-choice").count() == 7
    bad = tmp_path / "bad.xml"
    bad.write_text((FIXTURES / "moodle_malformed.xml").read_text())
    with pytest.raises(CommandError, match="7 error"):
        call_command("importquestions", str(bad))


def test_exportquestions_writes_a_file(tmp_path):
    make_question("single")
    out = tmp_path / "out.gift"
    call_command("exportquestions", "--format", "gift", "-o", str(out))
    assert "::t-single::" in out.read_text()
