"""Question kinds as modules (issue 13): the registry, and the kinds Moodle users bring."""
# ruff: noqa: E501

import pytest

from core.owners import Owner
from quizzes import grading, importing, kinds, presentation, services
from quizzes.formats import Defaults, gift, moodlexml
from quizzes.models import Attempt, Question

from .factories import ALL_KIND_BODIES, NEW_KIND_BODIES, make_question


@pytest.mark.parametrize("kind", list(kinds.REGISTRY))
def test_every_registered_kind_implements_every_part(kind):
    module = kinds.get(kind)
    missing = [part for part in kinds.PARTS if not hasattr(module, part)]
    assert missing == [], kind
    assert kind in set(kinds.Kind)


def test_the_registry_and_the_factories_agree():
    assert set(kinds.REGISTRY) == set(ALL_KIND_BODIES)
    assert set(NEW_KIND_BODIES) <= set(kinds.REGISTRY)


@pytest.mark.parametrize(
    "pattern, response, case, right",
    [
        ("end_turn", "end_turn", False, True),
        ("end_turn", "  END_TURN ", False, True),
        ("end_turn", "END_TURN", True, False),
        ("end*", "end_of_story", False, True),
        ("*turn", "end_turn", False, True),
        ("end_turn", "end_turns", False, False),
        ("a\\*b", "a*b", False, True),
        ("a\\*b", "axb", False, False),
        ("a.b", "axb", False, False),  # regex characters are literal, as in Moodle
    ],
)
def test_short_answer_matches_as_moodle_does(pattern, response, case, right):
    assert kinds.short_answer.matches(pattern, response, case) is right


@pytest.mark.django_db
def test_short_answer_grades_the_first_matching_answer_with_its_trap():
    q = make_question("short_answer", slug="sa")
    spec = q.grading_spec()
    assert grading.grade(spec, {"text": "End_Turn"}).score == 1.0
    wild = grading.grade(spec, {"text": "endless"})
    assert (wild.score, wild.families) == (0.0, ["misread-contract"])
    assert grading.grade(spec, {"text": "tool_use"}).score == 0.0
    with pytest.raises(grading.NoAnswer):
        grading.parse_answer(spec, {"text": "  "})


@pytest.mark.django_db
@pytest.mark.parametrize(
    "text, score", [("7", 1.0), ("7.0", 1.0), ("6,4", 0.5), ("5.5", 0.5), ("5.4", 0.0)]
)
def test_numerical_grades_within_the_tolerance(text, score):
    q = make_question("numerical", slug="num")
    assert grading.grade(q.grading_spec(), {"text": text}).score == score


@pytest.mark.django_db
def test_numerical_refuses_what_is_not_a_number():
    q = make_question("numerical", slug="num")
    with pytest.raises(grading.AnswerError, match="not a number"):
        grading.parse_answer(q.grading_spec(), {"text": "seven"})


@pytest.mark.django_db
def test_an_essay_has_no_score_until_an_instructor_grades_it_and_the_exam_leaves_it_out():
    essay = make_question("essay", slug="es")
    single = make_question("single", slug="si")
    owner = Owner(user=None, token="t" * 32)
    attempt = services.attempt_start(
        owner=owner, mode=Attempt.Mode.EXAM, question_ids=[essay.pk, single.pk], seed=1
    )
    r_essay, r_single = attempt.responses.order_by("position")
    services.response_save(response=r_essay, answer={"text": "my essay"}, lock_after_first=False)
    right = single.options.get(correct=True).key
    services.response_save(response=r_single, answer={"choice": right}, lock_after_first=False)
    r_essay.refresh_from_db()
    assert (r_essay.score, r_essay.is_correct) == (None, None)
    attempt = services.attempt_submit(attempt=attempt)
    assert attempt.score == 100.0  # the essay waits for its grade, the single is right
    services.response_grade(response=r_essay, score=0.5)
    attempt.refresh_from_db()
    assert attempt.score == 75.0


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", ["gift", "moodlexml", "yaml"])
def test_the_new_kinds_round_trip_in_every_format(fmt):
    for kind in NEW_KIND_BODIES:
        make_question(kind)
    first, skipped = importing.export_questions(fmt, importing.exportable())
    assert skipped == []
    preview = importing.import_preview(first, fmt)
    assert preview.errors == [] and {r.action for r in preview.rows} == {"unchanged"}


