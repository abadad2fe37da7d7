"""Reading progress: which notes a visitor has read, anonymous or signed in."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from core.owners import Owner, owned_rows

from .models import NoteRead


def read_slugs(owner: Owner) -> set[str]:
    """One query (none for a visitor who owns nothing yet)."""
    rows = owned_rows(  # its SQL compiled once (core/owners.owned_rows); none for no owner
        "notes-read", owner, lambda owned: owned(NoteRead.objects).values_list("note_slug")
    )
    return {slug for (slug,) in rows}


def set_read(owner: Owner, slug: str, read: bool = True) -> None:
    rows = NoteRead.objects.owned_by(owner).filter(note_slug=slug)
    if not read:
        rows.delete()
        return
    if rows.exists():
        return
    try:
        with transaction.atomic():
            NoteRead.objects.create(user=owner.user, owner_token=owner.token, note_slug=slug)
    except IntegrityError:
        pass  # a second tab marked it read at the same moment: it is read either way
