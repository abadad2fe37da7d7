"""`manage.py check`: the sandbox library's translation files (an invalid one is ignored)."""

from __future__ import annotations

from django.core import checks


@checks.register("content")
def check_transcript_translations(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    from studyapp.sandbox.library import library

    return [
        checks.Warning(problem, id="sandbox.W001", obj="content/transcripts")
        for problem in library().translation_problems()
    ]
