"""Choices for the pickers of the authoring forms: notes sections and concepts."""

from __future__ import annotations

from core.prepared import prepared_rows
from quizzes.models import Question
from studyapp.notes.loader import NoteError, notes_in


def anchor_choices(notes: dict | None = None) -> list[tuple[str, list[tuple[str, str]]]]:
    """Every section of every note as note-slug#anchor, grouped by note (for a <select>): of
    ``notes`` (slug -> Note) or of notes_in(), the headings in the author's language."""
    if notes is None:
        try:
            notes = notes_in()  # the headings in the author's language, same anchors
        except NoteError:
            return []
    groups = []
    for note in notes.values():
        options = [(f"{note.slug}#{t['id']}", t["name"]) for t in note.toc if t.get("id")]
        if options:
            groups.append((note.title, options))
    return groups


def concept_choices() -> list[str]:
    """The concepts the bank already uses, for a datalist next to the concept field."""
    query = prepared_rows(  # compiled once per process (core/prepared.py)
        ("author-concepts",),
        lambda: Question.objects.current().order_by("concept").values_list("concept").distinct(),
    )
    return [concept for (concept,) in query.rows()]
