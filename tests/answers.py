"""What a learner does through the test client, shared by the test modules: the form data of a
question's right answer, starting practice or an exam, answering a whole attempt."""

import json

from django.utils import timezone

from progress import hooks
from quizzes.models import Attempt


def right_answer(question) -> dict:
    """The form data that answers ``question`` right (the factories' bodies)."""
    opts = list(question.options.all())
    if question.kind in ("single", "truefalse"):
        return {"choice": next(o.key for o in opts if o.correct)}
    if question.kind == "next_action":
        return {"choice": "retry_with_more_tokens"}
    if question.kind == "multiple":
        return {"choices": [o.key for o in opts if o.correct]}
    if question.kind == "ordering":
        return {f"pos-{o.key}": o.position + 1 for o in opts}
    if question.kind == "matching":
        return {f"match-{o.key}": o.match for o in opts}
    if question.kind == "fix":
        return {"text": json.dumps(question.data["sample_fix"])}
    return {"text": '{"type": "tool", "name": "lookup_order", "disable_parallel_tool_use": true}'}


def start_practice(client, *subtopics):
    client.post("/practice/", {"subtopics": list(subtopics), "which": "all", "count": 10})
    return Attempt.objects.order_by("-pk").first()


def option(response, correct=True):
    return response.question.options.filter(correct=correct).first().key


def answer_all(client, attempt, *, correct=True, certainty=None, shown_ago=60, **headers):
    for r in attempt.responses.select_related("question").order_by("position"):
        data = {
            "choice": option(r, correct),
            "shown": hooks.make_stamp(r.pk, timezone.now().timestamp() - shown_ago),
        }
        if certainty:
            data["certainty"] = certainty
        client.post(f"/practice/{attempt.pk}/{r.position}/", data, headers=headers)


def start_exam(client, count=5):
    """Start a mock exam of ``count`` questions through the form; the attempt it made."""
    response = client.post("/exam/", {"count": count})
    assert response.status_code == 302, response.content
    return Attempt.objects.latest("pk")
