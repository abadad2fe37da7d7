"""The browser editor for the kinds Moodle users bring (short answer, numerical, essay) and the
optional ``today:`` id: form posts, the bank's messages next to the row they are about."""

from __future__ import annotations

import html as htmllib

import pytest

from quizzes import grading
from quizzes.models import Question
from studyapp.agentloop.changes import CHANGES

pytestmark = pytest.mark.django_db

COMMON = {
    "subtopic": "stop-reasons",
    "concept": "stop-reason-values",
    "difficulty": "2",
    "notes": "stop-reasons#max-tokens",
    "sources": "https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons",
    "stem": "Which `stop_reason` value ends a finished turn?",
    "explanation": "A finished turn ends with end_turn.",
}


def post_new(author, kind: str, rows: list[dict], save: str = "publish", **fields):
    data = {"kind": kind, "slug": f"ed-{kind.replace('_', '-')}", **COMMON, **fields}
    data.update({"opt-TOTAL_FORMS": len(rows), "opt-INITIAL_FORMS": 0, "save": save})
    for i, row in enumerate(rows):
        data.update({f"opt-{i}-{k}": v for k, v in row.items()})
    return author.post(f"/author/questions/new/?kind={kind}", data)


def page(response) -> str:
    return htmllib.unescape(response.content.decode())


def test_a_short_answer_question_is_written_in_the_browser_with_case_and_wildcards(author):
    rows = [
        {"text": "end_turn", "grade": "100", "why": "The turn is over."},
        {"text": "end*", "grade": "0", "why": "Not a value.", "family": "misread-contract"},
    ]
    response = post_new(author, "short_answer", rows, case_sensitive="on")
    assert response.status_code == 302
    q = Question.objects.current().get(slug="ed-short-answer")
    assert (q.status, q.origin, q.data["case_sensitive"]) == ("published", "browser", True)
    spec = q.grading_spec()
    assert grading.grade(spec, {"text": "end_turn"}).score == 1.0
    assert grading.grade(spec, {"text": "END_TURN"}).score == 0.0  # capitals count
    wild = grading.grade(spec, {"text": "endless"})
    assert (wild.score, wild.families) == (0.0, ["misread-contract"])
    edit = page(author.get(f"/author/questions/{q.slug}/edit/"))
    assert (
        'name="case_sensitive"' in edit and "checked" in edit.split('name="case_sensitive"')[1][:80]
    )
    assert "Accepted answers (tried in order)" in edit and "end*</textarea>" in edit


def test_a_numerical_question_keeps_its_tolerance_and_partial_grade(author):
    rows = [
        {"text": "7", "why": "Seven tools."},  # grade blank: 100
        {"text": "6", "tolerance": "0.5", "grade": "50", "why": "One short."},
    ]
    assert post_new(author, "numerical", rows).status_code == 302
    q = Question.objects.current().get(slug="ed-numerical")
    assert [(a["answer"], a["tolerance"], a["grade"]) for a in q.data["answers"]] == [
        (7.0, 0.0, 1.0),
        (6.0, 0.5, 0.5),
    ]
    assert grading.grade(q.grading_spec(), {"text": "6,4"}).score == 0.5


@pytest.mark.parametrize(
    "row, message",
    [
        ({"text": "seven", "why": "w"}, "answer must be a number or * (got 'seven')"),
        ({"text": "7", "grade": "150", "why": "w"}, "grade must be a percentage from 0 to 100"),
        ({"text": "7", "grade": "lots", "why": "w"}, "(got 'lots')"),
        ({"text": "7", "tolerance": "-1", "why": "w"}, "tolerance must be a number of at least 0"),
        ({"text": "7"}, "why is required"),
    ],
)
def test_a_bad_numerical_row_is_named_next_to_it_and_nothing_is_saved(author, row, message):
    response = post_new(author, "numerical", [row])
    html = page(response)
    assert response.status_code == 422 and "Not saved yet." in html
    assert message in html
    row_html = html.split("Answer 1")[1]
    assert message in row_html.split("Remove this row")[0]  # on the row itself
    assert not Question.objects.filter(slug="ed-numerical").exists()


