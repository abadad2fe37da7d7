"""The question list at /author/: filters, open reports as "needs review", and its query count."""

import pytest

from authoring.models import ProblemReport
from quizzes.models import Question
from tests.factories import make_bank, make_question

pytestmark = pytest.mark.django_db


def slugs(html: str) -> set[str]:
    import re

    return set(re.findall(r'<a href="/author/questions/([a-z0-9-]+)/edit/">', html))


@pytest.fixture
def bank(db):
    make_question("single", slug="a-single", subtopic="guards")
    make_question("json", slug="a-json", subtopic="tool-choice")
    draft = make_question("ordering", slug="a-draft", subtopic="guards")
    Question.objects.filter(pk=draft.pk).update(status="draft")
    make_question("fix", slug="a-fix", subtopic="tool-results")


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("", {"a-single", "a-json", "a-draft", "a-fix"}),
        ("?subtopic=guards", {"a-single", "a-draft"}),
        ("?kind=json", {"a-json"}),
        ("?status=draft", {"a-draft"}),
        ("?status=published&subtopic=guards", {"a-single"}),
        ("?q=json", {"a-json"}),
        ("?review=on", set()),
    ],
)
def test_the_filters(author, bank, query, expected):
    assert slugs(author.get(f"/author/{query}").content.decode()) == expected


def test_needs_review_shows_questions_with_open_reports_on_any_version(author, bank):
    old = Question.objects.get(slug="a-json")
    ProblemReport.objects.create(question=old, text="The key is wrong")
    ProblemReport.objects.create(question=old, text="And the why too")
    closed = ProblemReport.objects.create(
        question=Question.objects.get(slug="a-fix"), text="typo", status="resolved"
    )
    make_question("json", slug="a-json")  # version 2: the reports were about version 1
    html = author.get("/author/?review=on").content.decode()
    assert slugs(html) == {"a-json"}
    assert "2 open reports" in html
    assert closed.question.slug not in slugs(html)


def test_needs_review_includes_what_the_statistics_flag_with_the_reason(author, bank, monkeypatch):
    from quizzes import stats

    monkeypatch.setattr(stats, "needs_review_by_slug", lambda: {"a-single": "facility above 90 %"})
    html = author.get("/author/?review=on").content.decode()
    assert slugs(html) == {"a-single"}
    assert '<a href="/author/stats/a-single/">facility above 90 %</a>' in html


def test_a_bad_filter_value_is_named_and_ignored(author, bank):
    response = author.get("/author/?kind=cloze")  # essay is a kind the list filters by now
    html = response.content.decode()
    assert response.status_code == 200
    assert "Select a valid choice. cloze is not one of the available choices." in html
    assert len(slugs(html)) == 4


def test_htmx_gets_only_the_results(author, bank):
    html = author.get("/author/?kind=fix", headers={"HX-Request": "true"}).content.decode()
    assert html.lstrip().startswith('<div id="results">') and slugs(html) == {"a-fix"}


def test_the_list_runs_a_constant_number_of_queries_with_500_questions(
    author, django_assert_num_queries
):
    make_bank(500)
    ProblemReport.objects.create(question=Question.objects.get(slug="b-7"), text="Wrong key!")
    author.get("/author/")  # warm the session
    # session, user, the user's groups (the instructor check), the statistics' cache key (their
    # flags are cached), the count, one page of rows with their open reports as a subquery, and
    # that page's translations (which languages are missing or stale).
    with django_assert_num_queries(7):
        html = author.get("/author/").content.decode()
    assert "500 questions, page 1 of 5." in html
    with django_assert_num_queries(7):
        html = author.get("/author/?review=on&page=1").content.decode()
    assert slugs(html) == {"b-7"}
