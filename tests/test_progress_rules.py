"""Pure rules of progress: ratings, certainty-based marks, dates, FSRS with a frozen clock."""

from datetime import UTC, datetime, timedelta

import pytest
from fsrs import Rating

from progress import charts, rules

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    "correct, certainty, seconds, rating",
    [
        (False, None, 5, Rating.Again),
        (False, 3, 5, Rating.Again),  # a confident wrong answer is still forgotten
        (True, None, 5, Rating.Good),
        (True, 2, 5, Rating.Good),
        (True, 3, 5, Rating.Easy),
        (True, 3, 19.9, Rating.Easy),
        (True, 3, 20, Rating.Good),  # certain but not quick
        (True, 3, None, Rating.Good),  # no trustworthy time: never Easy
        (True, 1, 2, Rating.Hard),  # right but unsure
    ],
)
def test_the_rating_follows_the_answer(correct, certainty, seconds, rating):
    assert rules.rating_for(correct=correct, certainty=certainty, seconds=seconds) == rating


@pytest.mark.parametrize(
    "value, level",
    [("1", 1), ("3", 3), (2, 2), ("0", None), ("4", None), ("", None), (None, None),
     ("x", None), ("2.5", None)],
)  # fmt: skip
def test_only_1_2_or_3_is_a_certainty(value, level):
    assert rules.parse_certainty(value) == level


def test_cbm_marks_are_moodles():
    assert [rules.cbm_mark(c, True) for c in (1, 2, 3)] == [1, 2, 3]
    assert [rules.cbm_mark(c, False) for c in (1, 2, 3)] == [0, -2, -6]


def test_the_cbm_summary_sets_the_mark_beside_the_plain_score():
    summary = rules.cbm_summary({1: (4, 2), 3: (10, 9)})
    assert summary.answers == 14 and summary.right == 11
    assert summary.plain_percent == 79
    assert summary.marks == 2 * 1 + 2 * 0 + 9 * 3 + 1 * -6  # 23
    assert summary.average_mark == round(23 / 14, 2)
    assert [r.answers for r in summary.rows] == [4, 0, 10]


def test_calibration_names_over_and_under_confidence():
    unsure, unused, sure = rules.cbm_summary({1: (10, 9), 3: (10, 5)}).rows
    assert unsure.level == 1 and "under-confident" in unsure.verdict
    assert unused.verdict == "not used yet"
    assert sure.level == 3 and "over-confident" in sure.verdict
    assert rules.CertaintyRow(2, 10, 7).verdict == "well calibrated"


@pytest.mark.parametrize(
    "delta, text",
    [(timedelta(hours=3), "today"), (timedelta(days=1), "tomorrow"),
     (timedelta(days=8), "in 8 days"), (timedelta(days=-1), "yesterday"),
     (timedelta(days=-3), "3 days ago"), (timedelta(hours=15, minutes=1), "tomorrow")],
)  # fmt: skip
def test_relative_days_count_utc_calendar_days(delta, text):
    assert rules.relative_day(NOW + delta, NOW) == text


def _after(rating, retention=0.9, now=NOW):
    card, recall = rules.review(rules.new_card(now), rating, now, retention=retention, fuzz=False)
    return card, recall


@pytest.mark.parametrize(
    "rating, days", [(Rating.Again, 1), (Rating.Hard, 1), (Rating.Good, 2), (Rating.Easy, 8)]
)
def test_a_first_review_is_due_on_a_later_day(rating, days):
    card, recall = _after(rating)
    assert recall == 0.0  # never reviewed before
    assert card.due == NOW + timedelta(days=days)
    assert card.last_review == NOW and card.state == 2


def test_a_lower_desired_retention_spaces_reviews_further():
    strict, _ = _after(Rating.Easy, retention=0.95)
    relaxed, _ = _after(Rating.Easy, retention=0.80)
    assert relaxed.due - NOW > strict.due - NOW


def test_retention_outside_the_dial_is_clamped():
    assert rules.scheduler(0.5).desired_retention == 0.80
    assert rules.scheduler(0.99).desired_retention == 0.95


def test_retrievability_falls_with_time_and_a_later_review_sees_it():
    card, _ = _after(Rating.Good)
    assert rules.retrievability(card, NOW) == pytest.approx(1.0)
    at_due = rules.retrievability(card, card.due)
    later = rules.retrievability(card, card.due + timedelta(days=5))
    assert 0.85 < at_due < 0.95 and later < at_due
    again, recall = rules.review(card, Rating.Good, card.due, retention=0.9, fuzz=False)
    assert recall == pytest.approx(at_due)
    assert again.due - card.due > timedelta(days=2)  # a success spaces the next review further


def test_the_trend_chart_places_scores_on_a_percent_axis():
    chart = charts.trend([("#1", 0), ("#2", 50), ("#3", 100)])
    ys = [p.y for p in chart["points"]]
    assert ys[0] == chart["bottom"] and ys[2] == charts.TOP and ys[0] > ys[1] > ys[2]
    assert [p.value for p in chart["points"]] == [0, 50, 100]
    assert chart["polyline"].count(",") == 3


def test_a_single_exam_sits_in_the_middle():
    (point,) = charts.trend([("#1", 70)])["points"]
    assert point.x == charts.LEFT + (charts.WIDTH - charts.LEFT - charts.RIGHT) / 2


def test_calibration_bars_carry_their_numbers_as_text():
    rows = rules.cbm_summary({1: (4, 1), 3: (5, 5)}).rows
    bars = charts.calibration(rows)["bars"]
    assert [b["text"] for b in bars] == ["25% (1 of 4)", "no answers", "100% (5 of 5)"]
    assert bars[1]["h"] == 0
    c3 = bars[2]
    assert c3["band_y"] == charts.TOP and c3["band_h"] > 0  # pays best from 80% to 100%
