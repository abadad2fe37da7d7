"""Issue 13, defects: importing never loses, unpublishes or overwrites what it did not come from."""
# ruff: noqa: E501

import textwrap

import pytest

from quizzes import bank, importing
from quizzes.formats import Defaults, moodlexml
from quizzes.models import Question

from .factories import REAL_BANK, load_real_bank, make_question, question_yaml

pytestmark = pytest.mark.django_db
DEFAULTS = Defaults("stop-reasons", "stop-reasons#max-tokens", "https://example.com/doc")


def _whole_bank():
    """The real bank in the database, as loadcontent writes it (built once per session)."""
    load_real_bank()
    return REAL_BANK


def test_round_trip_of_the_whole_bank_in_every_format_is_byte_identical_and_keeps_it_published(
    tmp_path,
):
    """Export -> import -> export gives the same bytes, and nothing changes in the database."""
    paths = _whole_bank()
    published = Question.objects.published().count()
    rows = Question.objects.count()
    assert published > 100
    bank_now = list(importing.exportable())
    for fmt in ("gift", "moodlexml", "yaml"):
        first, _ = importing.export_questions(fmt, bank_now)
        preview = importing.import_preview(first, fmt)
        assert preview.errors == [], fmt
        assert {r.action for r in preview.rows} == {"unchanged"}, fmt
        importing.import_apply(preview)
        # The bank after this import, read once: this format's second export and the next's first.
        bank_now = list(importing.exportable())
        second, _ = importing.export_questions(fmt, bank_now)
        assert second == first, fmt
        assert Question.objects.published().count() == published, fmt
        assert Question.objects.count() == rows, fmt
    # And loadcontent still owns the file questions: nothing is "kept as authored in the browser".
    report = bank.load_bank(paths)
    assert report.skipped == [] and report.updated == [] and report.retired == []


def test_the_bank_read_for_export_exports_as_any_rows_of_it_do():
    """exportable() hands export_questions each question's options and translations as lists;
    rows read without them (any queryset of questions) give the same files, translations too."""
    from quizzes import translations

    question = make_question("single", slug="ex-single")
    english = importing.question_to_bank(question)
    translations.upsert(question, "pl", {"stem": "Po polsku?"}, english)
    plain = Question.objects.current().order_by("subtopic", "slug")
    for fmt, lang in (("yaml", ""), ("gift", "pl")):
        text, skipped = importing.export_questions(fmt, importing.exportable(), lang=lang)
        assert (text, skipped) == importing.export_questions(fmt, plain, lang=lang), fmt
        assert "Po polsku?" in text, fmt


def test_a_next_line_character_in_a_text_survives_the_yaml_export():
    """U+0085 (NEL) is a line break to YAML: written raw inside a quoted text it reads back as
    another text; the export escapes it."""
    import yaml

    q = make_question("single", slug="nel-text")
    Question.objects.filter(pk=q.pk).update(stem="Before\x85after")
    q.options.filter(position=1).update(text="x\x85")
    text, _ = importing.export_questions("yaml", Question.objects.filter(pk=q.pk))
    back = yaml.safe_load(text)["questions"][0]
    assert back["stem"] == "Before\x85after"
    assert "x\x85" in [o["text"] for o in back["options"]]


def test_reimporting_an_edited_export_updates_but_never_unpublishes_nor_takes_ownership():
    q = make_question("single", slug="kept-published")
    assert q.status == "published" and q.origin == "file"
    text, _ = importing.export_questions("gift", importing.exportable())
    text = text.replace('"status":"published"', '"status":"draft"').replace(
        "WHY-A-RIGHT", "WHY-NEW"
    )
    preview = importing.import_preview(text, "gift")
    row = preview.rows[0]
    assert (row.slug, row.action, row.status) == ("kept-published", "update", "published")
    assert any("stays published" in w for w in row.warnings)
    importing.import_apply(preview)
    now = Question.objects.current().get(slug="kept-published")
    assert (now.version, now.status, now.origin) == (2, "published", "file")


def test_a_name_that_slugifies_to_an_existing_slug_makes_a_new_question():
    make_question("single", slug="stop-on-max-tokens")
    text = "::Stop on max tokens::What now?{=Ask for more#Right.~Stop#Wrong.~Retry#Wrong.}"
    preview = importing.import_preview(text, "gift", DEFAULTS)
    assert [(r.slug, r.action) for r in preview.rows] == [("stop-on-max-tokens-2", "create")]
    importing.import_apply(preview)
    assert Question.objects.get(slug="stop-on-max-tokens").version == 1


XML = """<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="category"><category><text>$course$/Top/Week 3</text></category></question>
  <question type="multichoice">
    <name><text>Listen</text></name>
    <questiontext format="html"><text><![CDATA[<p>Listen: <audio src="x.mp3"></audio> then pick the <b>bold</b> one. <a href="https://example.com/a" onclick="x()">docs</a></p>]]></text></questiontext>
    <idnumber>week3-q1</idnumber>
    <single>true</single>
    <answer fraction="100" format="html"><text>A</text><feedback format="html"><text>yes</text></feedback></answer>
    <answer fraction="0" format="html"><text>B</text><feedback format="html"><text>no</text></feedback></answer>
    <answer fraction="0" format="html"><text>C</text><feedback format="html"><text>no</text></feedback></answer>
  </question>
</quiz>
"""


