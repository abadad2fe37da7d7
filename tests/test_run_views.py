"""Run overview (timeline + context chart) and conversation view, for library runs and uploads."""

import json
from pathlib import Path

import pytest

from studyapp.sandbox.library import library

pytestmark = pytest.mark.django_db
TRANSCRIPTS = Path(__file__).resolve().parent.parent / "content" / "transcripts"


def test_the_overview_lists_every_turn_linking_to_its_step(client):
    run = library().get("parallel-lookups")
    html = client.get("/sandbox/parallel-lookups/overview/").content.decode()
    for turn in run.transcript.turns:
        assert f'href="/sandbox/parallel-lookups/steps/{turn.index + 1}/"' in html
        assert f">{turn.stop_reason}</code>" in html
    for name in {u["name"] for t in run.transcript.turns for u in t.tool_uses}:
        assert f"<code>{name}</code>" in html
    assert "input tokens" in html and "output tokens" in html  # the chart's legend
    assert 'class="c-axis"' in html


def test_the_overview_shows_each_finding_at_its_turn(client):
    run = library().get("broken-split-results")
    html = client.get("/sandbox/broken-split-results/overview/").content.decode()
    assert "has-findings" in html
    assert run.findings[0].message.split(":")[0][:40] in html


def test_the_conversation_alternates_user_and_assistant_messages(client):
    run = library().get("parallel-lookups")
    html = client.get("/sandbox/parallel-lookups/conversation/").content.decode()
    assert html.count("conv-assistant") == len(run.transcript.turns)
    assert html.count("conv-user") >= len(run.transcript.turns)
    assert "Whole response (JSON)" in html and 'class="j-nt"' in html  # highlighted


def test_run_views_of_an_upload_are_private(client, learner, other_learner):
    client.force_login(learner)
    text = (TRANSCRIPTS / "parallel-lookups.json").read_text()
    client.post("/sandbox/upload/", {"title": "", "text": text})
    from studyapp.sandbox.models import UploadedRun

    pk = UploadedRun.objects.get().pk
    assert client.get(f"/sandbox/uploads/{pk}/overview/").status_code == 200
    assert client.get(f"/sandbox/uploads/{pk}/conversation/").status_code == 200
    client.force_login(other_learner)
    assert client.get(f"/sandbox/uploads/{pk}/overview/").status_code == 404
    assert client.get(f"/sandbox/uploads/{pk}/conversation/").status_code == 404


def test_the_conversation_escapes_recorded_text(client):
    msg = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": "<img src=x onerror=alert(1)>"}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    r = client.post("/sandbox/upload/", {"title": "", "text": json.dumps(msg)})
    pk = r["Location"].split("/")[3]
    html = client.get(f"/sandbox/uploads/{pk}/conversation/").content.decode()
    assert "<img src=x" not in html


def test_library_run_views_need_no_query(client, django_assert_num_queries):
    client.get("/sandbox/parallel-lookups/overview/")  # the session cookie is set once
    with django_assert_num_queries(0):
        client.get("/sandbox/parallel-lookups/overview/")
        client.get("/sandbox/parallel-lookups/conversation/")


def test_the_library_says_which_runs_are_constructed_and_which_are_real(client):
    runs = library().runs().values()
    real = [r for r in runs if r.transcript.extra.get("real_response")]
    assert len(real) >= 4
    for run in real:
        provenance = run.transcript.extra["provenance"]
        assert provenance["source"].startswith("https://github.com/anthropics/")
        assert "MIT" in provenance["licence"]
        assert run.findings == []  # real output through the SDK's own runner: a clean loop
        html = client.get(f"/sandbox/{run.key}/steps/1/").content.decode()
        assert "real response" in html and provenance["source"] in html
    assert all(r.transcript.extra.get("constructed") for r in runs if r not in real)
    index = client.get("/sandbox/").content.decode()
    assert "constructed" in index and "real response" in index
    assert "constructed" in client.get("/").content.decode()


def test_compare_finds_where_two_refund_runs_diverge(client):
    html = client.get(
        "/sandbox/compare/?a=refund-45-days&b=refund-45-days-manager-claim"
    ).content.decode()
    assert "They diverge at step 1" in html  # the customer's first message differs
    assert "tokens, second minus first" in html
    same = client.get("/sandbox/compare/?a=refusal&b=refusal").content.decode()
    assert "the same turn for turn" in same


def test_compare_names_the_block_that_differs():
    from studyapp.sandbox.compare import compare

    a, b = library().get("real-sdk-weather-basic"), library().get("real-sdk-weather-short-name")
    out = compare(a, b)
    assert out["diverged"]["n"] == 1
    assert out["rows"][0]["block"] == "content[0]: tool_use get_weather vs tool_use get_weather"
    assert out["rows"][0]["d_in"] == 597 - 656


def test_compare_refuses_someone_elses_upload(client, learner, other_learner):
    client.force_login(learner)
    text = (TRANSCRIPTS / "parallel-lookups.json").read_text()
    client.post("/sandbox/upload/", {"title": "", "text": text})
    from studyapp.sandbox.models import UploadedRun

    pk = UploadedRun.objects.get().pk
    assert client.get(f"/sandbox/compare/?a=u{pk}&b=parallel-lookups").status_code == 200
    client.force_login(other_learner)
    # like every private run's page: for anybody else it does not exist
    assert client.get(f"/sandbox/compare/?a=u{pk}&b=parallel-lookups").status_code == 404
    assert f'value="u{pk}"' not in client.get("/sandbox/compare/").content.decode()
