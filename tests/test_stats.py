"""Item statistics with Moodle's formulas, checked against small examples worked by hand."""

import math
from datetime import timedelta

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone

from quizzes import stats
from quizzes.models import Attempt, Response

from .factories import make_question

# Four attempts at the same three questions a, b, c (slots 1, 2, 3); marks:
#   p1: 1 1 1 (X=3)   p2: 1 0 1 (X=2)   p3: 0 1 0 (X=1)   p4: 0 0 0 (X=0)
HAND = {
    1: [("a", 1, 1.0), ("b", 2, 1.0), ("c", 3, 1.0)],
    2: [("a", 1, 1.0), ("b", 2, 0.0), ("c", 3, 1.0)],
    3: [("a", 1, 0.0), ("b", 2, 1.0), ("c", 3, 0.0)],
    4: [("a", 1, 0.0), ("b", 2, 0.0), ("c", 3, 0.0)],
}


@pytest.fixture(scope="module")
def report():
    return stats.analyse(HAND)


def test_item_a_facility_sd_discrimination_and_efficiency(report):
    a = next(i for i in report.items if i.slug == "a")
    # x = 1 1 0 0, mean 0.5 → facility 50 %; V(x) = 4 × 0.25 / 3 = 1/3 → SD = √(1/3) = 57.735 %
    assert a.facility == pytest.approx(50.0)
    assert a.sd == pytest.approx(57.735, abs=1e-3)
    # rest of test Y = X − x = 2 1 1 0 (mean 1, V = 2/3); Cov = (0.5·1 + 0.5·0 − 0.5·0
    # + (−0.5)(−1)) / 3 = 1/3; D = (1/3) / √(1/3 · 2/3) = 1/√2 = 70.711 %
    assert a.discrimination == pytest.approx(70.711, abs=1e-3)
    # sorted x 0 0 1 1 with sorted Y 0 1 1 2: Cov_max = 1/3 as well, so efficiency = 100 %
    assert a.efficiency == pytest.approx(100.0)


def test_item_b_does_not_discriminate(report):
    b = next(i for i in report.items if i.slug == "b")
    # x = 1 0 1 0, Y = 2 2 0 0: Cov = (0.5·1 − 0.5·1 − 0.5·1 + 0.5·1) / 3 = 0 → D = 0, E = 0
    assert b.discrimination == pytest.approx(0.0)
    assert b.efficiency == pytest.approx(0.0)


def test_whole_test_figures(report):
    t = report.test
    assert (t.n, t.slots, report.size) == (4, 3, 3)
    # totals 3 2 1 0: mean 1.5, median (1 + 2) / 2 = 1.5
    assert (t.mean, t.median) == (1.5, 1.5)
    # d = 1.5 0.5 −0.5 −1.5: m2 = 5/4, k2 = 4 · 1.25 / 3 = 5/3 → SD = √(5/3) = 1.29099
    assert t.sd == pytest.approx(math.sqrt(5 / 3))
    # m3 = 0 → skewness 0
    assert t.skewness == pytest.approx(0.0)
    # m4 = 10.25 / 4 = 2.5625; k4 = 16 (5 · 2.5625 − 9 · 1.5625) / (3 · 2 · 1) = −10/3;
    # kurtosis = k4 / k2² = (−10/3) / (25/9) = −1.2
    assert t.kurtosis == pytest.approx(-1.2)
    # slot variances 1/3 each, sum 1: CIC = 100 · 3/2 · (1 − 1 / (5/3)) = 60 %
    assert t.cic == pytest.approx(60.0)
    # ER = 100 √(1 − 0.6) = 63.246 %; SE = 0.63246 · 1.29099 = 0.8165 marks
    assert t.error_ratio == pytest.approx(63.246, abs=1e-3)
    assert t.standard_error == pytest.approx(0.8165, abs=1e-4)


def test_rest_of_test_is_scaled_per_attempt_so_exam_lengths_mix():
    # The same data as HAND plus one 4-question attempt: the item's pairs use the mean of the
    # other questions, (X − x) / (n − 1), so a 4-question total does not dwarf the others.
    mixed = dict(HAND)
    mixed[5] = [("a", 1, 1.0), ("b", 2, 1.0), ("c", 3, 1.0), ("d", 4, 1.0)]
    report = stats.analyse(mixed)
    assert report.sizes == {3: 4, 4: 1}
    assert report.size == 3 and report.test.n == 4  # whole-test figures use one length
    a = next(i for i in report.items if i.slug == "a")
    assert a.n == 5


