"""{% reading_progress %}: the notes read so far, for /me/ (one query)."""

from django import template

from core.owners import get_owner

from ..loader import notes_in
from ..progress import read_slugs

register = template.Library()


@register.inclusion_tag("notes/_reading_progress.html", takes_context=True)
def reading_progress(context):
    request = context["request"]
    notes = list(notes_in().values())  # titles in the page's language
    read = read_slugs(get_owner(request, create=False))
    return {
        "total": len(notes),
        "read_count": sum(1 for n in notes if n.slug in read),
        "unread": [n for n in notes if n.slug not in read],
    }
