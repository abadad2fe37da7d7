"""Who owns a visitor's work: a signed-in user, or an anonymous browser session's token.

Every model a visitor owns subclasses :class:`OwnedModel`; at log-in or sign-up one receiver
hands everything made in that browser to the account, model by model, through ``claim``.

    owner = get_owner(request)                  # Owner(user, token), creating a token if asked
    Upload.objects.owned_by(owner)              # the rows this visitor may see
    Upload.claim(token, user)                   # what claim_all() calls for each subclass
"""

from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass

from django.apps import apps
from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.db import models, transaction
from django.dispatch import receiver

logger = logging.getLogger(__name__)

SESSION_KEY = "owner_token"


@dataclass(frozen=True)
class Owner:
    """A signed-in ``user`` (token empty), or an anonymous ``token`` (user None)."""

    user: object | None
    token: str


class OwnedQuerySet(models.QuerySet):
    def owned_by(self, owner: Owner):
        """The rows this visitor may see."""
        if owner.user is not None:
            return self.filter(user=owner.user)
        # An anonymous visitor without a token yet owns nothing.
        return self.filter(user=None, owner_token=owner.token) if owner.token else self.none()

    def anonymous(self, token: str):
        """The rows an anonymous session with this token made (none for an empty token)."""
        return self.filter(user=None, owner_token=token) if token else self.none()


class OwnedModel(models.Model):
    """A row that belongs to an account or, before sign-up, to a browser session's token."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE
    )
    owner_token = models.CharField(max_length=64, blank=True, db_index=True)

    objects = OwnedQuerySet.as_manager()

    class Meta:
        abstract = True

    @classmethod
    def claim(cls, token: str, user) -> int:
        """Give the rows made under ``token`` to ``user``; returns how many moved. A model with a
        uniqueness rule per owner overrides this to merge instead."""
        return cls._default_manager.anonymous(token).update(user=user)


def _owned_by_stand_in(signed_in: bool, who):
    """A filter of ``owned_by`` for the owner ``who`` (a user's pk, or a token)."""

    def owned(queryset):
        if signed_in:
            return queryset.filter(user_id=who)
        return queryset.filter(user=None, owner_token=who)

    return owned


def _stand_in(value, i: int):
    """A value of ``value``'s kind that no real parameter equals (core/prepared.py)."""
    if type(value) is int:
        return 1_999_999_200 + i
    if type(value) is str:
        return f"\x00stand-in {i}"
    raise TypeError(f"no stand-in for a {type(value).__name__}")


def _compiled(key: str, owner: Owner, build, make, values: dict):
    from core.prepared import owner_stand_in, prepared, prepared_rows

    signed_in = owner.user is not None
    stand_ins = {name: _stand_in(v, i) for i, (name, v) in enumerate(values.items())}
    stand_ins["who"] = owner_stand_in(signed_in)
    kept = (prepared if make == "objects" else prepared_rows)(
        (key, signed_in, *values),
        lambda who, **v: build(_owned_by_stand_in(signed_in, who), **v),
        **stand_ins,
    )
    return kept, (owner.user.pk if signed_in else owner.token)  # type: ignore[union-attr]


def owned_object(key: str, owner: Owner, build, **values):
    """``build(owned, **values).first()`` (the owner's row, or None), where ``owned(queryset)``
    is ``queryset.owned_by(owner)``: compiled once per process and kind of owner like
    :func:`owned_rows`; ``values`` (ints and strings, e.g. a pk from the URL) each reach the
    SQL once. An int beyond a 32-bit column's range runs through the ORM (which answers no
    row without asking the database); an owner with nothing owns no row (no query)."""
    if owner.user is None and not owner.token:
        return None
    if any(type(v) is int and not -(2**31) < v < 2**31 for v in values.values()):
        return build(lambda queryset: queryset.owned_by(owner), **values).first()
    query, who = _compiled(key, owner, build, "objects", values)
    return query.first(who=who, **values)


def owned_rows(key: str, owner: Owner, build) -> list[tuple]:
    """The rows of the ``values_list()`` queryset ``build(owned)``, where ``owned(queryset)``
    is ``queryset.owned_by(owner)`` (the owner named once in the SQL): compiled once per
    process and kind of owner (core/prepared.py). ``key`` names the query. An owner with
    neither a user nor a token owns nothing: no rows, no query (as ``owned_by``'s none())."""
    if owner.user is None and not owner.token:
        return []
    query, who = _compiled(key, owner, build, "rows", {})
    return query.rows(who=who)


def owned_objects(key: str, owner: Owner, build) -> list:
    """Like :func:`owned_rows`, for a queryset of model instances (``list(queryset)``)."""
    if owner.user is None and not owner.token:
        return []
    query, who = _compiled(key, owner, build, "objects", {})
    return query.all(who=who)


def owned_models() -> list[type[OwnedModel]]:
    """Every concrete model a visitor owns, from the app registry."""
    return [m for m in apps.get_models() if issubclass(m, OwnedModel)]


def get_owner(request, *, create: bool = True) -> Owner:
    """The visitor of this request; ``create`` gives an anonymous visitor a token to own with."""
    if request.user.is_authenticated:
        return Owner(request.user, "")
    token = request.session.get(SESSION_KEY, "")
    if not token and create:
        token = request.session[SESSION_KEY] = secrets.token_urlsafe(24)
    return Owner(None, token)


def claim_all(token: str, user) -> dict[str, int]:
    """Give everything made under ``token`` to ``user``: {model label: rows moved}, in one
    transaction; a log-in from a browser that made nothing opens none."""
    if not token:
        return {}
    with transaction.atomic():
        return {m._meta.label: m.claim(token, user) for m in owned_models()}


@receiver(user_logged_in, dispatch_uid="core.owners.claim_anonymous_work")
def claim_anonymous_work(sender, request, user, **kwargs):
    """On sign-up or log-in, the work made in this browser moves to the account."""
    token = request.session.get(SESSION_KEY, "") if request is not None else ""
    moved = claim_all(token, user)
    if any(moved.values()):
        logger.info("claimed anonymous work for user %s: %s", user.pk, moved)