def test_a_short_answer_question_needs_an_answer_worth_full_marks(author):
    response = post_new(author, "short_answer", [{"text": "end", "grade": "50", "why": "w"}])
    assert response.status_code == 422
    assert "one of the answers must be worth 100 % (grade: 100)" in page(response)


def test_a_short_answer_question_with_no_answer_at_all_says_so(author):
    response = post_new(author, "short_answer", [])
    assert response.status_code == 422
    assert "answers must list at least one accepted answer" in page(response)


def test_an_essay_question_is_written_with_its_model_answer(author):
    response = post_new(author, "essay", [], save="draft", model_answer="Check `stop_reason`.")
    assert response.status_code == 302
    q = Question.objects.current().get(slug="ed-essay")
    assert q.data["model_answer"] == "Check `stop_reason`." and q.status == "draft"
    assert "<code>stop_reason</code>" in q.data["model_answer_html"]


def test_an_essay_without_a_model_answer_is_refused_next_to_the_field(author):
    response = post_new(author, "essay", [])
    html = page(response)
    assert response.status_code == 422
    field = html.split('name="model_answer"')[1]
    assert "model_answer is required" in field[:600]


def test_the_editor_offers_every_change_id_and_saves_the_one_chosen(author):
    form = page(author.get("/author/questions/new/?kind=single"))
    select = form.split('name="today"')[1].split("</select>")[0]
    assert [i for i in CHANGES if f'value="{i}"' in select] == list(CHANGES)
    rows = [{"text": "end_turn", "why": "w"}]
    response = post_new(author, "short_answer", rows, today="sampling")
    assert response.status_code == 302
    q = Question.objects.current().get(slug="ed-short-answer")
    assert q.data["today"] == "sampling"
    edit = page(author.get(f"/author/questions/{q.slug}/edit/"))
    assert 'value="sampling" selected' in edit  # editing keeps it


def test_an_unknown_today_id_is_named_not_a_server_error(author):
    response = post_new(author, "essay", [], model_answer="m", today="no-such-rule")
    assert response.status_code == 422
    assert "Select a valid choice. no-such-rule is not one of the available choices." in page(
        response
    )


def test_the_live_preview_of_a_typed_answer_question_never_shows_the_answer(author):
    data = {"kind": "short_answer", **COMMON, "opt-TOTAL_FORMS": 1, "opt-INITIAL_FORMS": 0,
            "opt-0-text": "SECRET_VALUE", "opt-0-why": "w"}  # fmt: skip
    response = author.post("/author/questions/preview/", data)
    html = page(response)
    assert response.status_code == 200
    inputs = html.split('class="answer-form"')[1].split("</div>")[0]
    assert 'name="text"' in inputs and "SECRET_VALUE" not in inputs


def test_a_new_numerical_question_starts_with_a_row_asking_tolerance_and_grade(author):
    html = page(author.get("/author/questions/new/?kind=numerical"))
    assert "Accepted numbers (tried in order)" in html
    for name in ("opt-0-text", "opt-0-tolerance", "opt-0-grade", "opt-0-why", "opt-0-family"):
        assert f'name="{name}"' in html
    assert 'name="opt-0-correct"' not in html and 'name="opt-0-action"' not in html
    assert "Number (or * for any other number)" in html


@pytest.mark.parametrize("grade", ["1e400", "nan", "-5", "100 percent"])
def test_odd_grades_are_refused_in_words(author, grade):
    response = post_new(author, "short_answer", [{"text": "end_turn", "grade": grade, "why": "w"}])
    assert response.status_code == 422
    assert "grade must be a percentage from 0 to 100" in page(response)


@pytest.mark.parametrize(
    "kind, labels",
    [
        ("single", {"text": "Text", "why": "Why (shown after answering)",
                    "family": "Trap (for a wrong option)"}),
        ("numerical", {"text": "Number (or * for any other number)", "tolerance": "Tolerance (±)",
                       "grade": "Grade (%)", "family": "Trap (for a wrong option)"}),
        ("matching", {"text": "Left-hand item", "right": "Matches (right-hand text)"}),
    ],
)  # fmt: skip
def test_each_row_field_has_its_own_label(author, kind, labels):
    html = page(author.get(f"/author/questions/new/?kind={kind}"))
    for field, label in labels.items():
        assert f'<label for="id_opt-0-{field}">{label}</label>' in html, field