def test_below_30_attempts_there_is_a_seeded_bootstrap_interval(report):
    a = next(i for i in report.items if i.slug == "a")
    assert a.uncertain
    assert a.facility_ci.low <= 50 <= a.facility_ci.high
    again = stats.analyse(HAND)
    assert next(i for i in again.items if i.slug == "a").facility_ci == a.facility_ci
    assert report.test.cic_ci is not None


def test_at_30_attempts_no_interval_is_needed():
    item = stats.item_stats("x", [(1.0, 0.5), (0.0, 0.2)] * 15)
    assert not item.uncertain and item.facility_ci is None


@pytest.mark.parametrize(
    "facility, discrimination, efficiency, reason",
    [
        (50, 40, 60, ""),
        (50, -10, -20, "negative discrimination (-10 %); "
                       "discriminative efficiency below 15 % (-20 %)"),
        (50, 10, 12, "discriminative efficiency below 15 % (12 %)"),
        (95, 30, 40, "facility above 90 % (95 %): too easy"),
        (10, 30, 40, "facility below 20 % (10 %): too hard"),
        (50, None, None, ""),
    ],
)  # fmt: skip
def test_needs_review_reasons(facility, discrimination, efficiency, reason):
    item = stats.ItemStats("x", 40, facility, 10, discrimination, efficiency)
    assert stats.review_reason(item) == reason


def test_no_flag_from_a_handful_of_attempts():
    item = stats.ItemStats("x", stats.MIN_FOR_FLAG - 1, 100, 0, None, None)
    assert stats.review_reason(item) == ""


def test_response_analysis_counts_each_option():
    options = [
        {"key": "k1", "text": "A", "correct": True},
        {"key": "k2", "text": "B", "correct": False},
        {"key": "k3", "text": "C", "correct": False},
    ]
    answers = [{"choice": "k1"}, {"choice": "k1"}, {"choice": "k2"}, None]
    rows = stats.response_analysis(options, answers, "single")
    # frequency = count / S with S = 4 attempts
    assert [(r["text"], r["count"], r["frequency"]) for r in rows] == [
        ("A", 2, 50.0),
        ("B", 1, 25.0),
        ("C", 0, 0.0),
        ("(no answer)", 1, 25.0),
    ]


def test_response_analysis_keeps_a_flipped_key_apart():
    """A true/false item whose key flipped between versions: each version's "True" keeps its own
    correctness, so the table never calls the old right answer right for the new version."""
    options = [
        {"key": "v1-t", "text": "True", "correct": False},
        {"key": "v1-f", "text": "False", "correct": True},
        {"key": "v2-t", "text": "True", "correct": True},
        {"key": "v2-f", "text": "False", "correct": False},
    ]
    answers = [{"choice": "v1-f"}, {"choice": "v2-t"}, {"choice": "v2-t"}, {"choice": "v1-t"}]
    rows = stats.response_analysis(options, answers, "truefalse")
    assert [(r["text"], r["correct"], r["count"]) for r in rows] == [
        ("True", False, 1),
        ("False", True, 1),
        ("True", True, 2),
        ("False", False, 0),
        ("(no answer)", False, 0),
    ]


# ------------------------------------------------------------------ from the database


@pytest.fixture
def exams(db, django_user_model):
    """HAND as four learners' first exams, plus a later exam and a retake that don't count."""
    cache.clear()
    questions = {s: make_question("single", slug=s) for s in "abc"}
    start = timezone.now() - timedelta(days=1)
    users = [django_user_model.objects.create_user(f"u{i}") for i in range(1, 5)]
    keys = {  # slug -> (the right option's key, a wrong one's)
        s: (q.options.get(correct=True).key, q.options.filter(correct=False).first().key)
        for s, q in questions.items()
    }

    def exam(user, marks, minutes, **kw):
        attempt = Attempt.objects.create(
            mode="exam", user=user, seed=1, question_count=3,
            started_at=start + timedelta(minutes=minutes),
            submitted_at=start + timedelta(minutes=minutes + 5), **kw,
        )  # fmt: skip
        for slug, position, mark in marks:
            q = questions[slug]
            right, wrong = keys[slug]
            Response.objects.create(
                attempt=attempt, question=q, position=position, score=mark,
                is_correct=mark == 1, answer={"choice": right if mark else wrong},
                answered_at=attempt.started_at,
            )  # fmt: skip
        return attempt

    first = [exam(u, HAND[i + 1], i) for i, u in enumerate(users)]
    exam(users[3], HAND[1], 60)  # u4's second exam: all right
    exam(users[3], HAND[1], 90, retake_of=first[3])  # a retake never counts
    return questions


