"""Key-like strings never reach an error shown to a visitor or a log line."""

import logging

import pytest

from studyapp.agentloop.redact import MARK, RedactingFilter, redact

KEY = (
    "sk-ant-api03-"
    + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6kM9nP2qR5tU8wX1zA4cD7fG0iL3oS6uV9xY2"
    + "AA"
)


def test_the_exact_key_is_hidden():
    assert redact(f"bad key {KEY} given", KEY) == f"bad key {MARK} given"


@pytest.mark.parametrize(
    "leak",
    [
        KEY[:30],  # a truncated copy with its prefix
        KEY[20:60],  # a piece from the middle, no prefix
        KEY[-15:],  # its tail
        "sk-ant-admin01-xyz",  # any key-shaped string, even one we do not know
    ],
)
def test_partial_copies_and_key_shapes_are_hidden(leak):
    text = f"upstream said: invalid x-api-key '{leak}' (request req_011)"
    out = redact(text, KEY)
    assert leak not in out and MARK in out
    assert out.startswith("upstream said: invalid x-api-key '") and "req_011" in out


def test_ordinary_text_and_ids_are_left_alone():
    text = "msg_01XFDUDYJgAACzvnptvVoYEL toolu_01A09q90qw90lq917835lq9 stop_reason=end_turn"
    assert redact(text, KEY) == text


def test_log_records_are_redacted_with_their_arguments_and_tracebacks(caplog):
    logger = logging.getLogger("tests.redact")
    handler_filter = RedactingFilter(secrets=(KEY,))
    caplog.handler.addFilter(handler_filter)
    try:
        logger.warning("call failed for %s", KEY[5:40])
        try:
            raise ValueError(f"boom {KEY}")
        except ValueError:
            logger.exception("step")
    finally:
        caplog.handler.removeFilter(handler_filter)
    text = caplog.text
    assert KEY[5:40] not in text and KEY not in text
    assert text.count(MARK) >= 2


def test_the_configured_console_handler_redacts():
    from django.conf import settings

    assert settings.LOGGING["handlers"]["console"]["filters"] == ["redact"]
