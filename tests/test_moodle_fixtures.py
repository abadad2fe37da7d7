"""Files in the shapes of Moodle's own import fixtures (issue 13): every question Moodle imports is
imported, with its HTML, idnumber and category; every one Moodle refuses is refused with Moodle's
reason. The files are ours (tests/fixtures/moodle/), modelled on moodle/moodle
question/format/xml/tests/fixtures/*.xml and question/format/gift/tests/fixtures/*.gift.txt.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from quizzes import importing
from quizzes.formats import CLOZE_REASON, Defaults, gift, moodlexml, to_bank

FIXTURES = Path(__file__).parent / "fixtures" / "moodle"
XML = (FIXTURES / "moodle_suite_shapes.xml").read_text()
GIFT = (FIXTURES / "moodle_suite_shapes.gift.txt").read_text()
DEFAULTS = Defaults("loop-basics", "stop-reasons#max-tokens", "https://example.com/doc")
STOP, ESSAYS = "$course$/Loop/Stop reasons", "$course$/Loop/Stop reasons/Essays"
TOOLS, SERVER = "$course$/Loop/Tool results", "$course$/Loop/Server tools"
SANITISED = "removed by the sanitiser (not on the bank's allowlist): "


def _read(module, text):
    parsed = module.parse(text)
    mapped = {q.name: to_bank(q, DEFAULTS, f"q-{i}", i) for i, q in enumerate(parsed.questions, 1)}
    return parsed, mapped


@pytest.fixture(scope="module")
def xml():
    return _read(moodlexml, XML)


@pytest.fixture(scope="module")
def gift_file():
    return _read(gift, GIFT)


# name: (kind, category, idnumber, what of the HTML is kept in the stem)
XML_IMPORTED = {
    "TF entities": ("truefalse", STOP, "T & F <1>", "A <strong>tool_use</strong> turn &amp; an"),
    "TF media": ("truefalse", STOP, None, "ends on <span>end_turn</span>."),
    "TF localised": ("truefalse", STOP, None, "end_turn ends the loop."),
    "Essay no grader info": ("essay", ESSAYS, "essay-1", "Say why the loop must not end"),
    "Essay with grader info": ("essay", ESSAYS, None, "<p>What does <code>pause_turn</code>"),
    "MC old image": ("single", ESSAYS, None, "Which block carries the tool call?"),
    "MC html": ("single", ESSAYS, "mc-html", '<a href="https://platform.claude.com/docs/en/'),
}
# name: Moodle's reason (or ours, for a kind Moodle has and we don't)
XML_SKIPPED = {
    "Cloze fine": CLOZE_REASON,
    "Cloze no subquestion": "Invalid embedded answers (Cloze) question (The question text must "
    "include at least one embedded answer.).",
    "Cloze no choices": "Invalid embedded answers (Cloze) question (The question text must "
    "include at least one embedded answer.).",
    "Cloze one choice": "Invalid embedded answers (Cloze) question (This type of question "
    "requires at least 2 choices).",
    "Cloze no full marks": "Invalid embedded answers (Cloze) question (One of the answers should "
    "have a score of 100% so it is possible to get full marks for this question.).",
    "Cloze bad number": "Invalid embedded answers (Cloze) question (The answer must be a number, "
    "for example -1.234 or 3e8, or '*'.).",
    "Calculated": "Question type calculated is not supported: Loopcraft has no such kind",
    "Description": "Question type description (no answer) is not supported: Loopcraft has no "
    "such kind",
}


def test_the_xml_file_has_every_question_in_one_of_the_tables(xml):
    parsed, mapped = xml
    assert set(mapped) == set(XML_IMPORTED) | set(XML_SKIPPED)
    # Refused while reading, as Moodle refuses it (qformat_xml / question: invalidgrade).
    assert [(e.where, e.name, e.message) for e in parsed.errors] == [
        ("quiz/question[8]", "Invalid grades : x > 1 & x < 2",
         "Grades (0.33) do not match grade options - question skipped."),
    ]  # fmt: skip


@pytest.mark.parametrize("name", list(XML_IMPORTED))
def test_each_xml_question_moodle_imports_is_imported_with_html_idnumber_category(xml, name):
    kind, category, idnumber, html = XML_IMPORTED[name]
    m = xml[1][name]
    assert m.skipped == "" and m.question is not None
    assert m.question["kind"] == kind
    assert m.source.category == category
    assert m.question.get("idnumber") == idnumber
    assert html in m.question["stem"]


@pytest.mark.parametrize("name", list(XML_SKIPPED))
def test_each_xml_question_moodle_refuses_or_we_lack_is_skipped_with_the_reason(xml, name):
    m = xml[1][name]
    assert m.question is None and m.skipped == XML_SKIPPED[name]


def test_xml_details_moodle_keeps(xml):
    m = xml[1]
    entities = m["TF entities"].question
    assert [o["text"] for o in entities["options"] if o.get("correct")] == ["False"]
    assert [o["why"] for o in entities["options"]] == ["Only tool_use does.", "Right."]
    media = m["TF media"]
    assert media.warnings == [SANITISED + "<img>, style on <span>"]
    assert media.question["explanation"] == (
        '<p>See <a title="Stop reasons" href="http://docs.example.com/stop" '
        'rel="noopener noreferrer">the notes</a>.</p>'
    )
    localised = m["TF localised"]
    assert [o["text"] for o in localised.question["options"] if o.get("correct")] == ["True"]
    assert localised.warnings[0].startswith("Warning: The true/false question 'end_turn ends")
    assert "assuming that the answer is 'true'" in localised.warnings[0]
    assert m["Essay no grader info"].warnings == [
        "no model answer in the file: write one before publishing"
    ]
    assert m["Essay with grader info"].question["model_answer"] == (
        "<p>Send the paused turn back <em>as it is</em>.</p>"
    )
    old = m["MC old image"]
    assert [o["text"] for o in old.question["options"]] == ["text", "tool_use", "thinking"]
    assert old.warnings == [SANITISED + "<img>"]  # Moodle appends the 1.9 picture as an <img>
    html = m["MC html"]
    assert html.warnings == [SANITISED + "<script>"] and "alert" not in html.question["stem"]
    assert html.question["options"][0] == {"text": "<code>tool_use</code>", "why": "Yes.",
                                           "correct": True}  # fmt: skip


# name: (kind, category, what of the HTML is kept in the stem)
GIFT_IMPORTED = {
    "Essay": ("essay", TOOLS, "Explain in your own words"),
    "Match results": ("matching", TOOLS, "Match the <strong>block</strong> to what it carries."),
    "Which role": ("single", TOOLS, "Which role carries the tool results?"),
    "Two rules": ("multiple", TOOLS, "Which TWO are true"),
    "Results count": ("numerical", TOOLS, "how many tool_result blocks?"),
    "Block type": ("short_answer", TOOLS, "Which block type carries a result?"),
    "Results split": ("truefalse", TOOLS, "may be split over several user messages."),
    "2-08 TR": ("truefalse", TOOLS, "A tool_result goes in a user message."),  # the second one
    "Listen": ("single", SERVER, '<a href="https://example.com/pause.mp3" rel="noopener'),
    "Server tool": ("short_answer", SERVER, "web_search runs on ..."),
    "Server side": ("truefalse", SERVER, "web_search runs <span>on Anthropic's side</span>."),
}


def test_the_gift_file_imports_every_question_as_moodle_does(gift_file):
    parsed, mapped = gift_file
    assert parsed.errors == []
    assert [q.name for q in parsed.questions].count("2-08 TR") == 2  # Moodle imports both
    assert set(mapped) == set(GIFT_IMPORTED)


@pytest.mark.parametrize("name", list(GIFT_IMPORTED))
def test_each_gift_question_is_imported_with_its_kind_html_and_category(gift_file, name):
    kind, category, html = GIFT_IMPORTED[name]
    m = gift_file[1][name]
    assert m.skipped == "" and m.question["kind"] == kind
    assert m.source.category == category
    assert html in m.question["stem"]


def test_gift_details_moodle_keeps(gift_file):
    m = gift_file[1]
    pairs = m["Match results"].question
    assert [(p["left"], p["right"]) for p in pairs["pairs"]] == [
        ("The model's request to run a tool.", "tool_use"),
        ("What your code sends back.", "tool_result"),
        ("The model's words.", "text"),
        ("The model's reasoning.", "thinking"),
    ]
    assert pairs["extra_rights"] == ["image"]
    # ~#feedback is Moodle's catch-all: a "*" answer worth 0 % with that feedback.
    assert [
        (a["answer"], a["grade"], a["why"]) for a in m["Results count"].question["answers"]
    ] == [
        (2, 100, "TODO (imported without feedback): say why this option is right or wrong."),
        ("*", 0, "Each call needs its own result"),
    ]
    block = m["Block type"].question["answers"]
    assert [(a["answer"], a["grade"]) for a in block] == [("tool_result", 100), ("tool*", 50),
                                                         ("*", 0)]  # fmt: skip
    assert m["Two rules"].warnings == [
        "wrong answers are worth -100 % in the file; Loopcraft deducts 50 % per wrong pick"
    ]
    split = m["Results split"].question
    assert (
        split["explanation"] == "The API expects every result of a turn in the next user message."
    )
    assert [(o["text"], o.get("correct", False), o["why"]) for o in split["options"]] == [
        ("True", False, "They all go in one message."),
        ("False", True, "Right: one message."),
    ]
    assert m["Server side"].warnings == [SANITISED + "style on <span>"]


@pytest.mark.django_db
def test_the_whole_gift_file_previews_with_categories_mapped_and_both_same_name_questions():
    defaults = Defaults(
        "", "stop-reasons#max-tokens", "https://example.com/doc",
        categories={TOOLS: "tool-results", SERVER: "server-tools"},
    )  # fmt: skip
    preview = importing.import_preview(GIFT, "auto", defaults)
    assert preview.format == "gift" and preview.errors == [] and preview.skipped == []
    assert preview.categories == [(TOOLS, "tool-results"), (SERVER, "server-tools")]
    subtopics = {r.parsed["stem"][:20]: r.parsed["subtopic"] for r in preview.rows}
    assert subtopics["Explain in your own "] == "tool-results"
    assert subtopics["web_search runs on ."] == "server-tools"
    slugs = [r.slug for r in preview.rows if r.source.name == "2-08 TR"]
    assert len(slugs) == 2 and len(set(slugs)) == 2
    assert preview.count_create == len(GIFT_IMPORTED) + 1


@pytest.mark.django_db
def test_the_whole_xml_file_previews_with_moodles_refusals_named():
    preview = importing.import_preview(XML, "auto", DEFAULTS)
    assert [e.message for e in preview.errors] == [
        "Grades (0.33) do not match grade options - question skipped."
    ]
    assert {s.name: s.reason for s in preview.skipped} == XML_SKIPPED
    rows = {r.source.name: r for r in preview.rows}
    assert set(rows) == set(XML_IMPORTED)
    assert rows["TF entities"].parsed["idnumber"] == "T & F <1>"
