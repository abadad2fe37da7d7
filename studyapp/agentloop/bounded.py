"""One bounded parser for every JSON and YAML document the site reads from outside.

Pure Python, no Django: the site's forms and imports and the agent loop package use the same
limits. Every limit is enforced before or while parsing, never after the damage:

- size: the text's length in UTF-8 bytes, checked first;
- depth: JSON is pre-scanned in one linear pass (brackets outside strings) before ``json.loads``;
  YAML nodes are counted and their depth tracked while the composer builds them;
- count: the number of values (JSON: brackets and commas in the pre-scan; YAML: nodes);
- aliases: YAML anchors and aliases (``&a`` / ``*a``) are refused, so an alias bomb cannot
  expand; tags other than the safe loader's plain ones are refused by the safe loader;
- duplicate keys: refused with the key's name, instead of silently keeping the last value;
- ``NaN`` / ``Infinity``: refused (they are not JSON).

Every refusal is a ``LimitError`` (a ``ValueError``) whose message names the limit in words and
whose ``limit`` attribute names it for code; no input raises ``RecursionError``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

__all__ = [
    "Limits",
    "LimitError",
    "JSON_ANSWER",
    "JSON_FIELD",
    "UPLOAD",
    "IMPORT",
    "loads_json",
    "load_yaml",
    "check_tree",
    "as_text",
    "int_param",
]


@dataclass(frozen=True)
class Limits:
    max_bytes: int = 2 * 1024 * 1024
    max_depth: int = 64
    max_values: int = 200_000  # values in the whole document (containers and scalars)

    def but(self, **changes: int) -> Limits:
        return replace(self, **changes)


#: A candidate's typed JSON answer (json / fix kinds): short, shallow.
JSON_ANSWER = Limits(max_bytes=20_000, max_depth=32, max_values=5_000)
#: A JSON field of the author editor (messages, a response, a sample answer).
JSON_FIELD = Limits(max_bytes=200_000, max_depth=32, max_values=20_000)
#: An uploaded transcript or a live run's manual result.
UPLOAD = Limits(max_bytes=2 * 1024 * 1024, max_depth=64, max_values=500_000)
#: A question bank import (our own full export of the bank must fit).
IMPORT = Limits(max_bytes=8 * 1024 * 1024, max_depth=48, max_values=2_000_000)


class LimitError(ValueError):
    """The text is refused; ``limit`` is one of size, depth, count, alias, duplicate-key,
    number, encoding, syntax, nul; ``line`` and ``column`` (1-based, 0 when unknown) say where."""

    def __init__(
        self, message: str, *, limit: str, line: int = 0, column: int = 0, detail: str = ""
    ) -> None:
        super().__init__(message)
        self.message = message
        self.limit = limit
        self.line = line
        self.column = column
        self.detail = detail or message  # for syntax errors: the parser's own reason


def _mb(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MB" if n >= 1024 * 1024 else f"{n:,} bytes"


def as_text(data: str | bytes, limits: Limits, what: str = "The text") -> str:
    """Decode (UTF-8, an optional BOM) and check the size, before anything parses it."""
    if isinstance(data, bytes | bytearray | memoryview):
        raw = bytes(data)
        if len(raw) > limits.max_bytes:
            raise _too_big(what, len(raw), limits)
        try:
            return raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise LimitError(
                f"{what} is not UTF-8 text (a byte that is not UTF-8 at position {exc.start}).",
                limit="encoding",
            ) from None
    if not isinstance(data, str):
        raise LimitError(f"{what} must be text.", limit="encoding")
    # Quick bound first: a str's UTF-8 size is at most 4 bytes per character.
    if len(data) > limits.max_bytes or (
        4 * len(data) > limits.max_bytes
        and len(data.encode("utf-8", "surrogatepass")) > limits.max_bytes
    ):
        raise _too_big(what, len(data.encode("utf-8", "surrogatepass")), limits)
    return data.removeprefix("\ufeff")


def _too_big(what: str, size: int, limits: Limits) -> LimitError:
    return LimitError(
        f"{what} is {_mb(size)}; the size limit is {_mb(limits.max_bytes)}.", limit="size"
    )


# --- JSON ---------------------------------------------------------------------------------

# A string (possessive: no backtracking, linear even when it never closes) or one structural
# character. Everything else is skipped by finditer.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]++|\\.)*+"?|[\[\]{},]', re.DOTALL)
_NUL = re.compile(r"(?<!\\)(?:\\\\)*\\u0000")  # a \u0000 escape (not "\\" and "u0000")


def _line_col(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def _prescan_json(text: str, limits: Limits, what: str) -> None:
    depth = 0
    values = 1
    for m in _JSON_TOKEN.finditer(text):
        c = text[m.start()]
        if c == '"':  # a string: a NUL in one can't be stored (PostgreSQL's text, jsonb)
            if text.find("\\u0000", *m.span()) >= 0 and (nul := _NUL.search(text, *m.span())):
                line, col = _line_col(text, nul.end() - 6)
                message = f"{what} holds a NUL character (\\u0000) at line {line}, column {col}"
                raise LimitError(f"{message}; no text may contain one.", limit="nul", line=line)
            continue
        if c in "[{":
            depth += 1
            values += 1
            if depth > limits.max_depth:
                line, col = _line_col(text, m.start())
                raise LimitError(
                    f"{what} is nested more than {limits.max_depth} levels deep (line {line}, "
                    f"column {col}); the depth limit is {limits.max_depth}.",
                    limit="depth",
                    line=line,
                    column=col,
                )
        elif c in "]}":
            depth -= 1
        else:  # a comma: one more value
            values += 1
        if values > limits.max_values:
            raise LimitError(
                f"{what} holds more than {limits.max_values:,} values; "
                f"the count limit is {limits.max_values:,}.",
                limit="count",
            )


#: Digits in one JSON number: no real value needs more, and Python's own limit (4,300) would
#: otherwise surface as a message about sys.set_int_max_str_digits().
MAX_NUMBER_DIGITS = 100


def _number_error(text: str, what: str) -> LimitError:
    return LimitError(
        f"{what} has a number with {len(text):,} characters; a number may have at most "
        f"{MAX_NUMBER_DIGITS} digits.",
        limit="number",
    )


def _int(what: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if len(text) > MAX_NUMBER_DIGITS:
            raise _number_error(text, what)
        return int(text)

    return parse


def _float(what: str) -> Callable[[str], float]:
    def parse(text: str) -> float:
        if len(text) > MAX_NUMBER_DIGITS:
            raise _number_error(text, what)
        value = float(text)
        if value in (float("inf"), float("-inf")):
            raise LimitError(f"{what} has a number too large to hold ({text}).", limit="number")
        return value

    return parse


def _no_constant(name: str) -> Any:
    raise LimitError(f"{name} is not valid JSON.", limit="syntax")


def _pairs(what: str) -> Callable[[list[tuple[str, Any]]], dict[str, Any]]:
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        d = dict(pairs)
        if len(d) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    raise LimitError(
                        f"{what} has the key {json.dumps(key)} twice in one object; "
                        "each key may appear only once.",
                        limit="duplicate-key",
                    )
                seen.add(key)
        return d

    return hook


def loads_json(data: str | bytes, limits: Limits = UPLOAD, *, what: str = "The JSON") -> Any:
    """Parse one JSON document within ``limits``; raise LimitError naming what is wrong."""
    text = as_text(data, limits, what)
    _prescan_json(text, limits, what)
    try:
        return json.loads(
            text,
            parse_constant=_no_constant,
            parse_int=_int(what),
            parse_float=_float(what),
            object_pairs_hook=_pairs(what),
        )
    except json.JSONDecodeError as exc:
        raise LimitError(
            f"{what} is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno}).",
            limit="syntax",
            line=exc.lineno,
            column=exc.colno,
            detail=exc.msg,
        ) from None
    except RecursionError:  # pragma: no cover - the pre-scan bounds the depth first
        raise LimitError(f"{what} is nested too deeply.", limit="depth") from None
    except LimitError:
        raise  # from a hook: already in words
    except ValueError as exc:  # pragma: no cover - every known cause has its own check above
        raise LimitError(f"{what} could not be read as JSON.", limit="syntax") from exc


def check_tree(value: Any, limits: Limits, *, what: str = "The data") -> None:
    """Depth and count of an already parsed value, without recursion."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    seen = 0
    while stack:
        item, depth = stack.pop()
        seen += 1
        if seen > limits.max_values:
            raise LimitError(
                f"{what} holds more than {limits.max_values:,} values; "
                f"the count limit is {limits.max_values:,}.",
                limit="count",
            )
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list | tuple):
            children = item
        else:
            continue
        if depth > limits.max_depth:
            raise LimitError(
                f"{what} is nested more than {limits.max_depth} levels deep; "
                f"the depth limit is {limits.max_depth}.",
                limit="depth",
            )
        stack.extend((child, depth + 1) for child in children)


