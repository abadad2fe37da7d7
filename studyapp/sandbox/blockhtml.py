"""A response's content blocks as HTML, written in Python: what ``sandbox/_blocks.html`` renders.

The step page renders a run's blocks once per step (then keeps them, views._Panels); an upload or
a live run is a new run, so every one of its steps is rendered at least once, and a long
upload's step is never kept (it is over the size a kept part may have). Through the template
engine the block list was the costliest part of a step: each block walks an ``if``/``elif`` of
ten types, each test a lookup. Here each block is one dispatch on its type.

``sandbox/_blocks.html`` stays the specification: tests/test_sandbox_blocks.py renders it with
Django and compares, byte for byte, on every block of the library's runs and on odd blocks of
every type, in every language, raw and not. Everything recorded is escaped exactly as the
template escapes it: each value goes through Django's ``render_value_in_context``, each lookup
through Django's own variable resolution unless it is a plain key of a dict (the template's
first try too), each translated sentence through the same gettext call and the same ``%``.
"""

from __future__ import annotations

from typing import Any

from django.template import Context
from django.template.base import Variable, VariableDoesNotExist, render_value_in_context
from django.template.defaultfilters import length, linebreaksbr, truncatechars
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import gettext, ngettext, pgettext

#: What ``render_value_in_context`` reads of a context: autoescape on, the settings' l10n and tz
#: (render_to_string's context has the same defaults); never written to.
_CONTEXT = Context()
_MISSING = object()
_LOOKUPS: dict[str, Variable] = {}


def _get(obj: Any, bit: str) -> Any:
    """``obj.bit`` as a template resolves it (one step of Variable._resolve_lookup), or
    ``_MISSING`` where the template would find nothing."""
    if type(obj) is dict:
        value = obj.get(bit, _MISSING)
        if value is not _MISSING and not callable(value):
            return value
    if obj is _MISSING:
        return _MISSING
    lookup = _LOOKUPS.get(bit)
    if lookup is None:
        lookup = _LOOKUPS[bit] = Variable(f"v.{bit}")
    try:
        return lookup.resolve({"v": obj})
    except VariableDoesNotExist:
        return _MISSING


def _path(obj: Any, *bits: str) -> Any:
    for bit in bits:
        obj = _get(obj, bit)
        if obj is _MISSING:
            break
    return obj


def _v(value: Any) -> str:
    """``{{ value }}``: a missing value is the engine's string_if_invalid ("")."""
    if value is _MISSING:
        return ""
    return render_value_in_context(value, _CONTEXT)


def _f(value: Any) -> Any:
    """What a filter receives: a missing value as "" (string_if_invalid, filters applied)."""
    return "" if value is _MISSING else value


def _true(value: Any) -> bool:
    """``{% if value %}``: a missing value is None."""
    return value is not _MISSING and bool(value)


def _seq(value: Any) -> Any:
    """``{% for x in value %}``: missing or None iterates nothing."""
    if value is _MISSING or value is None:
        return ()
    if not hasattr(value, "__len__"):
        value = list(value)
    return value


def _bt(singular: str, values: dict[str, Any]) -> str:
    """``{% blocktranslate with k=v %}`` with ``singular`` its msgid (``%(k)s`` for each)."""
    data = {k: render_value_in_context(v, _CONTEXT) for k, v in values.items()}
    try:
        return gettext(singular) % data
    except (KeyError, ValueError):  # a broken translation: the tag renders the English
        return singular % data


def _bt_count(singular: str, plural: str, count: Any) -> str:
    """``{% blocktranslate count counter=... %}`` (the counter, a number, is its only value)."""
    data = {"counter": render_value_in_context(count, _CONTEXT)}
    try:
        return ngettext(singular, plural, count) % data
    except (KeyError, ValueError):
        return (singular if count == 1 else plural) % data


def _t(message: str) -> str:
    """``{% translate "..." %}``: a literal, so its translation is not escaped."""
    return gettext(mark_safe(message))  # noqa: S308 - our own literal


def _pt(context: str, message: str) -> str:
    return pgettext(context, mark_safe(message))  # noqa: S308 - our own literal


