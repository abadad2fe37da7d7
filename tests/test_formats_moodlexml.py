"""Moodle XML import as Moodle reads it (REFERENCE.md §2b), and the mapping onto our kinds."""

from pathlib import Path

import pytest

from quizzes.formats import Defaults, FormatError, detect, moodlexml, to_bank

FIXTURES = Path(__file__).parent / "fixtures" / "formats"
DEFAULTS = Defaults("", "tool-choice#modes", "https://example.com/doc")


@pytest.fixture(scope="module")
def features():
    result = moodlexml.parse((FIXTURES / "moodle_features.xml").read_text())
    assert result.errors == []
    return {q.name: q for q in result.questions}


def test_it_reads_every_question_with_its_element_path_and_category(features):
    assert [q.where for q in features.values()] == [f"quiz/question[{i}]" for i in range(2, 11)]
    assert {q.category for q in features.values()} == {"$course$/Top/tool-choice"}


def test_single_choice_html_is_kept_sanitised_and_feedback_becomes_why(features):
    m = to_bank(features["Forced tool"], DEFAULTS, "forced")
    q = m.question
    assert q["kind"] == "single"
    assert q["subtopic"] == "tool-choice"  # from the category path
    assert (
        q["stem"] == "<p>Which <code>tool_choice</code> forces <strong>one named</strong> tool?</p>"
    )
    assert q["explanation"] == "<p>Use type tool with a name.</p>"
    assert m.question["idnumber"] == "tc-1"
    assert [(o["text"], o.get("correct", False), o["why"]) for o in q["options"]] == [
        ('{"type": "tool", "name": "x"}', True, "Names the tool."),
        ('{"type": "any"}', False, "Any tool, not one."),
        ('{"type": "auto"}', False, "Claude decides."),
    ]


def test_multiple_response_with_thirds(features):
    q = features["Three right"]
    assert q.single is False and q.text_format == "markdown"
    m = to_bank(q, DEFAULTS, "three")
    assert m.question["kind"] == "multiple" and m.warnings == []
    assert sum(o.get("correct", False) for o in m.question["options"]) == 3


def test_true_false_and_matching(features):
    tf = to_bank(features["TF none"], DEFAULTS, "tf").question
    assert [(o["text"], o.get("correct", False)) for o in tf["options"]] == [
        ("True", True),
        ("False", False),
    ]
    match = to_bank(features["Match choices"], DEFAULTS, "m").question
    assert [p["left"] for p in match["pairs"]] == ["auto", "any", "none"]
    assert match["extra_rights"] == ["Two tools at once"]


@pytest.mark.parametrize("name", ["Description", "Cloze"])
def test_types_we_do_not_support_are_skipped_with_a_reason(features, name):
    m = to_bank(features[name], DEFAULTS, "x")
    assert m.question is None and "not supported" in m.skipped


MALFORMED = [
    ("quiz/question[1]", "Bad grade", "Grades (0.33) do not match grade options - question "
     "skipped."),
    ("quiz/question[2]", "One choice", "This type of question requires at least 2 choices"),
    ("quiz/question[3]", "No full marks", "One of the choices should be 100%, so that it is "
     "possible to get a full grade for this question."),
    ("quiz/question[4]", "Not 100 in total", "The positive grades you have chosen do not add up "
     "to 100%. Instead, they add up to 50%"),
    ("quiz/question[5]/questiontext", "No text", "Missing question text in XML file"),
    ("quiz/question[6]", "Unknown type", "Question type dragndropmagic is not supported by XML "
     "import"),
]  # fmt: skip


def test_malformed_questions_give_moodles_errors_with_the_element():
    result = moodlexml.parse((FIXTURES / "moodle_malformed.xml").read_text())
    assert [(e.where, e.name, e.message) for e in result.errors] == MALFORMED
    # Moodle imports a true/false question with neither answer at 100 %: the last answer read
    # decides (the false answer is not worth 100 %, so "true" is right); we say so.
    (unclear,) = result.questions
    assert unclear.name == "TF unclear"
    assert [(a.text, a.fraction) for a in unclear.answers] == [("True", 1.0), ("False", 0.0)]
    assert unclear.warnings == [
        "neither or both answers are worth 100 %: Moodle reads that as True"
    ]


def test_xml_that_is_not_well_formed_names_the_line():
    with pytest.raises(FormatError, match="Invalid XML file.*mismatched tag: line 5"):
        moodlexml.parse((FIXTURES / "moodle_not_well_formed.xml").read_text())


@pytest.mark.parametrize(
    "text",
    [
        '<?xml version="1.0"?><!DOCTYPE quiz [<!ENTITY a "aaaa">]><quiz>&a;</quiz>',
        '<?xml version="1.0"?><questions/>',
    ],
)
def test_entities_and_other_roots_are_refused(text):
    with pytest.raises(FormatError):
        moodlexml.parse(text)


@pytest.mark.parametrize(
    "text, fmt",
    [
        ('<?xml version="1.0" encoding="UTF-8"?>\n<quiz/>', "moodlexml"),
        ("# bank\nquestions:\n  - slug: a", "yaml"),
        ("::t::Is it?{T}", "gift"),
    ],
)
def test_format_detection(text, fmt):
    assert detect(text) == fmt