# --- YAML ---------------------------------------------------------------------------------


def bounded_loader(base: type, limits: Limits, what: str = "The YAML") -> type:
    """A subclass of a yaml SafeLoader (``base``) that refuses aliases, bounds depth and node
    count while composing, and refuses duplicate mapping keys."""
    import yaml

    class Bounded(base):  # type: ignore[misc]
        _depth = 0
        _nodes = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            if self.check_event(yaml.AliasEvent):
                event = self.peek_event()
                mark = event.start_mark
                raise LimitError(
                    f"{what} uses an alias (*{event.anchor}) at line {mark.line + 1}; "
                    "aliases and anchors are not accepted, write the value out in full.",
                    limit="alias",
                    line=mark.line + 1,
                    column=mark.column + 1,
                )
            event = self.peek_event()
            if getattr(event, "anchor", None):
                mark = event.start_mark
                raise LimitError(
                    f"{what} defines an anchor (&{event.anchor}) at line {mark.line + 1}; "
                    "aliases and anchors are not accepted, write the value out in full.",
                    limit="alias",
                    line=mark.line + 1,
                    column=mark.column + 1,
                )
            self._nodes += 1
            if self._nodes > limits.max_values:
                raise LimitError(
                    f"{what} holds more than {limits.max_values:,} values; "
                    f"the count limit is {limits.max_values:,}.",
                    limit="count",
                )
            self._depth += 1
            try:
                if self._depth > limits.max_depth:
                    mark = event.start_mark
                    raise LimitError(
                        f"{what} is nested more than {limits.max_depth} levels deep (line "
                        f"{mark.line + 1}); the depth limit is {limits.max_depth}.",
                        limit="depth",
                        line=mark.line + 1,
                        column=mark.column + 1,
                    )
                return super().compose_node(parent, index)
            finally:
                self._depth -= 1

        def compose_mapping_node(self, anchor: Any) -> Any:
            node = super().compose_mapping_node(anchor)
            _refuse_duplicate_keys(node, what)
            return node

    return Bounded