def _text(b: dict, data: Any) -> list[str]:
    out = [
        '\n      <div class="block-text">',
        _v(linebreaksbr(_f(_get(data, "text")))),
        "</div>\n      ",
    ]
    citations = _get(data, "citations")
    if _true(citations):
        out += [
            '<details class="citations"><summary>',
            _bt_count("%(counter)s citation", "%(counter)s citations", length(citations)),
            "</summary><ol>\n        ",
        ]
        for c in _seq(citations):
            out.append("<li>")
            cited = _get(c, "cited_text")
            if _true(cited):
                out += ["<q>", _v(cited), "</q>"]
            out.append("\n          ")
            url = _get(c, "url")
            if _true(url):
                title = _f(_get(c, "title")) or ""  # |default:""
                out += ['<br><span class="muted break-any">', _v(title), " ", _v(url), "</span>"]
            elif _true(document_title := _get(c, "document_title")):
                out += ['<br><span class="muted">', _v(document_title), "</span>"]
            elif _true(title := _get(c, "title")):
                out += ['<br><span class="muted">', _v(title), "</span>"]
            out += ['\n          <span class="muted">(', _v(_get(c, "type")), ")</span></li>"]
        out.append("</ol></details>")
    out.append("\n    ")
    return out


def _thinking(b: dict, data: Any) -> list[str]:
    out = ["\n      "]
    thinking = _get(data, "thinking")
    if _true(thinking):
        out += [
            "<details><summary>",
            _bt_count(
                "Thinking (%(counter)s character)", "Thinking (%(counter)s characters)",
                length(thinking),
            ),
            '</summary><div class="block-text">',
            _v(linebreaksbr(thinking)),
            "</div></details>\n      ",
        ]  # fmt: skip
    else:
        out += [
            "<p>",
            _bt(
                'thinking (text omitted by the API) <span class="muted">(display "omitted", the '
                "default on newer models: the block still goes back unchanged)</span>",
                {},
            ),
            "</p>",
        ]
    signature = truncatechars(_f(_get(data, "signature")), 20)
    out += [
        '\n      <p class="muted">',
        _bt(
            "signature <code>%(signature)s</code>: passed back unchanged", {"signature": signature}
        ),
        "</p>\n    ",
    ]
    return out


def _redacted_thinking(b: dict, data: Any) -> list[str]:
    value = truncatechars(_f(_get(data, "data")), 24)
    return [
        "\n      <p>",
        _bt("Encrypted thinking <code>%(data)s</code>: passed back unchanged.", {"data": value}),
        "</p>\n    ",
    ]


def _tool_use(b: dict, data: Any) -> list[str]:
    out = [
        "\n      <p><code>",
        _v(_get(data, "name")),
        '</code> <span class="muted">',
        _pt("tool call id", "id"),
        ' <span class="break-any">',
        _v(_get(data, "id")),
        "</span>",
        " · " + _t("runs on Anthropic's servers")
        if b["type"] == "server_tool_use"
        else " · " + _t("your application runs it"),
        "</span></p>\n      ",
    ]
    caller = _get(data, "caller")
    if _true(caller):
        out += ['<p class="muted">', _t("caller:"), " <code>", _v(_get(caller, "type")), "</code>"]
        tool_id = _get(caller, "tool_id")
        if _true(tool_id):
            out += [" ", _pt("caller", "from"), ' <code class="break-any">', _v(tool_id), "</code>"]
        out.append("</p>")
    out += ['\n      <pre tabindex="0"><code>', _v(_get(b, "input_json")), "</code></pre>\n    "]
    return out


def _result_of(data: Any) -> str:
    return _bt("Result of <code>%(id)s</code>", {"id": _f(_get(data, "tool_use_id"))})


def _error_code(content: Any) -> list[str] | None:
    code = _get(content, "error_code")
    if not _true(code):
        return None
    return ['<p class="badge badge-error">', _t("error:"), " ", _v(code), "</p>\n      "]


def _server_result(data: Any, *where: str) -> tuple[list[str], Any, list[str] | None]:
    """A server tool's result: the muted line naming the call it answers (and ``where`` the
    tool ran, translated), its content, and its error code's lines when the content is one."""
    line = [_result_of(data), " · ", *where] if where else [_result_of(data)]
    content = _get(data, "content")
    return ['\n      <p class="muted">', *line, "</p>\n      "], content, _error_code(content)


