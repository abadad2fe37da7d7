"""On log-in, the predictions made in this browser move to the account (like attempts do)."""

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from quizzes.owners import SESSION_KEY


@receiver(user_logged_in)
def claim_predictions(sender, request, user, **kwargs):
    from .models import PredictAnswer

    token = request.session.get(SESSION_KEY) if request is not None else None
    if token:
        PredictAnswer.objects.filter(user=None, owner_token=token).update(user=user, owner_token="")
