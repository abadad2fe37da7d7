"""Two runs side by side, aligned turn by turn: where they diverge, which block, token deltas."""

from __future__ import annotations

from typing import Any


def _block_sig(block: dict[str, Any]) -> tuple:
    kind = block.get("type")
    if kind == "text":
        return (kind, block.get("text"))
    if kind in ("tool_use", "server_tool_use"):
        return (kind, block.get("name"), repr(block.get("input")))
    if kind == "thinking":
        return (kind, block.get("thinking"))
    return (kind, repr({k: v for k, v in block.items() if k not in ("id", "tool_use_id")}))


def _describe(block: dict[str, Any] | None) -> str:
    if block is None:
        return "(no block)"
    kind = block.get("type", "?")
    if kind in ("tool_use", "server_tool_use"):
        return f"{kind} {block.get('name', '')}"
    if kind == "text":
        text = str(block.get("text", ""))
        return f"text “{text[:80]}{'…' if len(text) > 80 else ''}”"
    return str(kind)


def _results_sig(turn) -> list:
    out = []
    for r in turn.tool_results:
        if isinstance(r, dict):
            out.append((r.get("type"), repr(r.get("content")), r.get("is_error") is True))
    return out


def compare(a, b) -> dict[str, Any]:
    """Rows for each turn index of either run, and the first divergence (turn, block)."""
    ta, tb = a.transcript.turns, b.transcript.turns
    rows = []
    diverged: dict[str, Any] | None = None
    if a.transcript.messages != b.transcript.messages and not diverged:
        diverged = {"n": 1, "where": "the first user message differs", "block": None}
    for i in range(max(len(ta), len(tb))):
        x = ta[i] if i < len(ta) else None
        y = tb[i] if i < len(tb) else None
        row: dict[str, Any] = {"n": i + 1, "a": x, "b": y, "same": False, "block": None}
        if x is not None and y is not None:
            cx = x.response.get("content") or []
            cy = y.response.get("content") or []
            first = None
            for k in range(max(len(cx), len(cy))):
                bx = cx[k] if k < len(cx) else None
                by = cy[k] if k < len(cy) else None
                if bx is None or by is None or _block_sig(bx) != _block_sig(by):
                    first = (k, bx, by)
                    break
            results_differ = _results_sig(x) != _results_sig(y)
            row["same"] = first is None and x.stop_reason == y.stop_reason and not results_differ
            if first is not None:
                k, bx, by = first
                row["block"] = f"content[{k}]: {_describe(bx)} vs {_describe(by)}"
            elif x.stop_reason != y.stop_reason:
                row["block"] = f"stop_reason {x.stop_reason} vs {y.stop_reason}"
            elif results_differ:
                row["block"] = "the tool results sent back differ"
            row["d_in"] = y.context_tokens - x.context_tokens
            row["d_out"] = y.output_tokens - x.output_tokens
        else:
            row["block"] = "only in " + ("the first run" if y is None else "the second run")
        if not row["same"] and diverged is None:
            diverged = {"n": i + 1, "where": row["block"]}
        rows.append(row)
    return {"rows": rows, "diverged": diverged}
