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
