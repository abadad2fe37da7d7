"""Scenario sets and the CCA-F format mock: the bank's shape, the draw, briefs, results."""

import random
from collections import Counter

import pytest

from quizzes import bank as bank_mod
from quizzes import schema, services
from quizzes.models import Attempt, Question
from quizzes.scenarios import GENERAL, SCENARIOS

from .answers import right_answer
from .factories import load_real_bank, parse_real_bank


@pytest.fixture(scope="module")
def real_bank():
    result = parse_real_bank()
    assert not result.problems
    return [q for q in result.questions if q["status"] == "published"]


def test_every_scenario_has_at_least_eight_exam_shaped_items(real_bank):
    per = Counter()
    for q in real_bank:
        if q.get("scenario") in SCENARIOS:
            assert q["kind"] == "single", q["slug"]
            assert len(q["options"]) == 4, q["slug"]
            assert sum(o["correct"] for o in q["options"]) == 1, q["slug"]
            assert all(o["family"] for o in q["options"] if not o["correct"]), q["slug"]
            per[q["scenario"]] += 1
    assert set(per) == set(SCENARIOS)
    assert min(per.values()) >= 8, per
    assert sum(per.values()) >= 48


def test_every_subtopic_has_at_least_ten_published_items(real_bank):
    counts = Counter(q["subtopic"] for q in real_bank)
    assert {s: counts[s] for s in schema.SUBTOPICS if counts[s] < 10} == {}


def test_true_false_keys_are_balanced_within_60_40(real_bank):
    keys = Counter(
        next(o["text"] for o in q["options"] if o["correct"])
        for q in real_bank
        if q["kind"] == "truefalse"
    )
    share = keys["True"] / (keys["True"] + keys["False"])
    assert 0.4 <= share <= 0.6, keys


def test_scenario_tags_are_checked():
    text = """questions:
  - slug: bad-tag
    kind: truefalse
    scenario: airline-bot
    cluster: Not A Slug
    subtopic: loop-basics
    concept: x
    notes: loop-basics#what-the-loop-is
    sources: [https://example.com]
    stem: s
    explanation: e
    options:
      - {text: "True", correct: true, why: w}
      - {text: "False", why: w, family: ends-on-text}
"""
    messages = [p.message for p in schema.parse_text(text).problems]
    assert any("scenario must be one of" in m for m in messages)
    assert any("cluster must be a slug" in m for m in messages)


def test_untagged_items_keep_their_content_hash(real_bank):
    untagged = next(q for q in real_bank if "scenario" not in q and "cluster" not in q)
    assert "scenario" not in untagged and "cluster" not in untagged  # not stored as ""


# --- the draws (pure) ---------------------------------------------------------------------


def test_the_topic_draw_takes_at_most_one_item_per_cluster():
    pool = [(i, schema.SUBTOPICS[i % 12], "c1" if i < 30 else "") for i in range(120)]
    for seed in range(30):
        ids = services.draw_exam(pool, 60, random.Random(seed))
        assert len(ids) == 60 and len(set(ids)) == 60
        assert sum(1 for i in ids if i < 30) <= 1


def test_the_ccaf_draw_takes_four_scenarios_grouped_and_one_per_cluster():
    names = list(SCENARIOS)
    pool = [(i, names[i % 6], "shared" if i % 10 == 0 else "") for i in range(60)]
    scenario_of = {i: s for i, s, _ in pool}
    for seed in range(30):
        ids = services.draw_ccaf(pool, 8, random.Random(seed))
        assert len(ids) == 32 and len(set(ids)) == 32
        groups = [scenario_of[i] for i in ids]
        order = list(dict.fromkeys(groups))
        assert len(order) == 4
        assert groups == [s for s in order for _ in range(8)]  # each scenario's items together
        assert sum(1 for i in ids if i % 10 == 0) <= 1


def test_the_ccaf_draw_refuses_a_bank_without_four_full_scenarios():
    pool = [(i, "customer-support", "") for i in range(20)]
    with pytest.raises(services.SelectionError, match="needs 4 scenarios"):
        services.draw_ccaf(pool, 8, random.Random(1))


# --- against the real bank ----------------------------------------------------------------


@pytest.fixture
def loaded(db):
    """The real bank in the database, as loadcontent writes it (built once per session)."""
    return load_real_bank()


def test_the_real_bank_fills_a_32_item_ccaf_exam_for_any_seed(loaded):
    pool = services.ccaf_pool()
    clusters = dict(Question.objects.values_list("id", "cluster"))
    for seed in range(40):
        ids = services.draw_ccaf(pool, 8, random.Random(seed))
        assert len(ids) == 32
        used = [clusters[i] for i in ids if clusters[i]]
        assert len(used) == len(set(used))


