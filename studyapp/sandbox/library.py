"""The recorded loops in content/transcripts, parsed strictly and checked once per file change."""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from django.conf import settings

from studyapp.agentloop import contract
from studyapp.agentloop.transcript import Transcript, TranscriptError, parse_transcript

SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass
class Run:
    """A transcript ready for the stepper, with the checker's findings."""

    key: str  # the library slug, or "u<pk>" for an upload
    transcript: Transcript
    findings: list
    uploaded_pk: int | None = None
    live_pk: int | None = None
    shared: str = ""  # the share token when the run is read through a published link
    #: HTML fragments that depend only on the run, rendered once (see views._usage_html)
    rendered: dict = field(default_factory=dict, repr=False, compare=False)

    @cached_property
    def usage_series(self) -> list[dict]:
        return self.transcript.usage_series()

    @property
    def title(self) -> str:
        return self.transcript.title or "Untitled run"

    @property
    def stop_reasons(self) -> list[str]:
        seen: list[str] = []
        for reason in self.transcript.stop_reasons:
            if reason and reason not in seen:
                seen.append(reason)
        return seen


def build_run(key: str, transcript: Transcript, uploaded_pk: int | None = None) -> Run:
    return Run(key, transcript, contract.check_transcript(transcript), uploaded_pk)


class Library:
    def __init__(self, directory: Path):
        self.directory = directory
        self._signature: tuple = ()
        self._runs: dict[str, Run] = {}
        self._lock = threading.Lock()

    def runs(self) -> dict[str, Run]:
        signature = tuple((p, p.stat().st_mtime) for p in sorted(self.directory.glob("*.json")))
        if signature != self._signature:
            with self._lock:
                runs = {}
                for path, _ in signature:
                    try:
                        data = json.loads(path.read_text(encoding="utf-8"))
                        transcript = parse_transcript(data, strict=True)
                    except (TranscriptError, ValueError) as e:
                        raise TranscriptError(f"{path.name}: {e}", "") from e
                    runs[transcript.slug] = build_run(transcript.slug, transcript)
                self._runs, self._signature = runs, signature
        return self._runs

    def get(self, slug: str) -> Run | None:
        if not SLUG_RE.match(slug):
            return None
        return self.runs().get(slug)


_libraries: dict[str, Library] = {}


def library() -> Library:
    directory = Path(settings.CONTENT_DIR) / "transcripts"
    lib = _libraries.get(str(directory))
    if lib is None:
        lib = _libraries[str(directory)] = Library(directory)
    return lib
