"""What the importer's tests share: the import form's defaults, the GIFT fixture with every
feature, and the check that an import answers in words whatever it is given."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).parent / "fixtures" / "formats"

#: The defaults the import form posts (subtopic, notes anchor, source, trap family).
FORM_DEFAULTS = {
    "default_subtopic": "stop-reasons",
    "default_notes": "stop-reasons#max-tokens",
    "default_source": "https://example.com/doc",
    "default_family": "misread-contract",
}


def gift_features() -> str:
    return (FIXTURES / "gift_features.gift.txt").read_text()


def preview_in_words(text: str, fmt: str) -> None:
    """The import preview of ``text`` either works or fails with a FormatError that says why;
    every problem it lists has words. Anything else (a crash) fails the calling test."""
    from quizzes.formats import FormatError
    from quizzes.importing import import_preview

    try:
        preview = import_preview(text, fmt)
    except FormatError as e:  # the one error type the importer raises, in words
        assert str(e)
        return
    for issue in preview.errors:
        assert str(issue)
