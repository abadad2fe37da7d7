"""The SDK client, a response as JSON, and an SDK error described in plain words."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..i18n import Phrase, dump, english, gettext_noop
from ..redact import redact
from .limits import RunnerError
from .results import StepError

if TYPE_CHECKING:
    import anthropic


def api_key_configured() -> bool:
    """Whether the SDK will find an API key in the environment."""
    return bool(os.environ.get("ANTHROPIC_API_KEY", "").strip())


def make_client(*, max_retries: int = 0, api_key: str | None = None) -> anthropic.Anthropic:
    """The SDK client, configured by ANTHROPIC_API_KEY (or ``api_key``: a visitor's own key) and
    ANTHROPIC_BASE_URL (tests patch this)."""
    import anthropic  # here, not at the top: importing the SDK costs about 1.4 s (agentloop/sdk.py)

    if api_key:
        return anthropic.Anthropic(api_key=api_key, max_retries=max_retries)
    if not api_key_configured():
        raise RunnerError.worded(
            gettext_noop("Live mode is off: ANTHROPIC_API_KEY is not set on the server.")
        )
    return anthropic.Anthropic(max_retries=max_retries)


def _dump(message: Any) -> dict[str, Any]:
    """A response as JSON: None fields dropped, so content blocks go back in the shape the API
    accepts (a text block's ``citations: null`` is not a request field); stop_sequence kept."""
    # a malformed answer is reported by response_problem, not by pydantic's warnings
    data: dict[str, Any] = message.model_dump(mode="json", exclude_none=True, warnings=False)
    data.setdefault("stop_sequence", getattr(message, "stop_sequence", None))
    return data


_ERROR_KINDS = {
    400: "invalid_request",
    401: "authentication",
    403: "permission",
    404: "not_found",
    413: "request_too_large",
    429: "rate_limit",
    529: "overloaded",
}
_ERROR_WORDS = {
    "invalid_request": gettext_noop("The API rejected the request"),
    "authentication": gettext_noop(
        "The API key was not accepted; check ANTHROPIC_API_KEY on the server"
    ),
    # The key a visitor entered for this run (bring your own key), not the server's.
    "authentication_own": gettext_noop(
        "Your API key was not accepted; check the key you entered for this run"
    ),
    "permission": gettext_noop("The API key may not use this model or feature"),
    "not_found": gettext_noop("The API does not know this model or endpoint"),
    "request_too_large": gettext_noop("The request is too large for the API"),
    "rate_limit": gettext_noop(
        "Rate limited: too many requests or tokens for now. Wait a moment, then step again"
    ),
    "overloaded": gettext_noop("The API is overloaded right now. Step again in a little while"),
    "api_error": gettext_noop("The API had an internal error. Step again in a little while"),
}
#: The framing around the API's own words (quoted verbatim: ``api_message`` is never translated).
WITH_API_MESSAGE = gettext_noop("%(words)s (HTTP %(status)s %(type)s): %(api_message)s")
WITHOUT_API_MESSAGE = gettext_noop("%(words)s (HTTP %(status)s %(type)s).")


def describe_error(exc: anthropic.APIError, *, secret: str | None = None) -> StepError:
    """A plain-words StepError for an SDK exception (the API key is never part of it)."""
    import anthropic

    keys = (secret, os.environ.get("ANTHROPIC_API_KEY"))
    values: dict[str, Any] = {}
    if isinstance(exc, anthropic.APITimeoutError):
        kind, status, text = (
            "timeout",
            None,
            gettext_noop("The API did not answer in time. Step again."),
        )
    elif isinstance(exc, anthropic.APIConnectionError):
        kind, status = "connection", None
        text = gettext_noop(
            "Could not connect to the Messages API. Check ANTHROPIC_BASE_URL and the network, "
            "then step again."
        )
    elif isinstance(exc, anthropic.APIStatusError):
        status = exc.status_code
        kind = _ERROR_KINDS.get(status, "api_error" if status >= 500 else "invalid_request")
        body: dict[str, Any] = exc.body if isinstance(exc.body, dict) else {}
        raw_error = body.get("error")
        error: dict[str, Any] = raw_error if isinstance(raw_error, dict) else {}
        api_type = error.get("type") or kind
        api_message = redact(str(error.get("message") or "")[:300], *keys)
        text = WITH_API_MESSAGE if api_message else WITHOUT_API_MESSAGE
        own_key = bool(secret) and secret != os.environ.get("ANTHROPIC_API_KEY")
        words = _ERROR_WORDS["authentication_own" if kind == "authentication" and own_key else kind]
        values = {"words": Phrase(words), "status": str(status), "type": str(api_type)}
        if api_message:
            values["api_message"] = api_message
    else:
        kind, status = "api_error", None
        text = gettext_noop("The API's answer could not be read. Step again.")
    message = redact(english(text, values), *keys)
    retry_after = None
    response = getattr(exc, "response", None)
    if response is not None:
        try:
            retry_after = float(response.headers.get("retry-after", ""))
        except ValueError:
            retry_after = None
    return StepError(
        kind=kind,
        message=message,
        status=status,
        retry_after=retry_after,
        msg=dump(text, values),
    )
