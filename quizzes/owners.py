"""Who owns an attempt: a signed-in user, or an anonymous session's owner token."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from django.contrib.auth.signals import user_logged_in
from django.db import models
from django.dispatch import receiver

SESSION_KEY = "owner_token"


@dataclass(frozen=True)
class Owner:
    user: object | None
    token: str


class OwnedQuerySet(models.QuerySet):
    """For models with ``user`` and ``owner_token``: the rows an Owner may see."""

    def owned_by(self, owner: Owner):
        if owner.user is not None:
            return self.filter(user=owner.user)
        # An anonymous visitor without a token yet owns nothing.
        return self.filter(user=None, owner_token=owner.token) if owner.token else self.none()


def get_owner(request, *, create: bool = True) -> Owner:
    if request.user.is_authenticated:
        return Owner(request.user, "")
    token = request.session.get(SESSION_KEY, "")
    if not token and create:
        token = request.session[SESSION_KEY] = secrets.token_urlsafe(24)
    return Owner(None, token)


@receiver(user_logged_in)
def claim_anonymous_work(sender, request, user, **kwargs):
    """On sign-up or log-in, the attempts made in this browser move to the account."""
    from .models import Attempt

    token = request.session.get(SESSION_KEY) if request is not None else None
    if token:
        Attempt.objects.filter(user=None, owner_token=token).update(user=user)
