"""GIFT import as Moodle reads it (REFERENCE.md §2a), and the mapping onto our kinds."""

from pathlib import Path

import pytest

from quizzes.formats import Defaults, gift, to_bank

FIXTURES = Path(__file__).parent / "fixtures" / "formats"
DEFAULTS = Defaults("stop-reasons", "stop-reasons#max-tokens", "https://example.com/doc")


@pytest.fixture(scope="module")
def features():
    result = gift.parse((FIXTURES / "gift_features.gift.txt").read_text())
    assert result.errors == []
    return {q.name: q for q in result.questions}


def test_it_reads_every_question_and_drops_comments_and_categories(features):
    assert len(features) == 17
    assert all(q.category == "$course$/Top/stop-reasons" for q in features.values())


def test_single_choice_with_title_feedback_and_general_feedback(features):
    q = features["Stop on max_tokens"]
    assert (q.qtype, q.single, q.where) == ("multichoice", True, "line 7")
    assert q.text == 'A response ends with `stop_reason: "max_tokens"`. What now?'
    assert [(a.text, a.fraction, a.feedback) for a in q.answers] == [
        ("Raise max_tokens or ask for the rest.", 1.0, "The text was cut off."),
        ("Use the text as the final answer.", 0.0, "It is incomplete."),
        ("Run the tools again.", 0.0, "There may be no tool call at all."),
    ]
    assert q.general_feedback == "max_tokens means the output limit was reached."


@pytest.mark.parametrize(
    "name, true_fraction", [("TF true", 1.0), ("TF T", 1.0), ("TF F", 0.0), ("TF end_turn", 0.0)]
)
def test_true_false_spellings(features, name, true_fraction):
    q = features[name]
    assert q.qtype == "truefalse"
    assert [(a.text, a.fraction) for a in q.answers] == [
        ("True", true_fraction),
        ("False", 1 - true_fraction),
    ]


def test_true_false_feedback_is_wrong_answer_first_then_right_answer(features):
    q = features["TF end_turn"]  # {FALSE#No: tool_use does.#Right: end_turn ends the loop.}
    by_text = {a.text: a.feedback for a in q.answers}
    assert by_text == {"True": "No: tool_use does.", "False": "Right: end_turn ends the loop."}
    assert features["TF general"].general_feedback == "Refusals are not errors to retry."


def test_multiple_response_when_no_answer_has_an_equals_sign(features):
    q = features["Two right [tool-results]"]
    assert q.single is False
    assert [a.fraction for a in q.answers] == [0.5, 0.5, -0.5, -0.5]


def test_matching_with_a_distractor(features):
    q = features["Match stop reasons"]
    assert q.qtype == "match"
    assert q.pairs == [
        ("end_turn", "Finish"),
        ("tool_use", "Run the tools"),
        ("pause_turn", "Resend the paused turn"),
        ("", "Retry unchanged"),
    ]


def test_format_tags_are_read_and_removed(features):
    q = features["Formats"]
    assert (q.text_format, q.text) == ("markdown", "Which *one* is a server tool?")
    assert q.answers[0].feedback == "<b>Runs</b> at Anthropic."


def test_escapes(features):
    q = features["Escapes: all of them"]
    assert q.text == "Is a=b {set} ~ #1 a path C:\\tmp?\nSecond line."


def test_missing_word_puts_a_blank_where_the_answers_were(features):
    q = features["Missing word"]
    assert q.text == "The loop stops when stop_reason is _____ and not before."


@pytest.mark.parametrize(
    "name, qtype",
    [
        ("Num tol", "numerical"),
        ("Num range", "numerical"),
        ("Num graded", "numerical"),
        ("Short", "shortanswer"),
        ("Essay", "essay"),
        ("Description", "description"),
    ],
)
def test_type_detection_for_the_types_we_skip(features, name, qtype):
    assert features[name].qtype == qtype


def test_weights_of_numerical_and_short_answers(features):
    # "~#no" is the feedback for any other number: Moodle stores it as a "*" answer worth 0 %.
    assert [(a.text, a.fraction, a.feedback) for a in features["Num graded"].answers] == [
        ("3:0", 1.0, "exact"),
        ("3:1", 0.5, "close"),
        ("*", 0.0, "no"),
    ]
    assert [(a.text, a.fraction) for a in features["Short"].answers] == [
        ("tool_use", 1.0),
        ("tool*", 0.5),
    ]


