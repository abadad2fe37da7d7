"""agentloop imports the anthropic SDK on first use (studyapp/agentloop/sdk.py); what it writes
down by hand so that importing it stays cheap still says what the installed SDK says."""

import os
import subprocess
import sys
import typing
from pathlib import Path

import anthropic
from anthropic._constants import ANTHROPIC_API_VERSION
from anthropic.types import ContentBlock, Message, RefusalStopDetails, StopReason

from studyapp.agentloop import catalogue, models, runner, sdk, transcript

ROOT = Path(__file__).resolve().parent.parent


def test_the_refusal_categories_are_the_sdks():
    literal = typing.get_args(RefusalStopDetails.model_fields["category"].annotation)[0]
    assert catalogue.REFUSAL_CATEGORIES == typing.get_args(literal) == sdk.refusal_categories()


def test_the_api_version_is_the_header_the_sdk_sends():
    assert runner.API_VERSION == models.API_VERSION == ANTHROPIC_API_VERSION == sdk.api_version()


def test_the_block_models_and_stop_reasons_are_read_from_the_sdk():
    union = typing.get_args(typing.get_args(ContentBlock)[0])
    assert set(transcript.BLOCK_MODELS.values()) == set(union)
    assert transcript.BLOCK_MODELS["tool_use"] is anthropic.types.ToolUseBlock
    assert frozenset(typing.get_args(StopReason)) == transcript.SDK_STOP_REASONS
    assert sdk.message_type() is Message
    # every server tool's result type the SDK declares may be sent back, with its tool_use_id
    server_results = {t for t in transcript.BLOCK_MODELS if t.endswith("_tool_result")}
    assert "web_search_tool_result" in server_results
    assert server_results <= transcript.REQUEST_BLOCK_TYPES
    assert all(transcript._MIN_FIELDS[t] == {"tool_use_id": str} for t in server_results)
    assert "tool_reference" not in transcript.REQUEST_BLOCK_TYPES


def test_django_set_up_with_its_url_conf_and_its_checks_does_not_import_the_sdk():
    """`manage.py` commands, a notes page: nothing there reads a transcript. `manage.py check`
    (which every command runs first) checks the transcripts' translation files against their
    English runs without parsing the runs strictly."""
    code = (
        "import sys, django\n"
        "django.setup()\n"
        "from django.urls import get_resolver\n"
        "get_resolver().url_patterns\n"
        "assert 'anthropic' not in sys.modules, 'something imports the SDK at the top'\n"
        "from django.core.management import call_command\n"
        "call_command('check')\n"
        "assert 'anthropic' not in sys.modules, 'manage.py check imports the SDK'\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings"}
    done = subprocess.run(  # noqa: S603 - our own interpreter, a fixed command
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
