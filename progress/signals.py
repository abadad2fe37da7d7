"""On sign-up or log-in, the cards and settings made in this browser move to the account."""

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from quizzes.owners import SESSION_KEY


@receiver(user_logged_in)
def claim_anonymous_progress(sender, request, user, **kwargs):
    from .services import progress_claim

    token = request.session.get(SESSION_KEY) if request is not None else None
    if token:
        progress_claim(token=token, user=user)
