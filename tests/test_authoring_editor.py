"""The question editor: every kind, the bank's own messages next to the fields, versions, drafts."""

from __future__ import annotations

import re

import pytest
from django.utils.html import escape

from authoring import forms, services
from core.owners import Owner
from quizzes import kinds, schema
from quizzes import services as quiz_services
from quizzes.models import Question
from tests.editor import edit_url, form_data, post_form
from tests.factories import ALL_KIND_BODIES, make_question

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("kind", list(ALL_KIND_BODIES))
def test_every_kind_comes_back_from_the_editor_unchanged(author, kind):
    """Question -> form -> schema gives the same question: the browser and the files agree."""
    question = make_question(kind)
    data = form_data(services.question_editable(question))
    response = post_form(author, edit_url(question.slug), data, follow=True)
    assert response.status_code == 200
    assert "Nothing changed: not saved." in response.content.decode()
    assert Question.objects.filter(slug=question.slug).count() == 1


@pytest.mark.parametrize("kind", list(ALL_KIND_BODIES))
def test_a_new_question_of_every_kind_is_created_from_the_form(author, kind):
    source = services.question_parsed(make_question(kind, slug="model-question"))
    data = form_data({**source, "slug": "brand-new"}, save="draft")
    response = post_form(author, f"/author/questions/new/?kind={kind}", data)
    assert response.status_code == 302 and response["Location"] == edit_url("brand-new")
    made = Question.objects.current().get(slug="brand-new")
    assert (made.kind, made.version, made.status, made.origin) == (kind, 1, "draft", "browser")
    assert made.options.count() == len(source["options"])
    assert made.stem_html == "<p>Stem of model-question</p>"


def _single(**changes) -> dict:
    return form_data(services.question_parsed(make_question("single", slug="s-one")), **changes)


def test_a_single_choice_question_needs_exactly_one_correct_option(author):
    response = author.post(edit_url("s-one"), _single(**{"opt-1-correct": "on"}))
    html = response.content.decode()
    assert response.status_code == 422
    assert "a single question needs exactly one correct option (has 2)" in html
    assert "Not saved yet." in html
    assert Question.objects.get(slug="s-one").version == 1


def test_a_missing_why_is_named_on_its_own_row(author):
    response = author.post(edit_url("s-one"), _single(**{"opt-2-why": ""}))
    html = response.content.decode()
    assert response.status_code == 422
    assert '<ul class="field-errors" id="id_opt-2-why_error"><li>why is required</li></ul>' in html
    assert 'aria-describedby="id_opt-2-why_helptext id_opt-2-why_error"' in html


def test_a_wrong_option_without_a_trap_asks_for_one(author):
    response = author.post(edit_url("s-one"), _single(**{"opt-3-family": ""}))
    assert 'id="id_opt-3-family_error"><li>choose the trap this wrong option tempts' in (
        response.content.decode()
    )


def test_top_level_fields_carry_the_schemas_own_words(author):
    data = _single(stem="", notes="no anchor", sources="http://insecure.example")
    html = author.post(edit_url("s-one"), data).content.decode()
    assert 'id="id_stem_error"><li>stem is required</li>' in html
    assert 'id="id_notes_error"><li>notes must look like note-slug#anchor</li>' in html
    assert "each source must be an https:// URL (got &#x27;http://insecure.example&#x27;)" in html


def test_json_that_does_not_parse_says_where(author):
    question = make_question("next_action")
    data = form_data(services.question_parsed(question), response='{"id": "msg_1",\n  oops}')
    response = author.post(edit_url(question.slug), data)
    html = response.content.decode()
    assert response.status_code == 422
    assert "This is not valid JSON: Expecting property name enclosed in double quotes (line 2" in (
        html
    )


def test_a_next_action_key_must_agree_with_the_catalogue(author):
    question = make_question("next_action")
    parsed = services.question_parsed(question)
    data = form_data(parsed, **{"opt-0-correct": "", "opt-2-correct": "on"})
    html = author.post(edit_url(question.slug), data).content.decode()
    assert "the key says finish but the stop_reason catalogue says retry_with_more_tokens" in html


