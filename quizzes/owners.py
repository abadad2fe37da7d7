"""Moved to core.owners; this name stays until every branch imports from there."""

from core.owners import SESSION_KEY, OwnedModel, OwnedQuerySet, Owner, get_owner  # noqa: F401
