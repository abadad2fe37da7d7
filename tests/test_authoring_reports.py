"""Problem reports: learners (and anonymous visitors) report; instructors triage."""

import pytest

from authoring.models import ProblemReport
from core.owners import Owner
from quizzes import services as quiz_services
from quizzes.models import Attempt, Question
from tests.factories import make_bank, make_question

pytestmark = pytest.mark.django_db
URL = "/author/questions/q1/report/"


@pytest.fixture
def question(db):
    return make_question("single", slug="q1")


def test_an_anonymous_learner_reports_with_their_session_token(client, question):
    response = client.post(URL, {"text": "Option B is also right", "version": "1", "next": "/x/"})
    assert response.status_code == 302 and response["Location"] == "/x/"
    report = ProblemReport.objects.get()
    assert report.question == question and report.user is None
    assert report.owner_token == client.session["owner_token"]
    assert (report.text, report.status) == ("Option B is also right", "open")


def test_a_signed_in_learner_reports_under_their_name(client, learner, question):
    client.force_login(learner)
    client.post(URL, {"text": "The link is broken"})
    assert ProblemReport.objects.get().user == learner


def test_the_report_keeps_the_version_the_learner_saw(client, question):
    client.post("/practice/", {"which": "all", "count": 5})  # the learner meets version 1
    make_question("single", slug="q1")  # version 2 is now current
    client.post(URL, {"text": "Typo in the stem", "version": "1"})
    assert ProblemReport.objects.get().question.version == 1
    client.post(URL, {"text": "Another typo", "version": "99"})  # unknown: the current one
    assert ProblemReport.objects.latest("pk").question.version == 2


def test_an_empty_report_is_named_and_nothing_is_stored(client, question):
    response = client.post(URL, {"text": "  "})
    assert response.status_code == 422
    assert "This field is required." in response.content.decode()
    response = client.post(URL, {"text": "bad"})
    assert "Say in a few words what is wrong" in response.content.decode()
    assert not ProblemReport.objects.exists()


def test_a_report_on_an_unknown_question_is_a_404(client, db):
    assert client.post("/author/questions/nope/report/", {"text": "Wrong!"}).status_code == 404


def test_an_outside_next_is_not_followed(client, question):
    response = client.post(URL, {"text": "Wrong key here", "next": "https://evil.example/"})
    assert response["Location"] == "/"