def test_a_multiple_response_question_needs_two_right_options(author):
    question = make_question("multiple")
    data = form_data(services.question_parsed(question), **{"opt-1-correct": ""})
    html = author.post(edit_url(question.slug), data).content.decode()
    assert "a multiple-response question needs two or more correct options (has 1)" in html


def test_a_new_questions_slug_must_be_free(author):
    make_question("single", slug="taken")
    source = services.question_parsed(make_question("single", slug="other"))
    data = form_data({**source, "slug": "taken"})
    response = author.post("/author/questions/new/?kind=single", data)
    assert response.status_code == 422
    assert "A question with this slug already exists" in response.content.decode()
    assert Question.objects.filter(slug="taken").count() == 1


def test_a_tampered_row_count_is_a_message_not_a_crash(author):
    response = author.post(edit_url("s-one"), _single(**{"opt-TOTAL_FORMS": "many"}))
    assert response.status_code == 422
    assert "ManagementForm data is missing or has been tampered with" in response.content.decode()


def test_add_a_row_shows_one_more_empty_row_and_saves_nothing(author):
    response = author.post(edit_url("s-one"), _single(add_option="1"))
    html = response.content.decode()
    assert response.status_code == 200
    assert 'name="opt-TOTAL_FORMS" value="5"' in html and "Option 5" in html
    assert 'value="Option B"' not in html  # options are textareas: their text is kept as typed
    assert "Option B</textarea>" in html
    assert Question.objects.filter(slug="s-one").count() == 1


def test_a_stored_question_that_fails_the_checks_still_opens_to_be_fixed(author):
    question = make_question("single", slug="broken")
    Question.objects.filter(pk=question.pk).update(stem="", status="draft")
    page = author.get(edit_url("broken"))
    assert page.status_code == 200 and "stem is required" in page.content.decode()
    response = author.post("/author/questions/broken/publish/", follow=True)
    assert "no longer passes the bank&#x27;s checks: stem is required" in response.content.decode()
    assert Question.objects.get(slug="broken").status == "draft"


def test_an_unknown_kind_is_named(author):
    response = author.get("/author/questions/new/?kind=cloze")
    assert response.status_code == 400
    assert "“cloze” is not a question kind" in response.content.decode()
    essay = author.get("/author/questions/new/?kind=essay")  # every kind has an editor now
    assert essay.status_code == 200 and 'name="model_answer"' in essay.content.decode()


def test_editing_a_published_question_makes_a_new_version_and_old_answers_keep_theirs(
    author, learner
):
    v1 = make_question("single", slug="s-one")
    attempt = quiz_services.practice_start(
        owner=Owner(learner, ""), subtopics=[], which="all", count=5
    )
    answered = attempt.responses.get()
    right = v1.options.get(correct=True)
    quiz_services.response_save(
        response=answered, answer={"choice": right.key}, lock_after_first=True
    )
    data = form_data(services.question_parsed(v1), stem="A **better** stem")
    response = author.post(edit_url("s-one"), data, follow=True)
    assert "Version 2 published." in response.content.decode()
    v2 = Question.objects.current().get(slug="s-one")
    assert (v2.version, v2.status, v2.stem_html) == (
        2,
        "published",
        "<p>A <strong>better</strong> stem</p>",
    )
    v1.refresh_from_db()
    assert not v1.is_current and v1.stem == "Stem of s-one"
    answered.refresh_from_db()
    assert answered.question_id == v1.pk and answered.is_correct
    assert list(Question.objects.published()) == [v2]
    # The edit page lists both versions with their responses.
    page = author.get(edit_url("s-one")).content.decode()
    current = '<th scope="row"><a href="/author/questions/s-one/v/2/">2</a> (current)</th>'
    assert current in page and "<td>1</td>" in page


def test_a_draft_stays_out_of_practice_until_published_in_place(author):
    source = services.question_parsed(make_question("single", slug="model"))
    author.post(
        "/author/questions/new/?kind=single", form_data({**source, "slug": "d"}, save="draft")
    )
    draft = Question.objects.current().get(slug="d")
    assert draft not in Question.objects.published()
    assert "candidates do not see it yet" in author.get(edit_url("d")).content.decode()
    response = author.post("/author/questions/d/publish/", follow=True)
    assert "Version 1 is published: it is in practice." in response.content.decode()
    draft.refresh_from_db()
    assert draft.status == "published" and draft.version == 1
    assert draft in Question.objects.published()
    # The hash follows the status, so saving the same content again changes nothing.
    again = author.post(edit_url("d"), form_data(services.question_parsed(draft)), follow=True)
    assert "Nothing changed" in again.content.decode()


