"""Who may open what: every URL in the URLconf, for anonymous, learner, other learner, instructor
and staff. The rows (tests/access.py) are checked against the URLconf, so a new view without a row
fails the suite.

Objects (attempts, uploads) belong to ``learner``; "other" is another signed-in learner.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from quizzes.models import Attempt, Question, Response
from studyapp.sandbox.models import UploadedRun

from .access import INSTRUCTOR, MATRIX, PRESENT, ROLES, client_as, url_names


@pytest.fixture
def world(shared_world):
    """Every test here only reads the world: build it once for the module."""
    return shared_world


def test_every_url_has_a_row_in_the_matrix():
    missing = [n for n in url_names() if n not in MATRIX]
    assert not missing, (
        f"These URLs have no row in tests/access.py MATRIX: {missing}. Add one per "
        "URL saying what anonymous, learner (the owner), other learner, instructor and staff get, "
        "e.g. 'author:stats': Row(INSTRUCTOR). The CSRF and XSS suites use the same rows."
    )
    stale = [n for n in MATRIX if n not in url_names()]
    assert not stale, f"MATRIX has rows for URLs that no longer exist: {stale}; remove them."


def test_the_matrix_covers_every_role():
    for name, row in MATRIX.items():
        assert set(row.get) == set(ROLES), name
        assert set(row.post_denied) <= set(ROLES), name


@pytest.mark.parametrize("name", PRESENT)
def test_get_gives_each_role_what_the_matrix_says(world, name):
    row = MATRIX[name]
    got = {}
    for role in ROLES:
        response = client_as(Client(), world, role).get(row.url(name, world))
        got[role] = response.status_code
        if row.get is INSTRUCTOR and response.status_code == 302:
            assert response["Location"].startswith(reverse("login")), (name, role)
    assert got == row.get, f"{name}: expected {row.get}, got {got}"


def _state():
    from authoring.models import ProblemReport

    return (
        list(Attempt.objects.order_by("pk").values_list("submitted_at", "score")),
        list(Response.objects.order_by("pk").values_list("answered_at", "flagged")),
        UploadedRun.objects.count(),
        list(Question.objects.order_by("pk").values_list("slug", "version", "status")),
        list(ProblemReport.objects.values_list("status", flat=True)),
    )


@pytest.mark.parametrize("name", [n for n in PRESENT if MATRIX[n].post_denied])
def test_nobody_but_the_owner_can_post_to_their_objects(world, name):
    row = MATRIX[name]
    before = _state()
    got = {}
    for role in row.post_denied:
        client = client_as(Client(), world, role)
        got[role] = client.post(row.url(name, world), {"action": "finish"}).status_code
    assert got == row.post_denied, f"{name}: expected {row.post_denied}, got {got}"
    assert _state() == before, f"a POST by a non-owner changed something through {name}"
