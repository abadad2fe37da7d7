"""Truncation: a tool_use cut off by max_tokens must not be executed."""

from __future__ import annotations

from ..i18n import gettext_noop
from .findings import Finding, _finding, _str
from .history import _Msg
from .responses import _Responses


def _check_truncated(
    findings: list[Finding], msgs: list[_Msg], index: _Responses, *, since: int
) -> None:
    cut = index.cut
    if not cut:
        return
    appended: set[str] = set()  # cut-off calls the application put back into the history
    for m in msgs:
        if m.role == "assistant":
            appended.update(
                b["id"]
                for _, b in m.blocks
                if b.get("type") == "tool_use" and _str(b.get("id")) in cut
            )
        if m.role != "user" or m.index < since:
            continue
        for path, block in m.blocks:
            tool_id = block.get("tool_use_id")
            if block.get("type") == "tool_result" and _str(tool_id) in appended:
                findings.append(
                    _finding(
                        "truncated-tool-use-executed",
                        path,
                        gettext_noop(
                            "%(path)s answers %(id)s, a tool_use that max_tokens cut off, so its "
                            "input was incomplete. Don't run a cut-off call: send the same "
                            "request again with a larger max_tokens."
                        ),
                        {"path": path, "id": tool_id},
                    )
                )