GIFT = """::Stop value::Type the stop_reason value of a finished turn.{=end_turn#Right. =%50%end*#Close.}

::Tools in parallel::How many tool_result blocks answer three tool_use blocks?{#3#One per call.}

::Range::Pick a number from 1 to 3.{#1..3}

::Explain::Explain why the loop stops on end_turn.{}

::Explain more::Explain the cap.{####It only stops a runaway loop.}

::Cloze::Fill in {1:SHORTANSWER:=end_turn}
"""


@pytest.mark.django_db
def test_gift_short_answer_numerical_and_essay_import():
    d = Defaults("stop-reasons", "stop-reasons#max-tokens", "https://example.com/doc")
    preview = importing.import_preview(GIFT, "gift", d)
    kinds_seen = {r.slug: r.kind for r in preview.rows}
    assert kinds_seen == {
        "stop-value": "short_answer", "tools-in-parallel": "numerical", "range": "numerical",
        "explain": "essay", "explain-more": "essay",
    }  # fmt: skip
    rng = next(r for r in preview.rows if r.slug == "range").parsed["data"]["answers"][0]
    assert (rng["answer"], rng["tolerance"]) == (2.0, 1.0)
    assert "Embedded answers (Cloze) are not supported" in preview.skipped[0].reason
    essay = next(r for r in preview.rows if r.slug == "explain")
    assert any("model answer" in w for w in essay.warnings)
    more = next(r for r in preview.rows if r.slug == "explain-more")
    assert more.parsed["data"]["model_answer"] == "It only stops a runaway loop."


def test_cloze_is_skipped_with_moodles_reasons():
    from quizzes.formats import to_bank

    q = moodlexml.MoodleQuestion("multianswer", "x", name="c", text="Capital: {1:SA:=Paris}")
    assert "Embedded answers (Cloze) are not supported" in to_bank(q, Defaults(), "c").skipped
    broken = moodlexml.MoodleQuestion("multianswer", "x", name="c", text="t")  # Moodle refuses it
    assert to_bank(broken, Defaults(), "c").skipped == (
        "Invalid embedded answers (Cloze) question "
        "(The question text must include at least one embedded answer.)."
    )
    assert gift.parse("Q {1:SHORTANSWER:=a}").questions  # read, then skipped when mapped


@pytest.mark.django_db
@pytest.mark.parametrize("kind", list(kinds.REGISTRY))
def test_every_kind_presents_and_gives_feedback_without_the_answer_before(kind):
    q = make_question(kind, slug=f"k-{kind.replace('_', '-')}")
    ctx = presentation.present(q, 1)
    secrets = ["WHY-", "SAMPLE-", "MODEL-ANSWER"] + (["end_turn"] if kind == "short_answer" else [])
    assert ctx["template"] and not [s for s in secrets if s in str(ctx)]
    fb = presentation.feedback(q, presentation.right_answer(q), 1.0)
    assert fb["template"] and ("WHY-" in str(fb) or "MODEL-ANSWER" in str(fb))
    assert Question.objects.filter(kind=kind).count() == 1


@pytest.mark.django_db
def test_the_grading_queue_lists_waiting_essays_and_a_grade_rescores(
    client, django_user_model, django_assert_num_queries
):
    from django.contrib.auth.models import Group
    from django.urls import reverse

    teacher = django_user_model.objects.create_user("t", password="pw-t-123456")
    teacher.groups.add(Group.objects.get(name="Instructors"))
    client.force_login(teacher)
    essay = make_question("essay", slug="es")
    owner = Owner(user=None, token="t" * 32)
    responses = []
    for _ in range(3):
        attempt = services.attempt_start(
            owner=owner, mode=Attempt.Mode.EXAM, question_ids=[essay.pk], seed=1
        )
        r = attempt.responses.get()
        services.response_save(response=r, answer={"text": "ESSAY-TEXT"}, lock_after_first=False)
        services.attempt_submit(attempt=attempt)
        responses.append(r)
    client.get(reverse("author:grading"))  # warm the session and the user
    with django_assert_num_queries(5):  # session, user, group check, rows, count
        page = client.get(reverse("author:grading")).content.decode()
    assert page.count("ESSAY-TEXT") == 3 and "MODEL-ANSWER" in page
    bad = client.post(reverse("author:grading_grade", args=[responses[0].pk]), {"score": "2"})
    assert bad.status_code == 302
    client.post(reverse("author:grading_grade", args=[responses[0].pk]), {"score": "1"})
    responses[0].refresh_from_db()
    assert responses[0].score == 1.0 and responses[0].attempt.score == 100.0
    assert client.get(reverse("author:grading")).content.decode().count("ESSAY-TEXT") == 2
