"""Uploads of what the API and SDK really produce: lone responses, error bodies, SSE streams,
docs-style partial responses and logs with failed calls; and what a step page shows of them."""

import base64
import json
from pathlib import Path

import pytest
from django.utils.html import escape

from studyapp.agentloop.transcript import parse_upload
from studyapp.sandbox import views
from studyapp.sandbox.models import UploadedRun

SHAPES = Path(__file__).parent / "fixtures" / "shapes"
TRANSCRIPTS = Path(__file__).resolve().parent.parent / "content" / "transcripts"
pytestmark = pytest.mark.django_db

LONE = {
    "id": "msg_01Lone",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "text", "text": "Let me look that up."},
        {"type": "tool_use", "id": "toolu_01A", "name": "lookup_order", "input": {"id": "1"}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {"input_tokens": 50, "output_tokens": 20},
}
REQUEST = {"model": "claude-sonnet-4-5", "max_tokens": 512}


def _upload(client, text):
    response = client.post("/sandbox/upload/", {"title": "", "text": text})
    assert response.status_code == 302, response.content.decode()[:3000]
    return client.get(response["Location"]).content.decode(), UploadedRun.objects.latest("pk")


def test_a_lone_response_has_no_run_findings_and_no_pretended_request(client):
    html, run = _upload(client, json.dumps(LONE))
    assert "The checker found" not in html
    assert "this request resends the previous messages" not in html
    assert '"messages": []' not in html
    assert "Uploaded without the request" in html
    assert run.source == "message"


def test_an_upload_says_one_step_not_one_steps(client):
    response = client.post("/sandbox/upload/", {"title": "", "text": json.dumps(LONE)}, follow=True)
    html = response.content.decode()
    assert ": 1 step." in html and "1 steps" not in html


@pytest.mark.parametrize(
    ("status_type", "message"),
    [
        ("invalid_request_error", "max_tokens: 100000 > 64000, which is the maximum"),
        ("rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit"),
    ],
)
def test_an_api_error_body_is_an_error_step(client, status_type, message):
    body = {"type": "error", "error": {"type": status_type, "message": message}}
    body["request_id"] = "req_011CSHoEeqs5C35K2UUqR7Fy"
    html, _ = _upload(client, json.dumps(body))
    assert "The call failed" in html and status_type in html and escape(message) in html
    assert "req_011CSHoEeqs5C35K2UUqR7Fy" in html
    assert "The checker found" not in html
    if status_type == "rate_limit_error":
        assert "worth retrying" in html
    else:
        assert "Retrying the same request gets the same error" in html


def test_a_complete_sse_stream_is_rebuilt_with_the_sdk_accumulator(client):
    html, _ = _upload(client, (SHAPES / "stream_complete.sse").read_text())
    assert "Hello!" in html
    assert 'stop_reason: "end_turn"' in html
    assert "Truncated" not in html and "The checker found" not in html


def test_a_stream_cut_mid_tool_use_is_shown_as_truncated(client):
    html, _ = _upload(client, (SHAPES / "stream_cut_tool_use.sse").read_text())
    assert "Truncated: the stream was cut off" in html
    assert "get_weather: its input is incomplete, so it must not run" in html
    assert "stop_reason (the stream ended before message_delta)" in html
    assert "&quot;San Fra" in html  # the input as far as it was streamed
    assert "Okay, let&#x27;s check the weather" in html
    assert "The checker found" not in html and "not one the catalogue knows" not in html


def test_a_docs_style_partial_response_is_accepted_with_a_notice(client):
    partial = {"content": [{"type": "text", "text": "Paris."}], "stop_reason": "end_turn"}
    html, _ = _upload(client, json.dumps(partial))
    assert "Paris." in html
    assert "filled in" in html and "type: &quot;message&quot;" in html and "usage" in html


def test_a_log_with_a_failed_call_keeps_the_rest(client):
    msgs = [{"role": "user", "content": "Where is order 1?"}]
    log = [
        {
            "request": {**REQUEST, "messages": msgs},
            "response": None,
            "error": {"type": "overloaded_error", "message": "Overloaded"},
        },
        {"request": {**REQUEST, "messages": msgs}, "response": LONE},
    ]
    html, run = _upload(client, json.dumps(log))
    assert "The call failed" in html and "overloaded_error" in html
    assert "Call 1 failed (no response)" in html
    step2 = client.get(f"/sandbox/uploads/{run.pk}/steps/2/").content.decode()
    assert "lookup_order" in step2


def test_a_text_block_beside_tool_results_is_shown_as_text(client):
    msgs = [{"role": "user", "content": "Where is order 1?"}]
    results = [
        {"type": "text", "text": "Here is what the tool said."},
        {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "shipped"},
    ]
    end = dict(LONE, content=[{"type": "text", "text": "Shipped."}], stop_reason="end_turn")
    log = [
        {"request": {**REQUEST, "messages": msgs}, "response": LONE},
        {
            "request": {
                **REQUEST,
                "messages": [
                    *msgs,
                    {"role": "assistant", "content": LONE["content"]},
                    {"role": "user", "content": results},
                ],
            },
            "response": end,
        },
    ]
    html, _ = _upload(client, json.dumps(log))
    assert "tool_result</span> for <code></code>" not in html
    assert "Here is what the tool said." in html
    assert "shipped" in html


