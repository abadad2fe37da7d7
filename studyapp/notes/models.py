"""What the notes keep per visitor (reading progress) and the search index over notes."""

from __future__ import annotations

from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.owners import OwnedModel


class NoteRead(OwnedModel):
    """A note a visitor has read to the end (or marked read): a user's, or a session's."""

    note_slug = models.SlugField(max_length=80)
    read_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "note_slug"],
                condition=Q(user__isnull=False),
                name="note_read_once_per_user",
            ),
            models.UniqueConstraint(
                fields=["owner_token", "note_slug"],
                condition=Q(user__isnull=True),
                name="note_read_once_per_token",
            ),
        ]

    @classmethod
    def claim(cls, token: str, user) -> int:
        """One row per note and owner: a note read in both places stays read once."""
        anonymous = cls.objects.anonymous(token)
        already = cls.objects.filter(user=user).values("note_slug")
        anonymous.filter(note_slug__in=already).delete()
        return anonymous.update(user=user)

    def __str__(self) -> str:
        return f"{self.note_slug} read by {self.user_id or 'anonymous'}"


class SearchDoc(models.Model):
    """One searchable unit: a section of a note, or a glossary term.

    The full-text index itself depends on the database: an FTS5 table on SQLite (made by the
    migration), a tsvector computed in the query on PostgreSQL. See ``studyapp.notes.search``.
    """

    class Kind(models.TextChoices):
        NOTE = "note"
        TERM = "term"
        SIGNATURE = "signature"  # one row: which content the index was built from

    kind = models.CharField(max_length=10, choices=Kind.choices)
    url = models.CharField(max_length=200)
    title = models.CharField(max_length=300)
    context = models.CharField(max_length=200, blank=True)  # the note a section belongs to
    body = models.TextField()
    #: The page language this unit is found from (a Django code; English stands in for a
    #: missing translation, so every language finds every note).
    lang = models.CharField(max_length=10, default="en", db_index=True)

    def __str__(self) -> str:
        return self.title