MALFORMED = [
    ("line 3", "No closing brace", "Could not find {...} around answers"),
    ("line 5", "No opening brace", "Could not find {...} around answers"),
    ("line 7", "One choice", "There is an error in the question. There are not enough answers "
     "for this question type"),
    ("line 9", "Bad weight", "Grades (0.33) do not match grade options - question skipped."),
    ("line 11", "Matching without arrow", "Matching question answers are improperly formatted"),
    ("line 13", "Matching too few", "There is an error in the question. There are not enough "
     "answers for this question type"),
    ("line 15", "Numerical empty", "No answers found for numerical question"),
    ("line 17", "Numerical not a number", "Error - answers must be numeric"),
    ("line 19", "Multi not 100", "The positive grades you have chosen do not add up to 100%. "
     "Instead, they add up to 50%"),
]  # fmt: skip


def test_malformed_questions_give_moodles_errors_with_their_line():
    result = gift.parse((FIXTURES / "gift_malformed.gift.txt").read_text())
    assert [(e.where, e.name, e.message) for e in result.errors] == MALFORMED
    assert [q.name for q in result.questions] == ["Fine"]


def _map(q, slug="s"):
    return to_bank(q, DEFAULTS, slug)


def test_single_choice_maps_with_feedback_as_why_and_no_trap_family(features):
    m = _map(features["Stop on max_tokens"])
    q = m.question
    assert (q["kind"], q["status"], q["subtopic"]) == ("single", "draft", "stop-reasons")
    assert q["options"][0] == {
        "text": "Raise max_tokens or ask for the rest.",
        "why": "The text was cut off.",
        "correct": True,
    }
    assert "family" not in q["options"][1]  # untagged until the instructor picks one
    assert q["explanation"] == "max_tokens means the output limit was reached."
    assert any("trap family left unset" in f for f in m.filled)


def test_subtopic_from_a_bracketed_tag_in_the_name_wins_over_the_category(features):
    m = _map(features["Two right [tool-results]"])
    assert (m.question["kind"], m.question["subtopic"]) == ("multiple", "tool-results")
    assert m.warnings == []  # -50 % per wrong pick is exactly our grading for two right answers


def test_multiple_response_with_unpenalised_wrong_answers_warns_about_grading():
    q = gift.parse("Which?{~%50%a ~%50%b ~c ~d}").questions[0]
    m = _map(q)
    assert m.question["kind"] == "multiple"
    assert m.warnings == [
        "wrong answers are worth 0 % in the file; Loopcraft deducts 50 % per wrong pick"
    ]


def test_unequal_positive_weights_are_skipped_with_the_reason():
    q = gift.parse("Which?{~%70%a ~%30%b ~c ~d}").questions[0]
    assert "weighted 70 %, 30 %" in _map(q).skipped


def test_partial_credit_in_single_choice_is_skipped_with_the_reason():
    q = gift.parse("Which?{=a ~%50%b ~c}").questions[0]
    assert "partial or negative credit (50 %)" in _map(q).skipped


@pytest.mark.parametrize("name", ["Description"])
def test_unsupported_types_are_skipped_with_a_reason(features, name):
    m = _map(features[name])
    assert m.question is None
    assert "is not supported" in m.skipped


def test_matching_maps_pairs_and_extra_rights(features):
    q = _map(features["Match stop reasons"]).question
    assert [(p["left"], p["right"]) for p in q["pairs"]][0] == ("end_turn", "Finish")
    assert q["extra_rights"] == ["Retry unchanged"]


def test_export_escapes_what_gift_reserves():
    assert gift.escape("a:b#c=d~e{f}g\\h\nnext\r") == "a\\:b\\#c\\=d\\~e\\{f\\}g\\\\h\\nnext"
    text = "Is a:b {x} = ~ #1 C:\\tmp?\nline two"
    q = gift.parse(f"::t::{gift.escape(text)}{{TRUE}}").questions[0]
    assert q.text == text
