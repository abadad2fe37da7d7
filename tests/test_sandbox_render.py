"""Parts of the sandbox's pages written in Python write what their templates wrote."""

import pytest
from django.template import engines

from studyapp.sandbox import reference

#: The decision panel's listing as _decision.html wrote it, a line at a time.
LISTING_TEMPLATE = (
    '{% for line in listing %}<span class="line{% if line.active %} is-active{% endif %}">'
    "{{ line.text }}</span>{% endfor %}"
)
BRANCHES = [
    (reason, action, capped)
    for reason in (None, "", "tool_use", "pause_turn", "max_tokens", "end_turn", "refusal",
                   "stop_sequence", "model_context_window_exceeded", "something_new")
    for action in (None, "retry_with_more_tokens", "run_tools")
    for capped in (False, True)
]  # fmt: skip


@pytest.mark.parametrize(("reason", "action", "capped"), BRANCHES)
def test_the_reference_listing_is_the_templates_loop(reason, action, capped):
    template = engines["django"].from_string(LISTING_TEMPLATE)
    lines = reference.listing(reason, action, capped)
    assert reference.listing_html(reason, action, capped) == template.render({"listing": lines})


def test_the_listing_marks_the_branch_and_escapes_the_code():
    html = reference.listing_html("tool_use", None)
    assert html.count('class="line is-active"') == 4
    assert "&quot;tool_use&quot;" in html and '"tool_use"' not in html
    assert reference.listing_html("end_turn", None, capped=True).count("is-active") == 1


def _run_list(html: str) -> str:
    return html[html.index('<ul class="run-list">') : html.index("</ul>", html.index("run-list"))]


def test_the_run_list_kept_per_language_and_tag_is_the_one_rendered_fresh(client):
    from studyapp.sandbox import views

    views._run_lists.clear()
    first = client.get("/sandbox/").content.decode()
    again = client.get("/sandbox/").content.decode()  # from what the first one kept
    assert _run_list(first) == _run_list(again) and first.count('<li class="card">') > 10
    polish = _run_list(client.get("/pl/sandbox/").content.decode())
    assert polish != _run_list(first) and 'href="/pl/sandbox/' in polish
    assert "Tryb przewidywania" in polish and "Predict mode" not in polish  # its own words
    tagged = _run_list(client.get("/sandbox/?tag=broken").content.decode())
    assert 0 < tagged.count('<li class="card">') < first.count('<li class="card">')
    views._run_lists.clear()
    assert _run_list(client.get("/pl/sandbox/").content.decode()) == polish
    nothing = _run_list(client.get("/sandbox/?tag=no-such-tag").content.decode())
    assert "No runs with that tag." in nothing


def test_a_run_added_to_the_library_is_on_the_next_list(client, settings, tmp_path):
    import shutil

    source = settings.CONTENT_DIR
    (tmp_path / "transcripts").mkdir()
    first = sorted((source / "transcripts").glob("*.json"))[0]
    shutil.copy(first, tmp_path / "transcripts" / first.name)
    settings.CONTENT_DIR = tmp_path
    one = _run_list(client.get("/sandbox/").content.decode())
    assert one.count('<li class="card">') == 1
    second = sorted((source / "transcripts").glob("*.json"))[1]
    shutil.copy(second, tmp_path / "transcripts" / second.name)
    two = _run_list(client.get("/sandbox/").content.decode())
    assert two.count('<li class="card">') == 2


# --- a block's JSON, written in one pass (studyapp/sandbox/leanjson.py) --------------------------


def _lean_json_as_it_was(block) -> str:
    """What the step pages printed before leanjson: a copy with base64 shortened, then
    json.dumps indented (views._lean_json until December 2026, verbatim)."""
    import json

    def lean(value):
        if isinstance(value, dict):
            out = {k: lean(v) for k, v in value.items()}
            if value.get("type") == "base64" and isinstance(value.get("data"), str):
                out["data"] = f"<{len(value['data']):,} characters of base64>"
            return out
        if isinstance(value, list):
            return [lean(v) for v in value]
        return value

    return json.dumps(lean(block), indent=2, ensure_ascii=False)


def _library_values():
    """Every value a step page prints as JSON, from every run of the library: each turn's
    blocks, response, request, appended messages and tool results."""
    import json
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "content" / "transcripts"
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    for doc in docs:
        yield doc
        for turn in doc.get("turns", []):
            response = turn.get("response") or {}
            yield from (response, turn.get("request"), turn.get("appended"))
            yield from response.get("content", [])
            yield from turn.get("tool_results") or []


IMAGE = {
    "type": "image",
    "source": {"type": "base64", "media_type": "image/png", "data": "QUJD" * 9},
}
EDGES = [
    {}, [], "", 0, -1, 10**30, 1.5, -0.0, 1e-7, 1e300, float("nan"), float("inf"), -float("inf"),
    True, False, None, "é — 中文 \u2028 \x00 \x1f \"q\" \\ </script>", "\ud800",
    {"a": {}, "b": [], "c": [{}], "d": [[]]},
    {7: "int", 2.5: "float", True: "bool", None: "none", "s": "str"},
    {False: 0, -3: [1, [2, [3, {"x": None}]]]},
    IMAGE, [IMAGE, {"content": [IMAGE]}],
    {"type": "base64", "data": 7}, {"type": "base64"}, {"data": "QUJD", "type": "base64"},
    {"type": "base64", "data": "x" * 12345, "more": {"type": "base64", "data": ""}},
    ("a", IMAGE, [IMAGE]),  # a tuple is written as a list, and (as before) not shortened inside
    {"t": (1, (2, {"type": "base64", "data": "QQ"}))},
]  # fmt: skip


def _same_as_json_dumps(value) -> None:
    import json

    from studyapp.sandbox.leanjson import indented_json, lean_json

    assert lean_json(value) == _lean_json_as_it_was(value), value
    assert indented_json(value) == json.dumps(value, indent=2, ensure_ascii=False), value


@pytest.mark.parametrize("value", EDGES)
def test_a_value_json_treats_apart_is_written_as_json_dumps_wrote_it(value):
    _same_as_json_dumps(value)


def test_every_json_of_every_library_step_is_written_as_json_dumps_wrote_it():
    values = list(_library_values())
    assert len(values) > 300
    for value in values:
        _same_as_json_dumps(value)


@pytest.mark.parametrize("value", [{"a": {1, 2}}, [object()], {("a",): 1}, b"bytes"])
def test_what_json_cannot_write_is_refused_as_json_refuses_it(value):
    from studyapp.sandbox.leanjson import lean_json

    with pytest.raises(TypeError):
        _lean_json_as_it_was(value)
    with pytest.raises(TypeError):
        lean_json(value)