def test_saving_a_published_question_as_a_draft_takes_it_out_of_practice(author):
    question = make_question("truefalse", slug="tf")
    page = author.get(edit_url("tf")).content.decode()
    assert "Save as draft (takes it out of practice)" in page
    author.post(edit_url("tf"), form_data(services.question_parsed(question), save="draft"))
    assert not Question.objects.published().filter(slug="tf").exists()
    assert Question.objects.current().get(slug="tf").version == 2


# --- the preview ---------------------------------------------------------------------------


def test_the_htmx_preview_is_the_candidates_question_and_writes_nothing(author):
    question = make_question("single", slug="s-one")
    data = form_data(services.question_parsed(question), save=None, stem="Which `stop_reason`?")
    data["original"] = "s-one"
    response = author.post("/author/questions/preview/", data, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert html.lstrip().startswith('<div id="preview"')
    assert "<p>Which <code>stop_reason</code>?</p>" in html
    assert html.count('type="radio" name="choice"') == 4  # the inputs from quizzes/_inputs.html
    assert "WHY-A-RIGHT" in html  # the feedback, folded away under a summary
    assert Question.objects.filter(slug="s-one").count() == 1
    assert Question.objects.get(slug="s-one").stem == "Stem of s-one"


def test_the_preview_of_a_new_question_needs_no_slug_yet(author):
    source = services.question_parsed(make_question("ordering", slug="o"))
    data = form_data({**source, "slug": ""}, save=None)
    html = author.post("/author/questions/preview/", data, headers={"HX-Request": "true"})
    assert 'name="pos-' in html.content.decode()
    assert not Question.objects.filter(slug="preview-question").exists()


def test_the_preview_lists_what_is_still_missing(author):
    data = {"kind": "single", "opt-TOTAL_FORMS": 0, "opt-INITIAL_FORMS": 0, "stem": "Hi"}
    html = author.post(
        "/author/questions/preview/", data, headers={"HX-Request": "true"}
    ).content.decode()
    assert "The preview appears once the question passes the bank's checks" in html
    assert "options must have 3 to 5 entries (has 0)" in html
    assert "Notes section: notes is required" in html


def test_the_preview_without_javascript_is_a_whole_page(author):
    question = make_question("json", slug="j")
    data = form_data(services.question_parsed(question), save=None, original="j")
    html = author.post("/author/questions/preview/", data).content.decode()
    assert "<html" in html and 'id="json-text"' in html


def test_the_preview_button_without_javascript_reloads_the_editor_with_the_preview(author):
    question = make_question("matching", slug="m")
    data = form_data(services.question_parsed(question), save=None, preview="1", stem="New!")
    response = author.post(edit_url("m"), data)
    html = response.content.decode()
    assert response.status_code == 200
    assert '<div class="stem prose"><p>New!</p></div>' in html
    assert Question.objects.get(slug="m").stem == "Stem of m"


def test_the_edit_page_opens_with_the_preview_of_the_current_version(author):
    question = make_question("next_action", slug="na")
    html = author.get(edit_url("na")).content.decode()
    assert 'stop_reason: "max_tokens"' in html
    assert question.stem_html in html and "What must the loop do next?" in html


@pytest.mark.parametrize("kind", ["truefalse", "single", "matching"])
def test_the_edit_page_previews_an_unchanged_version_as_stored_in_constant_queries(
    author, kind, django_assert_num_queries
):
    """Saving an unchanged version would write the same question again: the preview is the
    stored version itself (its options read once with it), nothing written and rolled back;
    session, user, instructor check, version, options, concepts, translations, versions."""
    question = make_question(kind, slug="as-stored")
    with django_assert_num_queries(8) as captured:
        html = author.get(edit_url("as-stored")).content.decode()
    assert not [q for q in captured.captured_queries if "SAVEPOINT" in q["sql"]]
    assert '<article class="question"' in html and question.stem_html in html
    assert f'id="verdict-{question.pk}"' in html  # the stored version's own feedback
    assert Question.objects.filter(slug="as-stored").count() == 1
    with django_assert_num_queries(7):  # the version's options kept from the first visit
        again = author.get(edit_url("as-stored")).content.decode()
    token = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')
    assert token.sub("", again) == token.sub("", html)


def test_the_editors_kept_queries_answer_as_the_orm_does(author, learner):
    """The translation states and the versions table, compiled once (authoring/services.py),
    give what the ORM's querysets give: ok, stale and missing languages; every version with
    its responses, newest first."""
    from django.db.models import Count

    from quizzes import translations
    from quizzes.models import QuestionTranslation

    first = make_question("single", slug="kept")
    attempt = quiz_services.practice_start(
        owner=Owner(learner, ""), subtopics=[], which="all", count=5
    )
    assert attempt.responses.get().question_id == first.pk
    data = form_data(services.question_editable(first), explanation="Changed.")
    assert author.post(edit_url("kept"), data).status_code == 302
    current = services.current_version("kept")
    QuestionTranslation.objects.create(question=current, lang="pl", is_stale=True)
    QuestionTranslation.objects.create(question=current, lang="zh-hans")
    states = services.translation_states(current)
    assert states == translations.status_by_question([current])[current.pk]
    assert states == {"zh-hans": "ok", "zh-hant": "missing", "pl": "stale"}
    assert services.versions("kept") == list(
        Question.objects.filter(slug="kept")
        .annotate(n_responses=Count("responses"))
        .order_by("-version")
        .values("version", "status", "origin", "created_at", "n_responses")
    )
    assert [(v["version"], v["n_responses"]) for v in services.versions("kept")] == [(2, 0), (1, 1)]


def test_the_editors_menus_are_in_the_pages_language_each_time(author):
    """The menus' labels are translated once per language and kept (authoring.forms.
    shown_choices): English, then Polish, then English again in one process."""
    from django.utils import translation

    from studyapp.agentloop import catalogue

    subtopic, action = forms.SUBTOPIC_LABELS["guards"], catalogue.NEXT_ACTIONS["finish"].label
    with translation.override("pl"):
        polish = [str(subtopic), translation.gettext(action)]
    english = [str(subtopic), action]
    assert polish != english
    for prefix, words in (("", english), ("/pl", polish), ("", english)):
        html = author.get(f"{prefix}/author/questions/new/?kind=next_action").content.decode()
        for word in words:
            assert f">{escape(word)}</option>" in html, (prefix, word)


def test_an_imported_wrong_answer_without_a_trap_still_previews_and_is_named(author):
    """The editor's page reads the stored version through the schema once (check_both): the
    preview shows it as candidates see it, and the missing trap is among its problems."""
    question = make_question("single", slug="no-trap")
    wrong = question.options.filter(correct=False).first()
    wrong.family = ""
    wrong.save(update_fields=["family"])
    html = author.get(edit_url("no-trap")).content.decode()
    assert '<article class="question"' in html and "Stem of no-trap" in html
    as_bank = services.question_as_bank_dict(question)
    strict, lenient, problems = forms.check_both(as_bank)
    assert strict is None and lenient is not None  # refused as written here, shown as stored
    assert [p for p in problems if "family must be one of" in p] == [
        f"options[{i}].family must be one of {', '.join(schema.FAMILIES)}"
        for i, o in enumerate(as_bank["options"], 1)
        if not o.get("correct") and not o.get("family")
    ]
    # the same answers as the two separate checks the page used to run
    assert forms.check(as_bank) == (strict, problems)
    assert forms.check(as_bank, require_families=False) == (lenient, [])


def test_a_stored_version_the_schema_refuses_shows_what_is_still_to_do(author):
    question = make_question("single", slug="broken-stem")
    Question.objects.filter(pk=question.pk).update(stem="")
    html = author.get(edit_url("broken-stem")).content.decode()
    assert "Still to do:" in html and '<article class="question"' not in html


def test_the_editors_check_reads_back_a_next_line_character_as_written(author):
    """The editor's check (authoring/forms.py _schema, on the data; written out as bank YAML
    and read back, as it was, it gives the same: the test below): a NEL (U+0085) in a text
    comes back as the same text, and a saved question with one opens with it unchanged, not
    folded into a line break."""
    question = make_question("single", slug="nel-editor")
    Question.objects.filter(pk=question.pk).update(stem="Before\x85after")
    parsed, problems = forms.check(
        services.question_as_bank_dict(Question.objects.get(pk=question.pk))
    )
    assert problems == [] and parsed["stem"] == "Before\x85after"
    page = author.get(edit_url("nel-editor"))
    assert page.status_code == 200 and "Before\x85after" in page.content.decode()


#: Texts YAML would read as something else unless the dumper quotes or escapes them.
TRICKY = [
    "yes", "no", "on", "off", "null", "~", "true", "1", "1.5", "0x1F", "1e3", ".inf", "2026-12-01",
    "2026-12-01 10:00:00", "<<", "=", "- a", "a: b", "? x", "#x", "a #b", "'q'", '"q"', "%x",
    "@x", "`x", "|", ">", "!x", "&x", "*x", "[x", "{x", "---", "...", "\\x", " lead", "trail ",
    "a\n\nb\n", "\n\nx", "x\n\n", "\ttab", "a\r\nb", "\x85nel", "line\u2028sep", "\ufeffbom",
    "é 字 😀", "\x01ctl", "",
]  # fmt: skip


def _tricky_variants(question: dict) -> list[dict]:
    """The question valid, with a tricky text in every field and row (sources: all of them, so
    the messages that quote a value quote each), and with wrong values of every sort."""
    rows = kinds.of(question["kind"]).ROWS
    texts = {**question, "stem": "\n".join(TRICKY), "explanation": TRICKY[0], "sources": TRICKY}
    texts.update(concept=TRICKY[3], notes=TRICKY[14])
    wrong = {
        **question,
        "difficulty": "9",
        "subtopic": "=",
        "status": "<<",
        "kind": question["kind"],
    }
    # valid still, tricky texts where any text goes: parsed, and compared
    free = {**question, "stem": "\n".join(TRICKY), "explanation": " ".join(TRICKY[::-1]) + "."}
    if rows:
        free[rows] = [
            {**row, "why": TRICKY[i % len(TRICKY)] + " why"} if "why" in row else row
            for i, row in enumerate(question[rows])
        ]
    variants = [question, free, texts, wrong]
    if rows:
        variants[2] = {
            **texts,
            rows: [
                {key: (TRICKY[(i * 7 + j) % len(TRICKY)] if isinstance(v, str) else v)
                 for j, (key, v) in enumerate(row.items())}
                for i, row in enumerate(question[rows])
            ],
        }  # fmt: skip
        wrong[rows] = [{"<<": {"text": "x"}, "=": 1, "yes": None}, "not a row", 3]
    for key, value in question.items():
        if isinstance(value, dict | list) and key not in (rows, "sources"):  # a JSON field
            variants.append({**question, key: {"<<": value, "=": [TRICKY], "2026-12-01": 1.5}})
    return variants


def test_the_editors_check_on_the_data_is_the_check_of_the_file_it_would_write(monkeypatch):
    """authoring/forms.py _schema checks the editor's question as data; written out as a bank
    file and read back it gives the same question (but its line) and the same problems, for
    every kind, valid, with texts YAML reads as something else unless quoted, and wrong in
    every way; a question of more text than DATA_CHECK_MAX_CHARS is read as the file."""
    from tests.factories import new_questions

    stored = new_questions([(kind, f"fc-{i}", "guards") for i, kind in enumerate(ALL_KIND_BODIES)])
    checked = parsed = 0
    for question in map(services.question_as_bank_dict, stored):
        for variant in _tricky_variants(question):
            data, data_problems = forms._schema(variant)
            text, text_problems = forms._schema_as_file(variant)
            assert data_problems == text_problems, variant
            assert (data is None) == (text is None), variant
            if data is not None:
                assert {**data, "line": 0} == {**text, "line": 0}
                parsed += 1
            checked += 1
    assert checked > 40 and parsed >= 2 * len(stored)
    as_file = []
    monkeypatch.setattr(forms, "_schema_as_file", lambda q: as_file.append(q) or (None, []))
    big = {**question, "explanation": "x" * forms.DATA_CHECK_MAX_CHARS}
    assert forms._schema(big) == (None, []) and as_file == [big]
