"""Issue 13: read-only old versions with their diff, and problem reports that close the loop."""

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse

from authoring import services
from authoring.models import ProblemReport
from core.owners import Owner
from quizzes import bank

from .factories import make_question

pytestmark = pytest.mark.django_db


@pytest.fixture
def teacher(django_user_model):
    user = django_user_model.objects.create_user("teacher", password="pw-teacher-123")
    user.groups.add(Group.objects.get(name="Instructors"))
    return user


def _new_version(question, **changes):
    parsed = services.question_parsed(question)
    return bank.save_question({**parsed, **changes}, origin="browser")


def test_an_old_version_is_read_only_with_the_diff_from_the_one_before(
    client, teacher, django_assert_num_queries
):
    v1 = make_question("single", slug="versioned")
    _new_version(v1, stem="A better stem")
    client.force_login(teacher)
    url = reverse("author:question_version", args=["versioned", 2])
    client.get(url)
    with django_assert_num_queries(5):  # session, user, instructor check, versions, options
        page = client.get(url).content.decode()
    assert "<del>-  stem: Stem of versioned</del>" in page or "<del>" in page
    assert "A better stem</ins>" in page
    old = client.get(reverse("author:question_version", args=["versioned", 1])).content.decode()
    assert "read-only" in old and "Stem of versioned" in old and "The first version" in old
    assert "<form" not in old.split('id="seen-h"')[0].split("</nav>", 2)[-1]  # nothing to save
    assert client.get(reverse("author:question_version", args=["versioned", 9])).status_code == 404
    edit = client.get(reverse("author:question_edit", args=["versioned"])).content.decode()
    assert reverse("author:question_version", args=["versioned", 1]) in edit


def test_a_resolved_report_names_the_fixed_version_and_the_reporter_sees_it(
    client, learner, teacher
):
    v1 = make_question("single", slug="reported")
    report = services.report_create(
        question=v1, owner=Owner(learner, ""), text="Option B is also right."
    )
    _new_version(v1, explanation="Clearer now.")
    client.force_login(teacher)
    listing = client.get(reverse("author:reports")).content.decode()
    assert reverse("author:question_version", args=["reported", 1]) in listing
    assert client.get(reverse("author:index")).content.decode().count("1 open report") == 1
    client.post(
        reverse("author:report_resolve", args=[report.pk]),
        {"outcome": "resolved", "note": "Reworded option B."},
    )
    report.refresh_from_db()
    assert (report.status, report.fixed_in_version, report.resolution_note) == (
        "resolved", 2, "Reworded option B.",
    )  # fmt: skip
    client.force_login(learner)
    me = client.get(reverse("progress:dashboard")).content.decode()
    main = me[me.index("<main") :]
    assert "Problems you reported" in main and "fixed in version 2" in main
    assert "Problems you reported" not in me[: me.index("<main")]
    assert "Reworded option B." in me


def test_a_dismissed_report_names_no_fix_and_others_do_not_see_it(client, learner, other_learner):
    q = make_question("single", slug="dismissed")
    report = services.report_create(question=q, owner=Owner(learner, ""), text="Typo?")
    services.report_close(report=report, outcome="dismissed", by=None, note="No typo.")
    assert ProblemReport.objects.get().fixed_in_version is None
    client.force_login(other_learner)
    assert "Problems you reported" not in client.get(reverse("progress:dashboard")).content.decode()
