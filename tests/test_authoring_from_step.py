"""'Make a question from this step': a draft next-action question holding the step's response."""

import copy

import pytest

from authoring import forms, services
from quizzes.models import Question
from quizzes.schema import FAMILIES
from studyapp.agentloop import catalogue
from studyapp.sandbox.library import library

pytestmark = pytest.mark.django_db
BUTTON = "Make a question from this step"


def test_instructors_see_the_button_on_a_step_and_learners_do_not(client, author, learner):
    assert BUTTON in author.get("/sandbox/refusal/steps/1/").content.decode()
    client.force_login(learner)
    assert BUTTON not in client.get("/sandbox/refusal/steps/1/").content.decode()


def test_the_button_comes_along_when_htmx_moves_between_steps(author):
    html = author.get(
        "/sandbox/web-search-pause-turn/steps/2/", headers={"HX-Request": "true"}
    ).content.decode()
    assert BUTTON in html and '<input type="hidden" name="step" value="2">' in html


def test_it_makes_a_draft_with_the_steps_response_and_opens_the_editor(author):
    turn = library().get("web-search-pause-turn").transcript.turns[0]
    response = author.post("/author/from-step/", {"run": "web-search-pause-turn", "step": "1"})
    question = Question.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/author/questions/{question.slug}/edit/"
    assert (question.kind, question.status, question.origin) == ("next_action", "draft", "browser")
    assert question.data["response"] == turn.response
    right = question.options.get(correct=True)
    assert right.key == catalogue.next_action(turn.response) == "resend_paused"
    assert question not in Question.objects.published()
    page = author.get(response["Location"]).content.decode()
    assert "Draft step-web-search-pause-turn-1 made from step 1" in page


def test_the_same_step_twice_makes_two_drafts_with_their_own_slugs(author):
    for _ in range(2):
        author.post("/author/from-step/", {"run": "refusal", "step": "1"})
    assert sorted(Question.objects.values_list("slug", flat=True)) == [
        "step-refusal-1",
        "step-refusal-1-2",
    ]


def test_every_recorded_step_becomes_a_draft(author, monkeypatch):
    checked = {}  # a draft of each stop_reason, as services.check_data was given it
    real = services.check_data
    monkeypatch.setattr(
        services, "check_data", lambda q, **k: checked.setdefault(q["concept"], q) and real(q, **k)
    )
    steps = [
        (k, n) for k, r in library().runs().items() for n in range(1, len(r.transcript.turns) + 1)
    ]
    for key, n in steps:
        response = author.post("/author/from-step/", {"run": key, "step": str(n)})
        assert response["Location"].startswith("/author/questions/step-"), (key, n)
    assert Question.objects.filter(status="draft", kind="next_action").count() == len(steps)
    # check_data (the schema on the data) finds what forms.check (the data written out as YAML
    # and read back, as the editor checks a form) finds; a draft with an untagged trap too.
    untagged = copy.deepcopy(next(iter(checked.values())))
    del untagged["choices"][1]["family"]
    assert len(checked) >= 4
    for question in [*checked.values(), untagged]:
        (fast, fast_problems), (slow, slow_problems) = real(question), forms.check(question)
        assert fast_problems == slow_problems and (fast is None) == (slow is None)
        if fast is not None:
            assert {**fast, "line": 0} == {**slow, "line": 0}
    assert real(untagged)[1] == ["choices[2].family must be one of " + ", ".join(FAMILIES)]


@pytest.mark.parametrize(
    "data", [{"run": "nope", "step": "1"}, {"run": "refusal", "step": "9"}, {"run": "refusal"}]
)
def test_a_bad_run_or_step_is_a_404(author, data):
    assert author.post("/author/from-step/", data).status_code == 404
    assert not Question.objects.exists()
