"""Progress listens to quizzes: each saved practice answer reviews its concept's card."""

from django.dispatch import receiver

from quizzes.signals import practice_answered

from . import hooks


@receiver(practice_answered, dispatch_uid="progress.review_practice_answer")
def review_practice_answer(sender, request, response, **kwargs):
    hooks.practice_answered(request, response)