@pytest.mark.template_context  # reads response.context
def test_a_ccaf_exam_shows_briefs_and_reports_by_scenario(client, loaded):
    response = client.post("/exam/", {"format": "ccaf", "per_scenario": 5})
    assert response.status_code == 302, response.content
    attempt = Attempt.objects.get()
    assert attempt.exam_format == "ccaf" and attempt.question_count == 20
    assert (attempt.deadline - attempt.started_at).total_seconds() == 40 * 60
    rows = list(attempt.responses.select_related("question").order_by("position"))
    assert len({r.question.scenario for r in rows}) == 4
    assert all(r.question.scenario in SCENARIOS and r.question.kind == "single" for r in rows)
    first = client.get(f"/exam/{attempt.pk}/q/1/").content.decode()
    title = SCENARIOS[rows[0].question.scenario].title
    assert f"Scenario 1 of 4: <strong>{title}</strong>" in first
    assert '<details class="scenario-brief" open' in first
    assert SCENARIOS[rows[0].question.scenario].goal in first
    second = client.get(f"/exam/{attempt.pk}/q/2/").content.decode()
    assert '<details class="scenario-brief"  id' in second  # same scenario: brief folded
    sixth = client.get(f"/exam/{attempt.pk}/q/6/").content.decode()
    assert "Scenario 2 of 4" in sixth and '<details class="scenario-brief" open' in sixth
    for r in rows[:5]:
        client.post(f"/exam/{attempt.pk}/q/{r.position}/", right_answer(r.question))
    summary = client.get(f"/exam/{attempt.pk}/summary/").content.decode()
    assert '<th scope="col">Scenario</th>' in summary and title in summary
    client.post(f"/exam/{attempt.pk}/submit/")
    page = client.get(f"/exam/{attempt.pk}/results/")
    by = {row["label"]: row["percent"] for row in page.context["scenarios"]}
    assert by[title] == 100 and len(by) == 4
    assert sorted(by.values()) == [0, 0, 0, 100]
    assert 'id="scenario-table"' in page.content.decode()


def test_general_items_never_enter_a_ccaf_exam(loaded):
    general = set(Question.objects.filter(scenario=GENERAL).values_list("id", flat=True))
    assert general
    assert not general & {row[0] for row in services.ccaf_pool()}


def test_the_key_is_not_given_away_by_being_the_longest_option(real_bank):
    """Test-wise candidates pick the longest option; in scenario items that must not pay."""
    singles = [q for q in real_bank if q.get("scenario") in SCENARIOS]
    longest = 0
    for q in singles:
        key = next(len(o["text"]) for o in q["options"] if o["correct"])
        longest += key >= max(len(o["text"]) for o in q["options"] if not o["correct"])
    assert longest / len(singles) <= 0.35, f"{longest} of {len(singles)} keys are the longest"


def test_scenario_keys_are_spread_over_the_positions(real_bank):
    singles = [q for q in real_bank if q.get("scenario") in SCENARIOS]
    positions = Counter(
        next(i for i, o in enumerate(q["options"]) if o["correct"]) for q in singles
    )
    assert max(positions.values()) / len(singles) <= 0.35, positions


def test_scenario_and_cluster_survive_export_and_the_editor(loaded):
    from authoring.services import question_parsed
    from quizzes.importing import question_to_bank

    q = Question.objects.current().get(slug="cs-two-lookups-one-message")
    exported = question_to_bank(q)
    assert exported["scenario"] == "customer-support"
    assert exported["cluster"] == "results-split-across-messages"
    parsed = question_parsed(q)
    assert parsed["scenario"] == "customer-support"
    assert bank_mod.content_hash(parsed) == q.content_hash  # editing without change: no version


@pytest.mark.parametrize("per_scenario", [5, 8])
def test_the_summary_table_runs_a_constant_number_of_queries(
    client, loaded, django_assert_num_queries, per_scenario
):
    client.post("/exam/", {"format": "ccaf", "per_scenario": per_scenario})
    attempt = Attempt.objects.get()
    with django_assert_num_queries(4):  # session, attempt, navigator, stems
        assert client.get(f"/exam/{attempt.pk}/summary/").status_code == 200


def test_practice_shows_a_scenario_items_brief(client, loaded):
    q = Question.objects.current().get(slug="se-cut-record-call-retry")
    attempt = services.attempt_start(
        owner=services.Owner(None, "tok-brief"), mode="practice", question_ids=[q.pk], seed=1
    )
    session = client.session
    session["owner_token"] = "tok-brief"
    session.save()
    html = client.get(f"/practice/{attempt.pk}/1/").content.decode()
    assert "Scenario: <strong>Structured data extraction</strong>" in html
    assert "record_invoice" in html.split('id="scenario-brief"')[1]