def _web_search(b: dict, data: Any) -> list[str]:
    out, content, error = _server_result(data)
    if error is not None:
        out += error
    else:
        out.append("<ul>")
        for item in _seq(content):
            out += [
                "<li>",
                _v(_get(item, "title")),
                ' <span class="muted break-any">',
                _v(_get(item, "url")),
                "</span>",
            ]
            page_age = _get(item, "page_age")
            if _true(page_age):
                out += [' <span class="muted">· page_age ', _v(page_age), "</span>"]
            out.append("</li>")
        out.append("</ul>")
    out.append("\n    ")
    return out


def _web_fetch(b: dict, data: Any) -> list[str]:
    out, content, error = _server_result(data, _t("runs on Anthropic's servers"))
    if error is not None:
        out += error
    else:
        url = _f(_path(content, "url"))
        at = _get(content, "retrieved_at")
        if _true(at):
            line = _bt(
                'Fetched <span class="muted">%(url)s</span> at %(at)s', {"url": url, "at": _f(at)}
            )
        else:
            line = _bt('Fetched <span class="muted">%(url)s</span>', {"url": url})
        out += ["<p>", line, "</p>"]
    out.append("\n    ")
    return out


def _code_execution(b: dict, data: Any) -> list[str]:
    out, content, error = _server_result(data, _t("ran in Anthropic's sandbox"))
    if error is not None:
        out += error
    else:
        out += [
            "<p>",
            _t("return code"),
            " <code>",
            _v(_get(content, "return_code")),
            "</code></p>\n        ",
        ]
        stdout = _get(content, "stdout")
        if _true(stdout):
            out += ['<pre tabindex="0"><code>', _v(stdout), "</code></pre>"]
        out.append("\n        ")
        stderr = _get(content, "stderr")
        if _true(stderr):
            out += [
                '<p class="muted">stderr</p><pre tabindex="0"><code>',
                _v(stderr),
                "</code></pre>",
            ]
    out.append("\n    ")
    return out


def _container_upload(b: dict, data: Any) -> list[str]:
    line = _bt(
        "File <code>%(file_id)s</code> uploaded to the code-execution container.",
        {"file_id": _f(_get(data, "file_id"))},
    )
    return ["\n      <p>", line, "</p>\n    "]


def _other(b: dict, data: Any) -> list[str]:
    out = ["\n      "]
    if _true(_get(data, "tool_use_id")):
        out += ['<p class="muted">', _result_of(data), "</p>"]
    out += ['\n      <pre tabindex="0"><code>', _v(_get(b, "json")), "</code></pre>\n    "]
    return out


_BY_TYPE = {
    "text": _text,
    "thinking": _thinking,
    "redacted_thinking": _redacted_thinking,
    "tool_use": _tool_use,
    "server_tool_use": _tool_use,
    "web_search_tool_result": _web_search,
    "web_fetch_tool_result": _web_fetch,
    "code_execution_tool_result": _code_execution,
    "bash_code_execution_tool_result": _code_execution,
    "container_upload": _container_upload,
}


def blocks_html(blocks: list[dict], raw: bool) -> SafeString:
    """``sandbox/_blocks.html`` rendered with ``blocks`` (views._block_views) and ``raw``."""
    out = ['\n<ol class="blocks">\n  ']
    for b in blocks:
        kind = b["type"]
        known = b["known"]
        shown = _v(kind)
        out += ['\n  <li class="block block-', shown]
        if not known:
            out.append(" block-unknown")
        out += ['">\n    <p class="block-head"><span class="block-type">', shown, "</span>"]
        if not known:
            out.append(' <span class="badge badge-warn">')
            reason = _get(b["block"], "reason")
            if _true(reason):
                out.append(_bt("shown raw: %(reason)s", {"reason": reason}))
            else:
                out.append(_t("shown raw: unknown type"))
            out.append("</span>")
        out.append("</p>\n    ")
        if raw or not known:
            out += [
                '\n      <pre tabindex="0" class="raw-json"><code>',
                _v(_get(b, "json")),
                "</code></pre>\n    ",
            ]
        else:
            out += _BY_TYPE.get(kind, _other)(b, b["data"])
        out.append("\n  </li>\n  ")
    out.append("\n</ol>\n")
    return mark_safe("".join(out))  # noqa: S308 - every value escaped above, as the template does
