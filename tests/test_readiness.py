"""The readiness estimate: Beta posterior and 90% interval checked against hand computation."""

import math
import re

import pytest

from progress import readiness

from .answers import answer_all, start_practice


def _binomial_tail(x: float, a: int, b: int) -> float:
    """By hand: for whole a, b, P(Beta(a, b) ≤ x) = P(Binomial(a+b-1, x) ≥ a)."""
    n = a + b - 1
    return sum(math.comb(n, j) * x**j * (1 - x) ** (n - j) for j in range(a, n + 1))


def test_one_right_answer_gives_beta_2_1_with_closed_form_quantiles():
    est = readiness.estimate(1, 1)  # uniform prior + 1 right → Beta(2, 1), CDF x²
    assert (est.a, est.b) == (2, 1)
    assert est.mean == pytest.approx(2 / 3)
    assert est.low == pytest.approx(math.sqrt(0.05), abs=1e-9)  # 0.2236
    assert est.high == pytest.approx(math.sqrt(0.95), abs=1e-9)  # 0.9747
    assert est.text == "67% (90% interval 22–97%)"


def test_seven_of_ten_matches_the_binomial_hand_computation():
    est = readiness.estimate(7, 10)  # Beta(8, 4)
    assert (est.a, est.b) == (8, 4)
    assert est.mean == pytest.approx(8 / 12)
    assert _binomial_tail(est.low, 8, 4) == pytest.approx(0.05, abs=1e-9)
    assert _binomial_tail(est.high, 8, 4) == pytest.approx(0.95, abs=1e-9)
    assert (est.low_percent, est.high_percent) == (44, 86)


def test_the_cdf_agrees_with_the_hand_formula_over_the_range():
    for a, b in [(1, 1), (3, 5), (20, 4), (41, 19)]:
        for x in (0.01, 0.2, 0.5, 0.72, 0.9, 0.99):
            assert readiness.beta_cdf(x, a, b) == pytest.approx(_binomial_tail(x, a, b), abs=1e-10)


@pytest.mark.parametrize(
    ("right", "answered", "key"),
    [(0, 0, "unmeasured"), (2, 2, "borderline"), (95, 100, "likely"), (30, 60, "not-yet")],
)
def test_the_verdict_needs_the_whole_interval_on_one_side_of_72_percent(right, answered, key):
    assert readiness.verdict(readiness.estimate(right, answered)).key == key


def test_bad_counts_are_refused():
    with pytest.raises(ValueError):
        readiness.estimate(3, 2)


def test_the_dashboard_shows_estimate_interval_coverage_and_assumptions(client, guards_bank):
    answer_all(client, start_practice(client, "guards"), correct=False)
    answer_all(client, start_practice(client, "tool-choice"))
    html = client.get("/me/").content.decode()
    rows = dict(re.findall(r'<tr data-subtopic="([a-z-]+)">(.*?)</tr>', html, re.S))
    guards = rows["guards"]
    # 0 of 2 first answers right → Beta(1, 3): mean 25%, 90% interval 1.7%–63.2%
    assert '25% <span class="muted">(2–63%)</span>' in guards
    assert "0 of 2 right" in guards and '2 of 2 <span class="muted">(100%)</span>' in guards
    assert "100%" not in rows["tool-choice"].split("</td>")[0]  # never 100% on two answers
    assert re.search(r'id="readiness-verdict">(Borderline|Not yet)<', html)
    assert "Beta(1, 1)" in html and "720" in html and "72%" in html
    assert "Practice scores run high" in html


def test_a_repeated_question_counts_only_its_first_answer(client, guards_bank):
    answer_all(client, start_practice(client, "guards"), correct=False)
    answer_all(client, start_practice(client, "guards"))  # the same two, now right
    html = client.get("/me/").content.decode()
    guards = dict(re.findall(r'<tr data-subtopic="([a-z-]+)">(.*?)</tr>', html, re.S))["guards"]
    assert "0 of 2 right" in guards
