"""The SDK client, a response as JSON, and an SDK error described in plain words."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

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
        raise RunnerError("Live mode is off: ANTHROPIC_API_KEY is not set on the server.")
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
    "invalid_request": "The API rejected the request",
    "authentication": "The API key was not accepted; check ANTHROPIC_API_KEY on the server",
    "permission": "The API key may not use this model or feature",
    "not_found": "The API does not know this model or endpoint",
    "request_too_large": "The request is too large for the API",
    "rate_limit": "Rate limited: too many requests or tokens for now. Wait a moment, then step "
    "again",
    "overloaded": "The API is overloaded right now. Step again in a little while",
    "api_error": "The API had an internal error. Step again in a little while",
}


def describe_error(exc: anthropic.APIError, *, secret: str | None = None) -> StepError:
    """A plain-words StepError for an SDK exception (the API key is never part of it)."""
    import anthropic

    if isinstance(exc, anthropic.APITimeoutError):
        kind, status, text = "timeout", None, "The API did not answer in time. Step again."
    elif isinstance(exc, anthropic.APIConnectionError):
        kind, status = "connection", None
        text = (
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
        api_message = str(error.get("message") or "")[:300]
        text = f"{_ERROR_WORDS[kind]} (HTTP {status} {api_type})"
        text += f": {api_message}" if api_message else "."
    else:
        kind, status, text = "api_error", None, "The API's answer could not be read. Step again."
    text = redact(text, secret, os.environ.get("ANTHROPIC_API_KEY"))
    retry_after = None
    response = getattr(exc, "response", None)
    if response is not None:
        try:
            retry_after = float(response.headers.get("retry-after", ""))
        except ValueError:
            retry_after = None
    return StepError(kind=kind, message=text, status=status, retry_after=retry_after)