def test_fields_the_loop_reads_are_shown(client):
    refusal = dict(
        LONE,
        content=[],
        stop_reason="refusal",
        stop_details={
            "type": "refusal",
            "category": "cyber",
            "explanation": "The request asked for working malware.",
        },
        container={"id": "container_011CZabc", "expires_at": "2026-12-01T12:00:00Z"},
        usage={
            "input_tokens": 5,
            "output_tokens": 1,
            "server_tool_use": {"web_search_requests": 2},
        },
    )
    html, _ = _upload(client, json.dumps(refusal))
    for text in ("cyber", "The request asked for working malware.", "container_011CZabc"):
        assert text in html
    assert "web_search_requests" in html


def test_citations_caller_and_page_age_are_shown(client):
    resp = dict(
        LONE,
        stop_reason="end_turn",
        content=[
            {
                "type": "text",
                "text": "It is sunny.",
                "citations": [
                    {
                        "type": "web_search_result_location",
                        "url": "https://example.com/weather",
                        "title": "Weather",
                        "encrypted_index": "Eo8B",
                        "cited_text": "Sunny all day in Paris.",
                    }
                ],
            },
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srvtoolu_01",
                "content": [
                    {
                        "type": "web_search_result",
                        "url": "https://example.com/weather",
                        "title": "Weather",
                        "encrypted_content": "EqgB",
                        "page_age": "April 30, 2025",
                    }
                ],
            },
        ],
    )
    html, _ = _upload(client, json.dumps(resp))
    assert "Sunny all day in Paris." in html and "https://example.com/weather" in html
    assert "April 30, 2025" in html


def test_a_big_base64_image_is_not_printed_as_text(client):
    pixel = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"0" * 900_000).decode()
    small = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"0" * 100).decode()
    msgs = [{"role": "user", "content": "Describe the screenshots."}]
    results = [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_01A",
            "content": [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": pixel},
                },
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": small},
                },
            ],
        }
    ]
    end = dict(LONE, content=[{"type": "text", "text": "Two screenshots."}], stop_reason="end_turn")
    log = [
        {"request": {**REQUEST, "messages": msgs}, "response": LONE},
        {
            "request": {
                **REQUEST,
                "messages": [
                    *msgs,
                    {"role": "assistant", "content": LONE["content"]},
                    {"role": "user", "content": results},
                ],
            },
            "response": end,
        },
    ]
    html, run = _upload(client, json.dumps(log))
    step2 = client.get(f"/sandbox/uploads/{run.pk}/steps/2/").content.decode()
    for page in (html, step2):
        assert len(page) < 100_000  # the 1.2 MB of base64 is not in the page (nor its request)
        assert pixel[:200] not in page
    assert "too large to show here" in html
    assert f'src="data:image/png;base64,{small}"' in html


def test_a_step_of_an_upload_does_not_reparse_it(client, monkeypatch):
    html, run = _upload(client, (TRANSCRIPTS / "coding-agent-fix-test.json").read_text())
    calls = []
    real = views.parse_transcript
    monkeypatch.setattr(views, "parse_transcript", lambda *a, **k: calls.append(1) or real(*a, **k))
    client.get(f"/sandbox/uploads/{run.pk}/steps/2/")
    client.get(f"/sandbox/uploads/{run.pk}/steps/3/")
    assert calls == []
    views._UPLOADED.clear()  # a restarted process parses once, then not again
    client.get(f"/sandbox/uploads/{run.pk}/steps/2/")
    client.get(f"/sandbox/uploads/{run.pk}/steps/3/")
    assert calls == [1]


def test_finding_messages_count_steps_from_one():
    log = json.loads((TRANSCRIPTS / "refusal.json").read_text())
    t = parse_upload(json.dumps(log))
    from studyapp.agentloop import contract

    for f in contract.check_transcript(t):
        assert "turn 0" not in f.message.lower() and "step 0" not in f.message.lower()


def test_a_long_upload_step_page_marks_its_step_in_the_chart(client):
    from bench.upload_steps import _log

    html, run = _upload(client, _log(200))
    page = client.get(f"/sandbox/uploads/{run.pk}/steps/100/").content.decode()
    assert page.count("c-bar is-current") == 1 and 'data-step="99" x=' in page
    assert '<tr data-step="99" class="is-current">' in page


def test_an_upload_is_read_by_the_bounded_parser_once(monkeypatch):
    """A log is parsed once per upload (its JSON once, each line of JSON Lines once), and reads
    the same as before: the shapes are recognised on the document the log is then built from."""
    from studyapp.agentloop import bounded
    from studyapp.sandbox.library import library

    calls = []
    real = bounded.loads_json

    def counted(text, *args, **kwargs):
        calls.append(len(text))
        return real(text, *args, **kwargs)

    turns = library().get("parallel-lookups").transcript.turns
    log = [{"request": t.request, "response": t.response} for t in turns]
    monkeypatch.setattr(bounded, "loads_json", counted)
    text = json.dumps(log)
    transcript = parse_upload(text)
    assert len(calls) == 1 and len(transcript.turns) == len(log)
    calls.clear()
    jsonl = "\n".join(json.dumps(entry) for entry in log)
    assert len(parse_upload(jsonl).turns) == len(log)
    assert len(calls) == 1 + len(log)  # the whole text (not one document), then each line