def test_first_attempts_give_the_hand_computed_figures(exams):
    report = stats.load_report()
    assert report.attempts == 4
    assert report.test.cic == pytest.approx(60.0)
    a = next(i for i in report.items if i.slug == "a")
    assert a.discrimination == pytest.approx(70.711, abs=1e-3)


def test_all_attempts_include_the_second_exam_but_not_the_retake(exams):
    assert stats.load_report("all").attempts == 5


def test_needs_review_by_slug_uses_the_default_report(exams, monkeypatch):
    monkeypatch.setattr(stats, "MIN_FOR_FLAG", 4)
    cache.clear()
    assert stats.needs_review_by_slug() == {
        "b": "discriminative efficiency below 15 % (0 %)",
    }


def _pages():
    return [reverse("author:stats"), reverse("author:stats_question", args=["a"])]


def test_anonymous_visitors_go_to_the_login_page(client, exams):
    for url in _pages():
        response = client.get(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_learners_get_403(client, exams, learner):
    client.force_login(learner)
    for url in _pages():
        assert client.get(url).status_code == 403


def test_instructors_and_staff_see_the_pages(client, exams, instructor, django_user_model):
    staff = django_user_model.objects.create_user("boss", is_staff=True)
    for user in (instructor, staff):
        client.force_login(user)
        for url in _pages():
            assert client.get(url).status_code == 200


def test_the_stats_page_shows_the_exam_and_the_questions(client, exams, instructor):
    client.force_login(instructor)
    page = client.get(reverse("author:stats")).content.decode()
    assert "60.0 %" in page  # Cronbach's alpha from the hand example
    assert "Uncertain:" in page and "95 % bootstrap interval" in page
    assert 'href="/author/stats/a/?which=first"' in page


def test_the_table_sorts_by_a_column(client, exams, instructor):
    client.force_login(instructor)
    page = client.get(reverse("author:stats"), {"sort": "slug", "dir": "desc"}).content.decode()
    assert page.index(">c</a>") < page.index(">b</a>") < page.index(">a</a>")
    assert 'aria-sort="descending"' in page


def test_the_question_page_shows_how_often_each_option_was_chosen(client, exams, instructor):
    client.force_login(instructor)
    page = client.get(reverse("author:stats_question", args=["a"])).content.decode()
    # a was right in p1 and p2 (chose "Option A right"), wrong in p3 and p4 (chose "Option B")
    assert "Option A right</th><td>yes</td><td>2</td>" in page
    assert "Option B</th><td>—</td><td>2</td>" in page
    assert "50.0 %" in page


def test_an_unknown_question_is_a_404(client, exams, instructor):
    client.force_login(instructor)
    assert client.get(reverse("author:stats_question", args=["nope"])).status_code == 404


def test_query_counts_do_not_grow(client, exams, instructor, django_assert_num_queries):
    client.force_login(instructor)
    cache.clear()
    # session, user, instructor check, cache key (aggregate), attempts, question slugs,
    # responses
    with django_assert_num_queries(7):
        client.get(reverse("author:stats"))
    # the same, with the report cached: no attempts or responses
    with django_assert_num_queries(4):
        client.get(reverse("author:stats"))
    # session, user, instructor check, question, cache key, attempts, responses of the
    # question, options of its versions
    with django_assert_num_queries(8):
        client.get(reverse("author:stats_question", args=["a"]))


@pytest.mark.django_db
def test_recent_figures_are_served_without_recomputing(settings, monkeypatch):
    from django.core.cache import cache

    from quizzes import stats as stats_module

    cache.clear()
    settings.STATS_MAX_AGE = 300
    first = stats_module.load_report()
    calls = []
    monkeypatch.setattr(stats_module, "analyse", lambda *a, **k: calls.append(1))
    assert stats_module.load_report() is first or stats_module.load_report() == first
    assert calls == []


@pytest.mark.django_db
def test_while_one_request_recomputes_the_others_serve_the_figures_they_have(settings, monkeypatch):
    """Under load every request used to recompute at once when the figures aged out, and some
    timed out; now one recomputes (a lock in the shared cache) and the rest serve the old ones."""
    from django.core.cache import cache

    from quizzes import stats as stats_module

    settings.STATS_MAX_AGE = 300
    first = stats_module.load_report()
    first.computed_at -= 301  # aged out
    cache.set("quizstats:latest:first:None", first, 3600)
    Attempt.objects.create(mode="exam", seed=1, question_count=1, submitted_at=timezone.now())
    assert cache.add("quizstats:computing:first:None", 1, 60)  # another request is computing
    calls = []
    monkeypatch.setattr(stats_module, "analyse", lambda *a, **k: calls.append(1))
    assert stats_module.load_report().computed_at == first.computed_at
    assert calls == []