def _refuse_duplicate_keys(node: Any, what: str) -> None:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        if getattr(key_node, "tag", "") == "tag:yaml.org,2002:merge":
            continue
        key = key_node.value if isinstance(key_node.value, str) else None
        if key is None:
            continue
        if key in seen:
            mark = key_node.start_mark
            raise LimitError(
                f"{what} has the key {key!r} twice in one mapping (line {mark.line + 1}); "
                "each key may appear only once.",
                limit="duplicate-key",
                line=mark.line + 1,
                column=mark.column + 1,
            )
        seen.add(key)


# A plain scalar the safe loader would turn into an int or a float (YAML 1.1 forms, loosely).
_YAML_NUMBER = re.compile(r"[-+]?(?:0[xob])?[0-9a-fA-F_:.]+(?:[eE][-+]?[0-9]+)?")


def _mark(event: Any) -> tuple[int, int]:
    mark = event.start_mark
    return mark.line + 1, mark.column + 1


def prescan_yaml(
    text: str, limits: Limits, what: str = "The YAML", parser: type | None = None
) -> None:
    """Walk the YAML's events once (libyaml's C parser when there is one) and refuse anchors,
    aliases, duplicate keys, too many nodes and too deep a nesting before any node is built."""
    import yaml

    if parser is None:
        parser = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    depth = nodes = 0
    # One frame per open collection: [is_mapping, next node is a key, keys seen]
    stack: list[list[Any]] = []

    def completed() -> None:
        if stack and stack[-1][0]:
            stack[-1][1] = not stack[-1][1]

    for event in yaml.parse(text, Loader=parser):
        if isinstance(event, yaml.AliasEvent | yaml.NodeEvent) and getattr(event, "anchor", None):
            line, col = _mark(event)
            sign = "*" if isinstance(event, yaml.AliasEvent) else "&"
            kind = "an alias" if sign == "*" else "an anchor"
            raise LimitError(
                f"{what} uses {kind} ({sign}{event.anchor}) at line {line}; aliases and anchors "
                "are not accepted, write the value out in full.",
                limit="alias",
                line=line,
                column=col,
            )
        if isinstance(event, yaml.ScalarEvent | yaml.CollectionStartEvent):
            nodes += 1
            if nodes > limits.max_values:
                raise LimitError(
                    f"{what} holds more than {limits.max_values:,} values; "
                    f"the count limit is {limits.max_values:,}.",
                    limit="count",
                )
            top = stack[-1] if stack else None
            if top is not None and top[0] and top[1] and isinstance(event, yaml.ScalarEvent):
                key = event.value
                if key in top[2] and key != "<<":
                    line, col = _mark(event)
                    raise LimitError(
                        f"{what} has the key {key!r} twice in one mapping (line {line}); "
                        "each key may appear only once.",
                        limit="duplicate-key",
                        line=line,
                        column=col,
                    )
                top[2].add(key)
            if isinstance(event, yaml.ScalarEvent):
                if (
                    not event.style  # plain: None in PyYAML, "" from libyaml
                    and len(event.value) > MAX_NUMBER_DIGITS
                    and _YAML_NUMBER.fullmatch(event.value)
                ):
                    line, col = _mark(event)
                    error = _number_error(event.value, what)
                    error.line, error.column = line, col
                    raise error
                completed()
            else:
                depth += 1
                if depth > limits.max_depth:
                    line, col = _mark(event)
                    raise LimitError(
                        f"{what} is nested more than {limits.max_depth} levels deep (line "
                        f"{line}); the depth limit is {limits.max_depth}.",
                        limit="depth",
                        line=line,
                        column=col,
                    )
                stack.append([isinstance(event, yaml.MappingStartEvent), True, set()])
        elif isinstance(event, yaml.CollectionEndEvent):
            stack.pop()
            depth -= 1
            completed()


