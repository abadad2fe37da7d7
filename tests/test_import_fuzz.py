"""Fuzzed imports: whatever an instructor pastes, the importer answers in words, never crashes."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quizzes.formats import FormatError
from quizzes.importing import import_preview

from .fuzzing import fuzz

pytestmark = pytest.mark.django_db

GIFT_BITS = [
    "::",
    "{",
    "}",
    "=",
    "~",
    "%50%",
    "#",
    "->",
    "$CATEGORY:",
    "[html]",
    "\\",
    "\n\n",
    "TRUE",
    "F",
    "//",
    "####",
    ":",
    "..",
    "1:2",
    "=%100%",
]
XML_BITS = [
    "<quiz>",
    "</quiz>",
    '<question type="multichoice">',
    "</question>",
    "<name>",
    "<text>",
    "</text>",
    '<answer fraction="100">',
    "</answer>",
    "<![CDATA[",
    "]]>",
    "&amp;",
    "<!DOCTYPE x [<!ENTITY a 'b'>]>",
    '<questiontext format="html">',
]


def _noisy(bits):
    return st.lists(st.one_of(st.sampled_from(bits), st.text(max_size=12)), max_size=40).map(
        "".join
    )


def _preview(text, fmt):
    try:
        preview = import_preview(text, fmt)
    except FormatError as e:  # the one error type the importer raises, in words
        assert str(e)
        return
    for issue in preview.errors:
        assert str(issue)


@fuzz()
@given(_noisy(GIFT_BITS))
def test_fuzzed_gift_never_crashes(text):
    _preview(text, "gift")


@fuzz()
@given(_noisy(XML_BITS))
def test_fuzzed_moodle_xml_never_crashes(text):
    _preview(text, "moodlexml")


@fuzz()
@given(st.text(max_size=300))
def test_fuzzed_yaml_and_detection_never_crash(text):
    _preview(text, "auto")
    _preview(text, "yaml")
