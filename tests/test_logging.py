"""What an operator reads in the log: failed live API calls, rejected uploads, imports."""

import logging

import pytest
from django.urls import reverse

from .fakes import RATE_LIMITED
from .imports import FORM_DEFAULTS, gift_features
from .live_runs import create

pytestmark = pytest.mark.django_db


def test_a_failed_live_api_call_is_logged_with_its_kind_and_status(client, api, caplog, learner):
    client.force_login(learner)  # the server's key is for signed-in accounts
    live = create(client)
    api.script += [RATE_LIMITED]
    with caplog.at_level(logging.WARNING, logger="studyapp.sandbox.live"):
        client.post(f"/sandbox/live/{live.pk}/step/")
    (record,) = [r for r in caplog.records if r.name == "studyapp.sandbox.live"]
    assert f"live run {live.pk}: API call failed" in record.getMessage()
    assert "rate_limit (HTTP 429)" in record.getMessage()


def test_a_rejected_upload_is_logged_with_the_reason(client, caplog):
    with caplog.at_level(logging.INFO, logger="studyapp.sandbox.views"):
        response = client.post("/sandbox/upload/", {"title": "", "text": "{not json"})
    assert response.status_code == 400
    rejected = [r for r in caplog.records if r.name == "studyapp.sandbox.views"]
    assert [r.getMessage()[:17] for r in rejected] == ["upload rejected: "]


def test_an_import_is_logged_with_its_counts(client, instructor, caplog):
    client.force_login(instructor)
    data = {"text": gift_features(), "format": "gift", **FORM_DEFAULTS}
    with caplog.at_level(logging.INFO, logger="quizzes.importing"):
        assert client.post(reverse("author:import_apply"), data).status_code == 302
    messages = [r.getMessage() for r in caplog.records if r.name == "quizzes.importing"]
    assert "imported questions: 16 created, 0 updated, 0 unchanged, 1 skipped" in messages[0]
