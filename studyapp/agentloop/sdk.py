"""The installed anthropic SDK, imported the first time something needs it.

``import anthropic`` (or any ``anthropic.types`` name: Python imports the parent packages first)
costs about 1.4 s of CPU, because the SDK's ``__init__`` modules import every resource and every
type. Most processes never need it: ``manage.py check``, ``migrate``, ``createinstructor``, a
notes page. So this package imports the SDK only where it validates, sends or reads what the SDK
defines, through the functions here (each caches its answer); ``studyapp/wsgi.py`` calls
:func:`load` so a server's workers pay it at boot, not on their first transcript.

The SDK stays the ground truth: these functions read its types, and the values this package
writes down by hand (the catalogue's stop reasons, the refusal categories, the API version) are
compared with these functions by tests (tests/test_agentloop_sdk.py)."""

from __future__ import annotations

import functools
import typing
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pydantic
    from anthropic.types import Message


def load() -> None:
    """Import the SDK now (a server process: at boot rather than in its first request)."""
    message_type()
    block_models()


@functools.cache
def message_type() -> type[Message]:
    """``anthropic.types.Message``: the model a recorded response is validated with."""
    from anthropic.types import Message

    return Message


@functools.cache
def block_models() -> dict[str, type[pydantic.BaseModel]]:
    """Response block type -> the SDK model that validates it (``anthropic.types.ContentBlock``)."""
    from anthropic.types import ContentBlock

    return {
        typing.get_args(cls.model_fields["type"].annotation)[0]: cls
        for cls in typing.get_args(typing.get_args(ContentBlock)[0])
    }


@functools.cache
def stop_reasons() -> tuple[str, ...]:
    """The stop_reason values the SDK declares (``anthropic.types.StopReason``)."""
    from anthropic.types import StopReason

    return typing.get_args(StopReason)


@functools.cache
def refusal_categories() -> tuple[str, ...]:
    """The values of ``stop_details.category`` (``anthropic.types.RefusalStopDetails``)."""
    from anthropic.types import RefusalStopDetails

    annotation = RefusalStopDetails.model_fields["category"].annotation
    return typing.get_args(typing.get_args(annotation)[0])


def api_version() -> str:
    """The ``anthropic-version`` header the installed SDK sends."""
    from anthropic._constants import ANTHROPIC_API_VERSION

    return ANTHROPIC_API_VERSION
