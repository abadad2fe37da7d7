"""Uploads: lenient where the API is newer than the SDK, strict where the loop needs it."""

import copy
import json

import pytest

from studyapp.agentloop import contract
from studyapp.agentloop.transcript import (
    TranscriptError,
    parse_transcript,
    parse_upload,
)

from .transcripts import (
    parse_error,
    response,
    text,
    transcript,
    turn,
    two_step,
)

# --- uploads: lenient where the API is newer than the SDK -------------------------------------


def test_uploads_keep_unknown_block_types_raw_and_flag_them():
    data = two_step()
    data["turns"][1]["response"]["content"].insert(
        0, {"type": "compaction", "content": "summary of earlier turns"}
    )
    t = parse_transcript(data, strict=False)
    blocks = t.turns[1].blocks
    assert [(b.type, b.known) for b in blocks] == [("compaction", False), ("text", True)]
    assert blocks[0].data == {"type": "compaction", "content": "summary of earlier turns"}
    assert blocks[0].raw and "unknown block type 'compaction'" in blocks[0].reason
    assert t.turns[1].has_raw_blocks
    assert t.turns[1].message is None  # the SDK object can't hold it; the raw dict is kept
    assert any("turns[1].response.content[0]" in w for w in t.warnings)
    assert t.turns[1].action == "finish"


def test_uploads_keep_a_newer_shape_of_a_known_block_raw():
    data = two_step()
    data["turns"][0]["response"]["content"][1]["caller"] = {"type": "code_execution_29990101"}
    with pytest.raises(TranscriptError):
        parse_transcript(data, strict=True)
    t = parse_transcript(data, strict=False)
    block = t.turns[0].blocks[1]
    assert block.type == "tool_use" and not block.known
    assert t.turns[0].tool_uses[0]["id"] == "toolu_1"


def test_uploads_still_reject_blocks_the_loop_cannot_use():
    data = two_step()
    data["turns"][0]["response"]["content"][1]["input"] = "not an object"
    error = parse_error(data, strict=False)
    assert error.path == "turns[0].response.content[1].input"


def test_uploads_keep_an_unknown_stop_reason_and_the_replay_flags_it():
    data = transcript(turn(response(1, "compaction", text("Summary."))))
    t = parse_transcript(data, strict=False)
    assert t.turns[0].stop_reason == "compaction" and t.turns[0].action is None
    assert [d.kind for d in t.divergences] == ["unknown_stop_reason"]
    assert [f.rule for f in contract.check_transcript(t)] == ["unknown-stop-reason"]


def test_uploads_accept_unknown_request_block_types_and_default_metadata():
    data = two_step()
    for name in ("slug", "title", "summary", "tags"):
        data.pop(name)
    data["messages"][0]["content"] = [{"type": "video", "url": "https://example.com/v"}]
    t = parse_transcript(data, strict=False)
    assert t.slug == "uploaded-run" and t.title == "Uploaded run"
    assert any("unknown block type 'video'" in w for w in t.warnings)
    with pytest.raises(TranscriptError):
        parse_transcript(data, strict=True)


def test_an_uploaded_transcript_is_read_without_a_copy_into_the_same_run():
    """parse_upload hands its own decoding to parse_transcript (owned: not copied first); the
    run is the one a copied document gives, and a caller's document is still never changed."""
    data = two_step()
    data["turns"][1]["response"]["content"].insert(0, {"type": "compaction", "content": "s"})
    kept = copy.deepcopy(data)
    copied = parse_transcript(data, strict=False)
    assert data == kept
    uploaded = parse_upload(json.dumps(data))
    assert uploaded.to_dict() == copied.to_dict()
    assert (uploaded.warnings, uploaded.source) == (copied.warnings, copied.source)
