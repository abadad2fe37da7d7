"""Images and documents in user turns (the messages a run starts with, and user content sent
later) render in the step view as they do in tool_results: an <img> from a data: URL, never the
base64 as text; a document as a labelled block."""

import base64
import json

import pytest

from studyapp.sandbox.models import UploadedRun

pytestmark = pytest.mark.django_db

# A real 1x1 PNG.
PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5E"
    "rkJggg=="
)
PDF = base64.b64encode(b"%PDF-1.4\n" + b"refund policy " * 200).decode()
REQUEST = {"model": "claude-sonnet-4-5", "max_tokens": 512}


def _response(text, stop_reason="end_turn"):
    return {
        "id": "msg_01Media",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 50, "output_tokens": 20},
    }


def _image(data=PNG):
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


FIRST = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "Is this receipt covered by the policy?"},
            _image(),
            {
                "type": "document",
                "title": "Refund policy",
                "source": {"type": "base64", "media_type": "application/pdf", "data": PDF},
            },
        ],
    }
]


def _upload(client, log) -> UploadedRun:
    response = client.post("/sandbox/upload/", {"title": "", "text": json.dumps(log)})
    assert response.status_code == 302, response.content.decode()[:3000]
    return UploadedRun.objects.latest("pk")


def test_an_image_in_the_first_user_message_shows_as_an_image_on_the_step(client):
    run = _upload(
        client, [{"request": {**REQUEST, "messages": FIRST}, "response": _response("Yes.")}]
    )
    html = client.get(f"/sandbox/uploads/{run.pk}/steps/1/").content.decode()
    assert "The messages the run starts with" in html
    assert "Is this receipt covered by the policy?" in html
    assert f'<img src="data:image/png;base64,{PNG}"' in html
    assert html.count(PNG) == 1  # only in the src: the request JSON shortens it
    assert '<span class="badge">document</span> <strong>Refund policy</strong>' in html
    assert PDF[:100] not in html  # a base64 document is named, never printed
    raw = client.get(f"/sandbox/uploads/{run.pk}/steps/1/?raw=1").content.decode()
    assert PNG not in raw and "characters of base64" in raw


def test_a_later_user_message_with_an_image_shows_on_its_step(client):
    later = [_image(), {"type": "text", "text": "And this one?"}]
    log = [
        {"request": {**REQUEST, "messages": FIRST}, "response": _response("Yes.")},
        {
            "request": {
                **REQUEST,
                "messages": [
                    *FIRST,
                    {"role": "assistant", "content": [{"type": "text", "text": "Yes."}]},
                    {"role": "user", "content": later},
                ],
            },
            "response": _response("That one too."),
        },
    ]
    run = _upload(client, log)
    html = client.get(f"/sandbox/uploads/{run.pk}/steps/2/").content.decode()
    assert "Also sent before response 2" in html and "And this one?" in html
    assert f'<img src="data:image/png;base64,{PNG}"' in html
    assert (
        "Is this receipt covered"
        not in html.split("Also sent before response 2")[1].split("Response 2")[0]
    )  # step 1's messages are not shown again
    assert PDF[:100] not in html


def test_tool_results_are_not_repeated_as_sent_messages(client):
    """The previous step already shows the tool results: the next step doesn't repeat them."""
    html = client.get("/sandbox/parallel-lookups/steps/2/").content.decode()
    assert "Also sent before response 2" not in html
    assert (
        "The messages the run starts with"
        in client.get("/sandbox/parallel-lookups/steps/1/").content.decode()
    )


def test_a_lone_response_shows_no_sent_messages(client):
    response = client.post("/sandbox/upload/", {"title": "", "text": json.dumps(_response("Hi."))})
    html = client.get(response["Location"]).content.decode()
    assert "The messages the run starts with" not in html
