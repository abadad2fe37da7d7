"""On log-in, the notes read in this browser move to the account (like attempts do)."""

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from quizzes.owners import SESSION_KEY


@receiver(user_logged_in)
def claim_reading_progress(sender, request, user, **kwargs):
    from .models import NoteRead

    token = request.session.get(SESSION_KEY) if request is not None else None
    if not token:
        return
    anonymous = NoteRead.objects.filter(user=None, owner_token=token)
    already = NoteRead.objects.filter(user=user).values("note_slug")
    anonymous.filter(note_slug__in=already).delete()
    anonymous.update(user=user, owner_token="")
