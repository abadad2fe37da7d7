"""A step's content blocks written in Python (studyapp/sandbox/blockhtml.py) are what
sandbox/_blocks.html renders, byte for byte: on every block of every library run, and on odd
blocks of every type (fields missing, null, of another JSON type, numbers a language writes
its own way, markup), in every language, raw and not."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from core import i18n
from studyapp.agentloop.transcript.blocks import Block
from studyapp.sandbox import blockhtml, views
from studyapp.sandbox.library import library

#: Markup, quotes, line breaks of every kind and format specifiers, in one text.
HOSTILE = ['<script>alert("x")</script> a & b \'q\' "dq"\nline\r\nbreak\rmore %(x)s %s']
#: Values of every JSON type (a number a language writes its own way: 2,5), and strings (a
#: template calls a string's methods: ``item.title`` of a str is its title case).
ODD = [None, "", 0, 2.5, True, [], {"k": "v"}, *HOSTILE, "x" * 40]

#: Each type the template tells apart, with the fields it reads of it.
FIELDS = {
    "text": ["text", "citations"],
    "thinking": ["thinking", "signature"],
    "redacted_thinking": ["data"],
    "tool_use": ["name", "id", "caller", "input"],
    "server_tool_use": ["name", "id", "caller"],
    "web_search_tool_result": ["tool_use_id", "content"],
    "web_fetch_tool_result": ["tool_use_id", "content"],
    "code_execution_tool_result": ["tool_use_id", "content"],
    "bash_code_execution_tool_result": ["content"],
    "container_upload": ["file_id"],
    "mcp_tool_result": ["tool_use_id"],  # no branch of its own: shown as JSON
}


def _template(blocks: list[dict], raw: bool) -> str:
    return render_to_string("sandbox/_blocks.html", {"blocks": blocks, "raw": raw})


def _same(blocks: list[Block], raw: bool, langs=i18n.CODES) -> None:
    """Both write the same, or (a shape the SDK's validation never lets through to a known
    type, such as citations that are a number) both raise the same error: all the blocks in
    one list, else each alone."""
    turn = SimpleNamespace(blocks=blocks)
    for lang in langs:
        with translation.override(lang):
            try:
                expected = _template(views._block_views(turn, raw), raw)
            except Exception as e:  # noqa: BLE001 - compared below
                if len(blocks) > 1:
                    for block in blocks:
                        _same([block], raw, [lang])
                    continue
                with pytest.raises(type(e)):
                    blockhtml.blocks_html(views._block_views(turn, raw), raw)
                continue
            assert blockhtml.blocks_html(views._block_views(turn, raw), raw) == expected, lang


def test_every_block_of_every_library_run_is_the_templates():
    turns = [t for run in library().runs().values() for t in run.transcript.turns]
    blocks = [b for t in turns for b in t.blocks]
    assert len(turns) > 50 and {"text", "tool_use", "thinking"} <= {b.type for b in blocks}
    _same(blocks, raw=False, langs=("en", "zh-hant"))
    _same(blocks, raw=True, langs=("en",))


def _odd_content():
    """What ``content`` may hold: an error, a list of results, a fetched page, an output."""
    yield from ODD
    for value in ODD:
        yield {"error_code": value}
        yield [{"title": value, "url": value, "page_age": value}, value]
        yield {"url": value, "retrieved_at": value, "return_code": value, "stdout": value,
               "stderr": value}  # fmt: skip


def _odd_data(kind: str):
    yield {"type": kind}
    for field in FIELDS[kind]:
        for value in ODD:
            yield {"type": kind, field: value}
    if "content" in FIELDS[kind]:
        for content in _odd_content():
            yield {"type": kind, "tool_use_id": "srvtoolu_1", "content": content}
    if kind == "text":
        for value in ODD:
            citation = {"type": value, "cited_text": value, "url": value, "title": value}
            yield {"type": kind, "text": "t", "citations": [citation, {"document_title": value}]}
    if kind == "tool_use":
        for value in ODD:
            yield {"type": kind, "caller": {"type": value, "tool_id": value}, "input": {"q": value}}
    yield {"type": kind, "thinking": "x" * 300, "signature": "s" * 300, "data": "d" * 300}


def test_odd_blocks_of_every_type_are_the_templates():
    for kind in FIELDS:  # (in a language that writes 2.5 as 2,5)
        _same([Block(i, kind, data) for i, data in enumerate(_odd_data(kind))], False, ("pl",))
    shown_raw = []
    for kind in FIELDS:
        data = {"type": kind, "text": HOSTILE[0], "content": HOSTILE[0]}
        shown_raw += [
            Block(0, kind, data),
            Block(1, kind, data, known=False),
            Block(2, kind, data, known=False, reason="a <newer> shape & 'more'"),
        ]
    _same(shown_raw, raw=True, langs=("en", "zh-hans"))
    _same(shown_raw, raw=False, langs=("en", "zh-hans"))
    _same([], raw=False, langs=("en",))


def test_the_blocks_are_escaped_and_translated():
    block = Block(0, "text", {"type": "text", "text": "<b>x</b>\ny"})
    unknown = Block(1, "new_thing", {"type": "new_thing"}, known=False, reason="<i>why</i>")
    turn = SimpleNamespace(blocks=[block, unknown])
    html = blockhtml.blocks_html(views._block_views(turn, False), False)
    assert "&lt;b&gt;x&lt;/b&gt;<br>y" in html and "<b>" not in html
    assert "shown raw: &lt;i&gt;why&lt;/i&gt;" in html and "<i>" not in html
    with translation.override("pl"):
        polish = blockhtml.blocks_html(views._block_views(turn, False), False)
    assert polish != html and "shown raw" not in polish