def test_moodle_html_is_kept_sanitised_with_a_warning_naming_what_was_removed():
    row = importing.import_preview(XML, "moodlexml", DEFAULTS).rows[0]
    stem = row.parsed["stem"]
    assert "<strong>bold</strong>" in stem and 'href="https://example.com/a"' in stem
    assert "audio" not in stem and "onclick" not in stem
    warning = next(w for w in row.warnings if "removed" in w)
    assert "<audio>" in warning and "onclick on <a>" in warning


def test_idnumber_is_kept_exported_and_decides_which_question_an_import_updates():
    importing.import_apply(importing.import_preview(XML, "moodlexml", DEFAULTS))
    q = Question.objects.current().get(idnumber="week3-q1")
    exported, _ = importing.export_questions("moodlexml", importing.exportable())
    assert "<idnumber>week3-q1</idnumber>" in exported
    edited = XML.replace("<name><text>Listen</text>", "<name><text>Renamed</text>").replace(
        ">yes<", ">yes, A<"
    )
    row = importing.import_preview(edited, "moodlexml", DEFAULTS).rows[0]
    assert (row.slug, row.action) == (q.slug, "update")


def test_a_moodle_category_maps_to_the_subtopic_chosen_on_the_form():
    d = Defaults(
        "stop-reasons", "stop-reasons#max-tokens", "https://example.com/doc",
        categories={"$course$/Top/Week 3": "tool-choice"},
    )  # fmt: skip
    row = importing.import_preview(XML, "moodlexml", d).rows[0]
    assert row.parsed["subtopic"] == "tool-choice"
    assert moodlexml.parse(XML).questions[0].category == "$course$/Top/Week 3"


def test_imported_wrong_answers_are_untagged_unless_a_family_is_set_for_that_answer():
    d = Defaults(
        "stop-reasons", "stop-reasons#max-tokens", "https://example.com/doc",
        families={(1, 2): "cap-as-control"},
    )  # fmt: skip
    options = importing.import_preview(XML, "moodlexml", d).rows[0].parsed["options"]
    assert [o["family"] for o in options] == ["", "", "cap-as-control"]


def test_loadcontent_restores_a_file_question_after_a_browser_import(tmp_path):
    make_question("single", slug="from-file")
    text, _ = importing.export_questions("gift", importing.exportable())
    importing.import_apply(importing.import_preview(text.replace("WHY-A-RIGHT", "WHY-Z"), "gift"))
    assert Question.objects.current().get(slug="from-file").origin == "file"
    # loadcontent decides on file questions: restoring the file's text is not refused.
    path = tmp_path / "bank.yaml"
    path.write_text(textwrap.dedent("questions:\n" + question_yaml("single", "from-file")))
    again = bank.load_bank([path], retire_missing=False)
    assert (again.skipped, again.updated) == ([], ["from-file"])
    assert Question.objects.current().get(slug="from-file").options.get(correct=True).why == (
        "WHY-A-RIGHT"
    )


FORM = {
    "format": "auto",
    "default_subtopic": "stop-reasons",
    "default_notes": "stop-reasons#max-tokens",
    "default_source": "https://example.com/doc",
    "default_family": "",
}


def test_the_import_page_maps_categories_and_sets_trap_families_per_answer(client, author):
    from django.urls import reverse

    from authoring.models import CategorySubtopic

    page = client.post(reverse("author:import"), {**FORM, "text": XML}).content.decode()
    assert 'name="cat-1"' in page and "$course$/Top/Week 3" in page
    assert 'name="fam-1-1"' in page and 'name="fam-1-2"' in page and 'name="fam-1-0"' not in page
    assert "Listen: then pick the bold one." in page or "pick the bold one" in page
    assert "&lt;audio&gt;" in page  # the warning about what the sanitiser removed
    choices = {"catname-1": "$course$/Top/Week 3", "cat-1": "guards", "fam-1-2": "cap-as-control"}
    response = client.post(reverse("author:import_apply"), {**FORM, "text": XML, **choices})
    assert response.status_code == 302
    q = Question.objects.current().get(idnumber="week3-q1")
    assert q.subtopic == "guards"
    assert [o.family for o in q.options.all()] == ["", "", "cap-as-control"]
    assert CategorySubtopic.objects.get(category="$course$/Top/Week 3").subtopic == "guards"
    # The next file from that category gets the remembered subtopic without asking again.
    other = XML.replace("week3-q1", "week3-q2").replace("Listen", "Second")
    row = importing.import_preview(other, "moodlexml", _form_defaults(client)).rows[0]
    assert row.parsed["subtopic"] == "guards"


def _form_defaults(client):
    from authoring.views_io import ImportForm

    form = ImportForm({**FORM, "text": "x"})
    assert form.is_valid()
    return form.defaults()


def test_export_filters_by_subtopic_status_and_kind(client, author):
    from django.urls import reverse

    make_question("single", slug="a-single")
    make_question("truefalse", slug="a-tf")
    make_question("single", slug="b-guards", subtopic="guards")
    url = reverse("author:export")
    text = client.get(url, {"format": "yaml", "kind": "single", "subtopic": "stop-reasons"})
    body = text.content.decode()
    assert "slug: a-single" in body and "a-tf" not in body and "b-guards" not in body
    drafts = client.get(url, {"format": "yaml", "status": "draft"}).content.decode()
    assert "slug:" not in drafts
    bad = client.get(url, {"format": "yaml", "kind": "essayish"})
    assert bad.status_code == 400 and "Unknown kind" in bad.content.decode()
    page = client.get(url).content.decode()
    assert 'name="subtopic"' in page and 'name="status"' in page and 'name="kind"' in page
