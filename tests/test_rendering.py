"""Markdown from authors is untrusted: it is rendered, then sanitised with an allowlist."""

from html.parser import HTMLParser

import pytest

from core.rendering import ALLOWED_TAGS, render_inline, render_markdown

HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    '<a href="javascript:alert(1)">x</a>',
    "<iframe src=https://example.com></iframe>",
    '<svg onload="alert(1)"></svg>',
    "<style>body{display:none}</style>",
    '<div style="background:url(javascript:alert(1))">x</div>',
    "![x](javascript:alert(1))",
    '<details open ontoggle="alert(1)">x</details>',
    "<form action=/x><button>go</button></form>",
    '<p onclick="alert(1)">x</p>',
    "&lt;script&gt;alert(1)&lt;/script&gt;",
    '## Title {: onclick="alert(1)" }',
    "`<script>alert(1)</script>`",
]


class TagCollector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def live_tags(html):
    """The real elements of the HTML (escaped text is not an element)."""
    collector = TagCollector()
    collector.feed(html)
    return collector.tags


@pytest.mark.parametrize("payload", HOSTILE)
def test_hostile_markdown_renders_inert(payload):
    for tag, attrs in live_tags(render_markdown(payload).html):
        assert tag in ALLOWED_TAGS, tag
        for name, value in attrs.items():
            assert not name.startswith("on"), (tag, name)
            assert name != "style"
            if name in ("href", "src"):
                assert (
                    value.split(":")[0].lower() in ("http", "https", "mailto") or ":" not in value
                )


def test_markdown_features_survive_sanitising():
    html = render_markdown(
        "## Part {#part}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nx = 1\n```\n\n"
        '!!! trap "Careful"\n    Body.\n\n[docs](https://platform.claude.com/docs)'
    ).html
    assert "<h2>Part</h2>" in html  # authored text sets no ids (the shipped notes may)
    assert "<table>" in html
    assert 'class="highlight"' in html and '<span class="n">x</span>' in html
    assert '<div class="admonition trap">' in html
    assert 'href="https://platform.claude.com/docs"' in html


def test_generated_blocks_are_inserted_after_sanitising():
    html = render_markdown(
        "Intro\n\n[[catalogue:demo]]\n", blocks={"catalogue:demo": lambda: "<svg></svg>"}
    ).html
    assert "<svg></svg>" in html


def test_unknown_markers_stay_text():
    assert "[[catalogue:nope]]" in render_markdown("[[catalogue:nope]]").html


def test_inline_rendering_has_no_paragraph():
    assert render_inline("Use `tool_use`") == "Use <code>tool_use</code>"


def test_a_line_break_between_chinese_characters_is_not_shown_as_a_space():
    html = render_markdown(
        "这段文本与一个 `tool_use` 块出现在同一个\n响应中。\n\n```\n第一行\n第二行\n```"
    ).html
    assert "同一个响应中" in html
    assert "第一行\n第二行" in html  # code blocks stay verbatim


def test_a_line_break_between_latin_words_stays():
    assert "one\nresponse" in render_markdown("in the same one\nresponse").html