def load_yaml(
    data: str | bytes,
    limits: Limits = IMPORT,
    *,
    what: str = "The YAML",
    loader: type | None = None,
) -> Any:
    """Parse one YAML document within ``limits`` with a safe loader (``loader``: a SafeLoader
    subclass whose constructors are used); raise LimitError naming what is wrong.

    Two passes, both linear: the events are checked first (``prescan_yaml``), then the document
    is built, with libyaml's C composer when it is installed (ten times faster than PyYAML's
    own). yaml.YAMLError (a syntax error) is passed through with its mark for the caller.
    """
    import yaml

    text = as_text(data, limits, what)
    base = loader or yaml.SafeLoader
    fast = getattr(yaml, "CSafeLoader", None)
    prescan_yaml(text, limits, what, parser=fast or base)
    if fast is not None:
        constructors = dict(getattr(base, "yaml_constructors", {}))
        cls = type("BoundedCLoader", (fast,), {"yaml_constructors": constructors})
    else:  # pragma: no cover - libyaml is installed with PyYAML's wheels
        cls = bounded_loader(base, limits, what)
    instance = cls(text)
    try:
        return instance.get_single_data()
    except RecursionError:  # pragma: no cover - depth is bounded by the pre-scan
        raise LimitError(f"{what} is nested too deeply.", limit="depth") from None
    except (ValueError, TypeError, OverflowError) as exc:
        if isinstance(exc, LimitError):
            raise
        # A constructor refused a value (a date like 2026-13-45, say): name it, never a 500.
        raise LimitError(
            f"{what} has a value that could not be read ({exc}).", limit="syntax"
        ) from None
    finally:
        instance.dispose()


# --- integers from a query string or a form -------------------------------------------------

_INT_RE = re.compile(r"[0-9]{1,18}")


def int_param(value: Any, *, low: int, high: int, default: int | None = None) -> int | None:
    """``value`` as an int when it is plain ASCII digits within [low, high], else ``default``.

    Never raises: 5,000 digits, "²" (which str.isdigit accepts and int() refuses) or "-1" all
    give the default, without converting a huge string first.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif isinstance(value, str) and _INT_RE.fullmatch(value.strip()):
        number = int(value.strip())
    else:
        return default
    return number if low <= number <= high else default
