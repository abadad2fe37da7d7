"""The recorded loops of the library: no API errors unless deliberately broken."""

import json

import pytest

from studyapp.agentloop.contract import check_transcript
from studyapp.agentloop.transcript import parse_transcript


def _library():
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "content" / "transcripts"
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


@pytest.mark.parametrize("path", _library(), ids=lambda p: p.stem)
def test_library_transcripts_have_no_api_errors_unless_deliberately_broken(path):
    t = parse_transcript(json.loads(path.read_text(encoding="utf-8")), strict=True)
    found = check_transcript(t)
    if t.deliberately_broken:
        assert found, "a deliberately broken loop must be flagged"
    else:
        assert [f for f in found if f.is_error] == []
