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

HOSTILE = [
    '<script>alert("x")</script>',
    "a & b 'q' \"dq\"",
    "line\nbreak\r\nand\rmore",
    "%(x)s %s %%",
]
#: Values of every JSON type, and strings a template treats specially (.title is a str method).
ODD = [None, "", 0, 1, 2.5, -3, True, False, [], {}, ["a", "b"], {"k": "v"}, *HOSTILE, "x" * 40]

TYPES = [
    "text", "thinking", "redacted_thinking", "tool_use", "server_tool_use",
    "web_search_tool_result", "web_fetch_tool_result", "code_execution_tool_result",
    "bash_code_execution_tool_result", "container_upload", "mcp_tool_result", "something_new",
]  # fmt: skip
#: The fields the template reads of each block (and of what they hold).
FIELDS = ["text", "citations", "thinking", "signature", "data", "name", "id", "caller",
          "tool_use_id", "content", "file_id", "input"]  # fmt: skip


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


@pytest.mark.parametrize("raw", [False, True])
def test_every_block_of_every_library_run_is_the_templates(raw):
    turns = [t for run in library().runs().values() for t in run.transcript.turns]
    blocks = [b for t in turns for b in t.blocks]
    assert len(turns) > 50 and {"text", "tool_use", "thinking"} <= {b.type for b in blocks}
    _same(blocks, raw)


def _odd_content():
    """What ``content`` may hold: an error, a list of results, a fetched page, an output."""
    yield from ODD
    for value in ODD[:12] + HOSTILE:
        yield {"error_code": value}
        yield [{"title": value, "url": value, "page_age": value}, value]
        yield {"url": value, "retrieved_at": value}
        yield {"return_code": value, "stdout": value, "stderr": value}


def _odd_data(kind: str):
    yield {"type": kind}
    for field in FIELDS:
        for value in ODD:
            yield {"type": kind, field: value}
    for content in _odd_content():
        yield {"type": kind, "tool_use_id": "srvtoolu_1", "content": content}
    for value in ODD:
        citation = {"type": value, "cited_text": value, "url": value, "title": value}
        yield {"type": kind, "text": "t", "citations": [citation, {"document_title": value}]}
        yield {"type": kind, "caller": {"type": value, "tool_id": value}, "input": {"q": value}}
    yield {"type": kind, "thinking": "x" * 300, "signature": "s" * 300, "data": "d" * 300}


@pytest.mark.parametrize("kind", TYPES)
def test_odd_blocks_of_every_type_are_the_templates(kind):
    known = [Block(i, kind, data) for i, data in enumerate(_odd_data(kind))]
    # English, and a language that writes numbers its own way (2,5)
    _same(known, raw=False, langs=("en", "pl"))
    data = {"type": kind, "text": HOSTILE[0], "content": HOSTILE[1]}
    shown_raw = [
        Block(0, kind, data),
        Block(1, kind, data, known=False),
        Block(2, kind, data, known=False, reason="a <newer> shape & 'more'"),
    ]
    _same(shown_raw, raw=True)
    _same(shown_raw, raw=False)
    _same([], raw=False)


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
