"""Reading an upload: a file or pasted text, in any of the formats the sandbox accepts."""

from __future__ import annotations

from studyapp.agentloop.transcript import Transcript, TranscriptError, parse_upload

from .forms import MAX_UPLOAD_BYTES


def upload_parse(text: str, file) -> tuple[Transcript, str]:
    """Return the parsed run and the text it came from; TranscriptError names the problem."""
    if file:
        raw = file.read(MAX_UPLOAD_BYTES + 1)
        if len(raw) > MAX_UPLOAD_BYTES:
            raise TranscriptError("The file is larger than 2 MB.", "")
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as e:
            raise TranscriptError(
                f"The file is not UTF-8 text (byte {e.start} cannot be read).", ""
            ) from None
    return parse_upload(text), text
