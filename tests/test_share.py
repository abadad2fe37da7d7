"""Sharing an uploaded run: private by default, a read-only unguessable link, revocable."""

import json
from pathlib import Path

import pytest
from django.test import Client

from studyapp.sandbox.models import UploadedRun

pytestmark = pytest.mark.django_db
TRANSCRIPTS = Path(__file__).resolve().parent.parent / "content" / "transcripts"


def _upload(client):
    text = (TRANSCRIPTS / "parallel-lookups.json").read_text()
    client.post("/sandbox/upload/", {"title": "Mine", "text": text})
    return UploadedRun.objects.get()


def test_an_upload_is_private_until_published_and_revocable(client, learner):
    client.force_login(learner)
    run = _upload(client)
    assert run.share_token == ""
    assert (
        "Publish a read-only link"
        in client.get(f"/sandbox/uploads/{run.pk}/steps/1/").content.decode()
    )
    client.post(f"/sandbox/uploads/{run.pk}/share/")
    run.refresh_from_db()
    token = run.share_token
    assert len(token) >= 32
    page = client.get(f"/sandbox/uploads/{run.pk}/steps/1/").content.decode()
    assert f"/sandbox/shared/{token}/" in page

    stranger = Client()
    for path in ("", "steps/1/", "steps/2/", "conversation/"):
        response = stranger.get(f"/sandbox/shared/{token}/{path}")
        assert response.status_code == 200, path
    step = stranger.get(f"/sandbox/shared/{token}/steps/1/")
    assert step["Referrer-Policy"] == "no-referrer"
    html = step.content.decode()
    assert "Publish a read-only link" not in html and "Revoke" not in html
    assert "Predict mode" not in html
    assert stranger.get(f"/sandbox/uploads/{run.pk}/steps/1/").status_code == 404
    assert stranger.post(f"/sandbox/uploads/{run.pk}/share/", {"revoke": "1"}).status_code == 404

    client.post(f"/sandbox/uploads/{run.pk}/share/", {"revoke": "1"})
    assert stranger.get(f"/sandbox/shared/{token}/steps/1/").status_code == 404
    client.post(f"/sandbox/uploads/{run.pk}/share/")
    run.refresh_from_db()
    assert run.share_token and run.share_token != token  # an old link never comes back


def test_a_guessed_token_finds_nothing(client):
    assert client.get("/sandbox/shared/x/").status_code == 404
    assert client.get("/sandbox/shared/" + "a" * 32 + "/steps/1/").status_code == 404


def test_sharing_needs_a_post_with_csrf(learner):
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(learner)
    text = json.dumps(json.loads((TRANSCRIPTS / "parallel-lookups.json").read_text()))
    UploadedRun.objects.create(
        user=learner, title="t", source="transcript", data=json.loads(text), size=1
    )
    run = UploadedRun.objects.get()
    assert csrf_client.get(f"/sandbox/uploads/{run.pk}/share/").status_code == 405
    assert csrf_client.post(f"/sandbox/uploads/{run.pk}/share/").status_code == 403
