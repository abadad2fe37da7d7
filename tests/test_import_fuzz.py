"""Fuzzed imports: whatever an instructor pastes, the importer answers in words, never crashes."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from .fuzzing import fuzz
from .imports import preview_in_words

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


@fuzz()
@given(_noisy(GIFT_BITS))
def test_fuzzed_gift_never_crashes(text):
    preview_in_words(text, "gift")


@fuzz()
@given(_noisy(XML_BITS))
def test_fuzzed_moodle_xml_never_crashes(text):
    preview_in_words(text, "moodlexml")


@fuzz()
@given(st.text(max_size=300))
def test_fuzzed_yaml_and_detection_never_crash(text):
    preview_in_words(text, "auto")
    preview_in_words(text, "yaml")
