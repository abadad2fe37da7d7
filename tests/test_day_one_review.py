"""Review from day one: study ahead, catalogue flashcards on the FSRS cards, the Anki export."""

import io
import sqlite3
import tempfile
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from progress import flashcards
from progress.models import ConceptCard, ReviewLog
from quizzes.models import Attempt
from studyapp.agentloop import catalogue

from .answers import right_answer
from .factories import make_bank

pytestmark = pytest.mark.django_db


@pytest.fixture
def bank(db):
    return make_bank(24)


def test_the_catalogue_makes_a_card_per_stop_reason_tool_choice_and_block():
    cards = flashcards.all_cards()
    assert len(cards) == len(catalogue.STOP_REASONS) + len(catalogue.TOOL_CHOICE_MODES) + len(
        catalogue.BLOCKS
    )
    by_id = {c.id: c for c in cards}
    assert by_id["stop-pause-turn"].back.startswith("Send the paused turn back as is")
    assert "exactly one tool call" in by_id["tool-choice-any"].back
    assert "Anthropic's servers" in by_id["block-server-tool-use"].back
    assert len({c.concept for c in cards}) == len(cards)


def test_a_fresh_visitor_is_offered_study_ahead_and_flashcards(client, bank):
    html = client.get("/review/").content.decode()
    assert 'id="nothing-due"' in html and 'action="/review/ahead/"' in html
    n = len(flashcards.all_cards())
    assert f"Review {n} flashcards" in html and f"{n} new" in html
    assert 'href="/review/loopcraft.apkg"' in html


def test_study_ahead_serves_unmet_concepts_across_subtopics(client, bank):
    response = client.post("/review/ahead/")
    attempt = Attempt.objects.get()
    assert response["Location"] == f"/practice/{attempt.pk}/1/"
    rows = list(attempt.responses.select_related("question"))
    assert len(rows) == 10
    assert len({r.question.concept for r in rows}) == 10
    assert len({r.question.subtopic for r in rows}) == 10  # round-robin over subtopics
    for r in rows:
        client.post(f"/practice/{attempt.pk}/{r.position}/", right_answer(r.question))
    again = Attempt.objects.exclude(pk=attempt.pk)
    client.post("/review/ahead/")
    second = {r.question.concept for r in again.get().responses.select_related("question")}
    assert not second & {r.question.concept for r in rows}  # the next unmet ones come first


@pytest.mark.template_context  # reads response.context
def test_rating_a_flashcard_schedules_it_on_an_fsrs_card(client, settings, db):
    settings.PROGRESS_FSRS_FUZZ = False
    page = client.get("/review/cards/")
    first = page.context["item"].card
    assert first.front in page.content.decode()
    assert "<summary>Show the answer</summary>" in page.content.decode()
    client.post("/review/cards/", {"card": first.id, "rating": 3})
    card = ConceptCard.objects.get(concept=first.concept)
    assert card.due > timezone.now() + timedelta(hours=12) and card.reviews == 1
    assert ReviewLog.objects.get(card=card).rating == 3
    nxt = client.get("/review/cards/").context
    assert nxt["item"].card.id != first.id
    assert nxt["left"] == len(flashcards.all_cards()) - 1
    # on the concept queue the flashcard does not appear as a question concept
    assert client.get("/review/").context["due"] == []


def test_a_bad_rating_or_card_is_named_not_a_500(client, db):
    response = client.post("/review/cards/", {"card": "nope", "rating": 3}, follow=True)
    assert "There is no flashcard" in response.content.decode()
    response = client.post("/review/cards/", {"card": "stop-end-turn", "rating": 9}, follow=True)
    assert "Choose Again, Hard, Good or Easy." in response.content.decode()
    assert not ConceptCard.objects.exists()


def test_review_concepts_are_named_in_words(client, bank, settings):
    settings.PROGRESS_FSRS_FUZZ = False
    attempt = client.post("/practice/", {"which": "all", "count": 5})
    attempt = Attempt.objects.get()
    r = attempt.responses.select_related("question").get(position=1)
    client.post(f"/practice/{attempt.pk}/1/", right_answer(r.question))
    ConceptCard.objects.update(due=timezone.now() - timedelta(days=1))
    html = client.get("/review/").content.decode()
    slug = r.question.concept  # e.g. "b-16"
    assert f"<strong>{slug}</strong>" not in html
    assert f"<strong>B {slug.split('-')[1]}</strong>" in html


def _apkg_notes(data: bytes) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert "collection.anki2" in z.namelist()
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "collection.anki2"
            path.write_bytes(z.read("collection.anki2"))
            con = sqlite3.connect(path)
            try:
                notes = [row[0] for row in con.execute("select flds from notes")]
                cards = con.execute("select count(*) from cards").fetchone()[0]
            finally:
                con.close()
    assert cards == len(notes)
    return notes


def test_the_anki_export_holds_every_flashcard_and_the_missed_questions(client, bank):
    client.post("/practice/", {"which": "all", "count": 5})
    attempt = Attempt.objects.get()
    rows = list(attempt.responses.select_related("question").prefetch_related("question__options"))
    singles = [r for r in rows if r.question.kind == "single"]
    missed = []
    for r in rows:
        if r.question.kind == "single":
            wrong = next(o for o in r.question.options.all() if not o.correct)
            client.post(f"/practice/{attempt.pk}/{r.position}/", {"choice": wrong.key})
            missed.append(r.question)
        else:
            client.post(f"/practice/{attempt.pk}/{r.position}/", right_answer(r.question))
    response = client.get("/review/loopcraft.apkg")
    assert response.status_code == 200
    assert 'filename="loopcraft.apkg"' in response["Content-Disposition"]
    notes = _apkg_notes(response.content)
    fronts = [n.split("\x1f")[0] for n in notes]
    for fc in flashcards.all_cards():
        assert fc.front in fronts
    for q in missed:
        assert q.stem_html in fronts
    assert len(notes) == len(flashcards.all_cards()) + len(singles)


def test_a_visitor_without_history_gets_the_flashcards_only(client, db):
    notes = _apkg_notes(client.get("/review/loopcraft.apkg").content)
    assert len(notes) == len(flashcards.all_cards())


def test_study_ahead_offers_a_concept_spanning_two_subtopics_once(client, bank):
    from quizzes.models import Question

    Question.objects.filter(slug__in=["b-0", "b-1"]).update(concept="shared")  # two subtopics
    client.post("/review/ahead/")
    concepts = [
        r.question.concept for r in Attempt.objects.get().responses.select_related("question")
    ]
    assert len(concepts) == len(set(concepts)) == 10


@pytest.mark.parametrize("rated", [1, 10])
def test_the_flashcard_page_runs_two_queries_however_many_cards(
    client, db, django_assert_num_queries, rated
):
    for fc in flashcards.all_cards()[:rated]:
        client.post("/review/cards/", {"card": fc.id, "rating": 3})
    client.get("/review/cards/")  # the session exists
    with django_assert_num_queries(2):  # session, the learner's cards
        assert client.get("/review/cards/").status_code == 200
