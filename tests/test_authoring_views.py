"""Who may use each /author/ view: anonymous, learner, instructor, staff; and the wrong method."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from authoring.models import ProblemReport
from quizzes.models import Question
from tests.factories import make_question

pytestmark = pytest.mark.django_db

# (method, url, data, what an instructor gets)
VIEWS = [
    ("get", "/author/", {}, 200),
    ("get", "/author/questions/new/", {}, 200),
    ("get", "/author/questions/new/?kind=fix", {}, 200),
    ("get", "/author/questions/q1/edit/", {}, 200),
    ("post", "/author/questions/q1/edit/", {"kind": "single", "add_option": "1"}, 200),
    ("post", "/author/questions/preview/", {"kind": "single"}, 200),
    ("post", "/author/questions/q1/publish/", {}, 302),
    ("get", "/author/reports/", {}, 200),
    ("post", "/author/reports/{report}/resolve/", {"outcome": "dismissed"}, 302),
    ("post", "/author/from-step/", {"run": "refusal", "step": "1"}, 302),
]


@pytest.fixture
def world(db, django_user_model, learner):
    question = make_question("single", slug="q1")
    report = ProblemReport.objects.create(question=question, text="The key is wrong")
    instructor = django_user_model.objects.create_user("teach")
    instructor.groups.add(Group.objects.get(name="Instructors"))
    staff = django_user_model.objects.create_user("boss", is_staff=True)
    return {"learner": learner, "instructor": instructor, "staff": staff, "report": report}


def _call(world, role, method, url, data):
    client = Client()
    if role != "anonymous":
        client.force_login(world[role])
    return getattr(client, method)(url.format(report=world["report"].pk), data)


@pytest.mark.parametrize(("method", "url", "data", "ok"), VIEWS)
def test_anonymous_visitors_are_sent_to_log_in(world, method, url, data, ok):
    response = _call(world, "anonymous", method, url, data)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/?next=/author/")


@pytest.mark.parametrize(("method", "url", "data", "ok"), VIEWS)
def test_learners_are_refused(world, method, url, data, ok):
    before = (Question.objects.count(), list(ProblemReport.objects.values_list("status")))
    assert _call(world, "learner", method, url, data).status_code == 403
    after = (Question.objects.count(), list(ProblemReport.objects.values_list("status")))
    assert after == before


@pytest.mark.parametrize("role", ["instructor", "staff"])
@pytest.mark.parametrize(("method", "url", "data", "ok"), VIEWS)
def test_instructors_and_staff_get_in(world, role, method, url, data, ok):
    assert _call(world, role, method, url, data).status_code == ok


@pytest.mark.parametrize(
    "url",
    [
        "/author/questions/preview/",
        "/author/questions/q1/publish/",
        "/author/reports/1/resolve/",
        "/author/from-step/",
    ],
)
def test_post_only_views_refuse_a_get(world, url):
    assert _call(world, "instructor", "get", url, {}).status_code == 405


def test_an_unknown_question_is_a_404(world):
    assert _call(world, "instructor", "get", "/author/questions/nope/edit/", {}).status_code == 404


def test_the_nav_shows_the_instructors_link_once_it_exists(world):
    client = Client()
    client.force_login(world["instructor"])
    assert '<a href="/author/" aria-current="page">For instructors</a>' in (
        client.get("/author/").content.decode()
    )
