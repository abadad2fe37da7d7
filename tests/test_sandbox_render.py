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