def test_htmx_swaps_in_a_thank_you(client, question):
    response = client.post(URL, {"text": "Wrong key here"}, headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 200 and "<html" not in html
    assert "Thank you: your report went to the instructors." in html
    bad = client.post(URL, {"text": ""}, headers={"HX-Request": "true"})
    assert bad.status_code == 200  # htmx swaps only 2xx: the message must arrive as one
    assert 'aria-invalid="true"' in bad.content.decode()


def test_the_report_box_is_on_practice_questions_and_exam_reviews(client, question):
    client.post("/practice/", {"which": "all", "count": 10})
    attempt = Attempt.objects.latest("pk")
    html = client.get(f"/practice/{attempt.pk}/1/").content.decode()
    assert f'action="{URL}"' in html and '<input type="hidden" name="version" value="1">' in html
    owner = Owner(None, client.session["owner_token"])
    exam = quiz_services.exam_start(owner=owner, count=10)
    quiz_services.attempt_submit(attempt=exam)
    html = client.get(f"/exam/{exam.pk}/results/").content.decode()
    assert "Report a problem with this question" in html


# --- triage --------------------------------------------------------------------------------


def test_the_triage_list_shows_question_words_and_date(client, instructor, learner, question):
    ProblemReport.objects.create(question=question, user=learner, text="Option <b>B</b> too")
    client.force_login(instructor)
    html = client.get("/author/reports/").content.decode()
    edit = '<a href="/author/questions/q1/edit/">q1</a> '
    assert edit + '<a href="/author/questions/q1/v/1/" class="muted">v1, as reported</a>' in html
    assert "Option &lt;b&gt;B&lt;/b&gt; too" in html and "learner" in html
    assert "<time datetime=" in html


@pytest.mark.parametrize("outcome", ["resolved", "dismissed"])
def test_an_instructor_closes_a_report(client, instructor, question, outcome):
    report = ProblemReport.objects.create(question=question, text="Wrong key")
    client.force_login(instructor)
    response = client.post(f"/author/reports/{report.pk}/resolve/", {"outcome": outcome})
    assert response.status_code == 302
    report.refresh_from_db()
    assert report.status == outcome and report.resolved_by == instructor and report.resolved_at
    assert "No open reports." in client.get("/author/reports/").content.decode()
    shown = client.get(f"/author/reports/?status={outcome}").content.decode()
    assert "Wrong key" in shown


def test_htmx_replaces_just_the_row(client, instructor, question):
    report = ProblemReport.objects.create(question=question, text="Wrong key")
    client.force_login(instructor)
    response = client.post(
        f"/author/reports/{report.pk}/resolve/",
        {"outcome": "dismissed"},
        headers={"HX-Request": "true"},
    )
    html = response.content.decode()
    assert (
        html.lstrip().startswith(f'<tr id="report-{report.pk}">') and "Dismissed by teacher" in html
    )


def test_a_bad_outcome_is_named_and_changes_nothing(client, instructor, question):
    report = ProblemReport.objects.create(question=question, text="Wrong key")
    client.force_login(instructor)
    response = client.post(f"/author/reports/{report.pk}/resolve/", {"outcome": "x"}, follow=True)
    assert "Choose resolve or dismiss." in response.content.decode()
    report.refresh_from_db()
    assert report.status == "open"


def test_the_triage_list_runs_a_constant_number_of_queries(
    client, instructor, learner, django_assert_num_queries
):
    for i, q in enumerate(make_bank(60)):
        ProblemReport.objects.create(question=q, user=learner if i % 2 else None, text="Wrong")
    client.force_login(instructor)
    client.get("/author/reports/")
    # session, user, groups, the count, one page of reports with question and user joined.
    with django_assert_num_queries(5):
        html = client.get("/author/reports/").content.decode()
    assert html.count("<time datetime=") == 50


def test_the_resolved_list_runs_a_constant_number_of_queries(
    client, instructor, learner, django_assert_num_queries
):
    """Resolved reports name who resolved them: joined in the page's one query, not one more
    query per row."""
    for q in make_bank(60):
        ProblemReport.objects.create(
            question=q, user=learner, text="Wrong", status="resolved", resolved_by=instructor
        )
    client.force_login(instructor)
    client.get("/author/reports/?status=resolved")
    with django_assert_num_queries(5):
        html = client.get("/author/reports/?status=resolved").content.decode()
    assert html.count(f"by {instructor.get_username()}") == 50


def test_reports_are_rate_limited_with_a_clear_429(client, question, settings, rate_clock):
    from django.core.cache import cache

    cache.clear()
    settings.RATELIMIT_ENABLED = True
    settings.RATE_LIMITS = {
        "reports": {**settings.RATE_LIMITS["reports"], "rate": (2, 60)},
    }
    try:
        for _ in range(2):
            assert client.post(URL, {"text": "Wrong key here"}).status_code == 302
        response = client.post(URL, {"text": "Wrong key here"})
        assert response.status_code == 429 and "problem reports" in response.content.decode()
        assert ProblemReport.objects.count() == 2
    finally:
        cache.clear()


@pytest.mark.parametrize("signed_in", [False, True])
def test_an_old_version_never_met_is_not_shown_to_a_learner(client, learner, question, signed_in):
    if signed_in:
        client.force_login(learner)
    q1 = Question.objects.get(slug="q1", version=1)
    Question.objects.filter(pk=q1.pk).update(stem_html="OLD-STEM-SECRET")
    make_question("single", slug="q1")  # version 2 is now current
    html = client.get(URL + "?version=1").content.decode()
    assert "OLD-STEM-SECRET" not in html
    client.post(URL, {"text": "A typo in the stem", "version": "1"})
    assert ProblemReport.objects.get().question.version == 2


def test_a_draft_is_not_shown_and_takes_no_report_from_a_learner(client, question):
    Question.objects.filter(slug="q1").update(status="draft", stem_html="DRAFT-STEM-SECRET")
    response = client.get(URL)
    assert response.status_code == 404 and "DRAFT-STEM-SECRET" not in response.content.decode()
    assert client.post(URL, {"text": "typo"}).status_code == 404
    assert not ProblemReport.objects.exists()


def test_an_instructor_reads_any_version_and_drafts(client, instructor, question):
    client.force_login(instructor)
    Question.objects.filter(slug="q1").update(status="draft", stem_html="DRAFT-STEM")
    assert "DRAFT-STEM" in client.get(URL + "?version=1").content.decode()


def test_a_huge_version_number_is_the_current_version(client, question):
    assert client.get(URL + "?version=" + "9" * 5000).status_code == 200


def test_resolving_a_report_that_does_not_exist_is_a_404(client, instructor, question, learner):
    """The report's lookup is compiled once per process: an unknown id, or one no column can
    hold, is a 404 (never a 500), and the row the htmx answer shows names the question and the
    reporter it read in the same query."""
    report = ProblemReport.objects.create(question=question, user=learner, text="Wrong key")
    client.force_login(instructor)
    for pk in (report.pk + 1000, 2**40):
        assert (
            client.post(f"/author/reports/{pk}/resolve/", {"outcome": "resolved"}).status_code
            == 404
        )
    html = client.post(
        f"/author/reports/{report.pk}/resolve/",
        {"outcome": "resolved", "note": "Fixed the key"},
        headers={"HX-Request": "true"},
    ).content.decode()
    assert f">{question.slug}</a>" in html and ">learner<" in html and "Fixed the key" in html


@pytest.mark.parametrize("lang", ["en", "pl"])
@pytest.mark.parametrize("zone", ["UTC", "Asia/Kolkata"])
def test_a_triage_row_writes_what_the_template_tags_wrote(question, lang, zone):
    """The row's addresses, numbers and dates are worked out in the view (views._triage_rows):
    the same text as {% url %}, Django's localised numbers and the date filter give, in each
    language (its URL prefix) and time zone."""
    import datetime

    from django.template import Context, Template
    from django.urls import reverse
    from django.utils import timezone, translation

    from authoring.views import _triage_rows

    made = datetime.datetime(2026, 1, 2, 22, 45, 9, 120, tzinfo=datetime.UTC)
    for created in (made, made.replace(microsecond=0)):
        report = ProblemReport.objects.create(question=question, text="x", created_at=created)
        tags = Template(
            "{{ r.pk }}|{{ r.question.version }}|{{ r.created_at|date:'c' }}|"
            '{{ r.created_at|date:"Y-m-d H:i" }}'
        )
        with translation.override(lang), timezone.override(zone):
            _triage_rows([report])
            assert (report.edit_url, report.version_url, report.resolve_url) == (
                reverse("author:question_edit", args=[question.slug]),
                reverse("author:question_version", args=[question.slug, question.version]),
                reverse("author:report_resolve", args=[report.pk]),
            )
            ours = f"{report.pk_text}|{report.version_text}|{report.created_iso}|"
            assert ours + report.created_shown == tags.render(Context({"r": report}))
    assert report.resolve_url.startswith("/pl/" if lang == "pl" else "/author/")
