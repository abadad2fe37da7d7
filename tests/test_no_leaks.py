"""An unanswered question's HTML holds nothing that identifies the right answer."""

import json
import re
from html.parser import HTMLParser

import pytest

from quizzes.models import Attempt

from .factories import KIND_BODIES

pytestmark = pytest.mark.django_db


class Inputs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.fields = []

    def handle_starttag(self, tag, attrs):
        if tag in ("input", "option", "select", "textarea"):
            self.fields.append((tag, dict(attrs)))


def fields(html):
    parser = Inputs()
    parser.feed(html)
    return parser.fields


def page_for(client, mode, kind):
    if mode == "practice":
        client.post("/practice/", {"which": "all", "count": 20})
    else:
        client.post("/exam/", {"count": 10})
    attempt = Attempt.objects.latest("pk")
    r = attempt.responses.select_related("question").get(question__kind=kind)
    prefix = "practice" if mode == "practice" else "exam"
    url = (
        f"/{prefix}/{attempt.pk}/{r.position}/"
        if mode == "practice"
        else (f"/exam/{attempt.pk}/q/{r.position}/")
    )
    return client.get(url).content.decode(), r.question


@pytest.mark.parametrize("mode", ["practice", "exam"])
@pytest.mark.parametrize("kind", list(KIND_BODIES))
def test_nothing_in_the_page_identifies_the_answer(client, one_of_each, mode, kind):
    html, question = page_for(client, mode, kind)
    lowered = html.lower()
    # No explanation of any kind before answering.
    assert "WHY-" not in html
    assert "General explanation" not in html
    assert "right answer" not in lowered and "correct" not in lowered
    # No scripts or JSON blobs carrying data.
    assert "application/json" not in html
    for script in re.findall(r"<script[^>]*>(.*?)</script>", html, re.S):
        assert not script.strip(), "inline script on a question page"
    # No attribute singles out an option.
    attrs = [a for _, a in fields(html)]
    assert not any(k.startswith("data-") and k != "data-seconds-left" for a in attrs for k in a)
    assert not any("checked" in a or "selected" in a for a in attrs if a.get("value"))
    if kind in ("single", "multiple", "truefalse", "next_action"):
        inputs = [
            a for t, a in fields(html) if t == "input" and a.get("type") in ("radio", "checkbox")
        ]
        shapes = {tuple(sorted(set(a) - {"id", "value"})) for a in inputs}
        assert len(inputs) == question.options.count() and len(shapes) == 1
    if kind == "json":
        for accepted in question.data["accept"]:
            assert json.dumps(accepted) not in html
            assert "lookup_order" not in re.sub(r"<div class=\"stem.*?</div>", "", html, flags=re.S)
    if kind == "ordering":
        shown = [o.text for o in question.options.all() if o.text in html]
        order_in_page = sorted(shown, key=html.index)
        right_order = [o.text for o in question.options.order_by("position")]
        assert order_in_page != right_order


def test_the_opaque_keys_do_not_follow_the_authoring_order(one_of_each):
    question = one_of_each["single"]
    keys = [o.key for o in question.options.order_by("position")]
    assert all(re.fullmatch(r"[0-9a-f]{10}", k) for k in keys)
