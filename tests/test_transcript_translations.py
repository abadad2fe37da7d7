"""Structure check of the translated transcripts (content/transcripts/<lang>/<slug>.yaml).

Only the learner-facing prose is translated (title, summary, one note slot per turn); every API
name, value and field name the English prose quotes must survive verbatim.
"""

import json
import re
from pathlib import Path

import pytest
import yaml

from studyapp.sandbox.library import TRANSLATION_KEYS

#: the safe loader with libyaml's C parser, as the app reads these files
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

TRANSCRIPTS = Path(__file__).resolve().parents[1] / "content" / "transcripts"
LANGUAGES = ("zh-hans", "zh-hant", "pl")
CODE_SPAN = re.compile(r"`([^`]+)`")
# snake_case names, dotted paths and id prefixes (tool_use, usage.input_tokens, srvtoolu_); ASCII
# boundaries, so a name written next to Chinese text is still found
IDENTIFIER = re.compile(
    r"(?<![A-Za-z0-9_.])[A-Za-z][A-Za-z0-9]*(?:(?:[._][A-Za-z0-9]+)+_?|_)(?![A-Za-z0-9_])"
)


def _english():
    return {
        p.stem: json.loads(p.read_text(encoding="utf-8"))
        for p in sorted(TRANSCRIPTS.glob("*.json"))
    }


def _translations():
    return sorted(p for lang in LANGUAGES for p in (TRANSCRIPTS / lang).glob("*.yaml"))


def _prose(title, summary, notes):
    return [("title", title), ("summary", summary)] + [
        (f"note {i}", n) for i, n in enumerate(notes, start=1)
    ]


def _numbers(text: str) -> list[str]:
    """Every number, with thousands separators dropped (61,000 in English, 61 000 in Polish)."""
    return sorted(re.findall(r"\d+(?:\.\d+)?", re.sub(r"(?<=\d)[ ,\u00a0](?=\d{3}\b)", "", text)))


def _identifiers(text: str) -> set[str]:
    return set(IDENTIFIER.findall(text or ""))


def test_every_language_translates_every_transcript():
    english = set(_english())
    for lang in LANGUAGES:
        translated = {p.stem for p in (TRANSCRIPTS / lang).glob("*.yaml")}
        assert translated == english, (lang, english ^ translated)


@pytest.mark.parametrize("path", _translations(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_translated_transcript_matches_its_english_structure(path):
    en = _english()[path.stem]
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=SAFE_LOADER)  # noqa: S506
    assert set(data) <= TRANSLATION_KEYS, set(data) - TRANSLATION_KEYS
    assert data["lang"] == path.parent.name and data["slug"] == en["slug"] == path.stem
    notes = data.get("notes") or []
    assert len(notes) == len(en["turns"]), "exactly one note slot per turn"
    english_notes = [t.get("note") for t in en["turns"]]
    for i, (mine, theirs) in enumerate(zip(notes, english_notes, strict=True), start=1):
        assert (mine is None) == (theirs is None), f"note {i}: a slot where English has none"
    pairs = zip(
        _prose(en["title"], en["summary"], english_notes),
        _prose(data.get("title"), data.get("summary"), notes),
        strict=True,
    )
    for (field, english), (_, translated) in pairs:
        if translated is None:
            continue
        assert set(CODE_SPAN.findall(translated)) == set(CODE_SPAN.findall(english)), field
        assert _identifiers(translated) == _identifiers(english), field
        assert _numbers(translated) == _numbers(english), field
