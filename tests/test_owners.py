"""Ownership: what a visitor makes before signing up is theirs after signing up or logging in."""

import datetime as dt
import json

import pytest
from django.db import connection, models
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from core.owners import SESSION_KEY, OwnedModel, Owner, claim_all, owned_models
from quizzes.models import Question
from studyapp.sandbox.models import LiveUsage, UploadedRun

from .factories import make_question
from .live_runs import FORM
from .transcripts import MESSAGE

pytestmark = pytest.mark.django_db
TOKEN = "anonymous-token-of-this-browser"


def make_row(model: type[models.Model], **owner) -> models.Model:
    """A row of any model, its required fields filled with plain values (a question for a
    foreign key to Question, another row for any other foreign key)."""
    values = {}
    for f in model._meta.concrete_fields:
        if f.primary_key or f.null or f.has_default() or f.name in owner:
            continue
        if isinstance(f, models.ForeignKey):
            rel = f.related_model
            values[f.name] = make_question("single") if rel is Question else make_row(rel)
        elif isinstance(f, models.JSONField):
            values[f.name] = {}
        elif isinstance(f, models.DateTimeField):
            values[f.name] = timezone.now()
        elif isinstance(f, models.DateField):
            values[f.name] = dt.date(2026, 12, 1)
        elif isinstance(f, models.IntegerField | models.FloatField):
            values[f.name] = f.choices[0][0] if f.choices else 1
        elif isinstance(f, models.CharField | models.TextField):
            values[f.name] = f.choices[0][0] if f.choices else "x"
        else:  # pragma: no cover - a new field type: teach make_row about it
            raise TypeError(f"make_row cannot fill {model.__name__}.{f.name}")
    return model.objects.create(**values, **owner)


def sign_in_from(client, token, user):
    """Log in through the log-in page from a browser whose session carries ``token``."""
    session = client.session
    session[SESSION_KEY] = token
    session.save()
    response = client.post(
        "/accounts/login/", {"username": user.username, "password": "pw-learner-123"}
    )
    assert response.status_code == 302


def test_every_visitor_owned_model_is_found():
    found = {m._meta.label for m in owned_models()}
    assert {
        "quizzes.Attempt",
        "progress.ConceptCard",
        "progress.StudyPrefs",
        "sandbox.UploadedRun",
        "sandbox.LiveRun",
        "sandbox.LiveUsage",
        "authoring.ProblemReport",
    } <= found


@pytest.mark.parametrize("model", owned_models(), ids=lambda m: m._meta.label)
def test_logging_in_claims_what_this_browser_made(client, learner, model: type[OwnedModel]):
    mine = make_row(model, owner_token=TOKEN)
    someone_elses = make_row(model, owner_token="another-browser")
    sign_in_from(client, TOKEN, learner)
    mine.refresh_from_db()
    someone_elses.refresh_from_db()
    assert mine.user == learner
    assert list(model.objects.owned_by(Owner(learner, ""))) == [mine]
    assert someone_elses.user is None and someone_elses.owner_token == "another-browser"


@pytest.mark.parametrize("model", owned_models(), ids=lambda m: m._meta.label)
def test_an_anonymous_visitor_sees_only_their_own_rows(model):
    mine = make_row(model, owner_token=TOKEN)
    make_row(model, owner_token="another-browser")
    assert list(model.objects.owned_by(Owner(None, TOKEN))) == [mine]
    assert not model.objects.owned_by(Owner(None, "")).exists()


def test_claiming_with_no_token_moves_nothing(learner):
    make_row(UploadedRun, owner_token="")
    with CaptureQueriesContext(connection) as sent:
        assert claim_all("", learner) == {}
    assert not sent.captured_queries  # not even a savepoint: nothing to move
    assert not UploadedRun.objects.filter(user=learner).exists()


def signup(client, name="newcomer"):
    response = client.post(
        "/accounts/signup/",
        {"username": name, "password1": "pw-newcomer-123", "password2": "pw-newcomer-123"},
    )
    assert response.status_code == 302


def test_an_upload_live_run_and_report_made_anonymously_open_after_sign_up(client, api):
    question = make_question("single", slug="q1")
    response = client.post("/sandbox/upload/", {"title": "", "text": json.dumps(MESSAGE)})
    upload_url = response["Location"]
    # Anonymous visitors may run live mode on their own key only (the server's is for accounts).
    response = client.post("/sandbox/live/", {**FORM, "api_key": "sk-ant-api03-" + "k" * 60})
    live_url = response["Location"]
    client.post("/author/questions/q1/report/", {"text": "Option B is also right"})
    assert client.get(upload_url).status_code == 200
    assert client.get(live_url).status_code == 200

    signup(client)
    assert client.get(upload_url).status_code == 200
    assert client.get(live_url).status_code == 200
    (report,) = question.reports.all()
    assert report.user.username == "newcomer"


# The allowance per account across sessions and browsers is tested where it is enforced:
# tests/test_live_jobs.py (fresh sessions share one account's allowance; a call whose worst case
# would pass the cap is not sent). Anonymous visitors never spend the server's key.


def test_a_session_that_already_spent_today_adds_to_the_accounts_day(learner):
    day = timezone.now().date()
    LiveUsage.objects.create(user=learner, day=day, tokens=50, calls=1)
    LiveUsage.objects.create(owner_token=TOKEN, day=day, tokens=70, calls=2)
    claim_all(TOKEN, learner)
    row = LiveUsage.objects.get()
    assert (row.user, row.tokens, row.calls) == (learner, 120, 3)


@pytest.mark.parametrize("model", owned_models(), ids=lambda m: m._meta.label)
def test_the_compiled_owned_queries_read_what_owned_by_reads(
    learner, other_learner, model: type[OwnedModel], django_assert_num_queries
):
    """core.owners.owned_rows / owned_objects (their SQL compiled once per process and kind of
    owner) give every model's owned_by rows: an account's, a token's, nobody else's; an owner
    with neither runs no query, as owned_by's none()."""
    from core.owners import owned_object, owned_objects, owned_rows

    for owner in ({"user": learner}, {"owner_token": TOKEN}, {"user": other_learner}):
        make_row(model, **owner)
    make_row(model, owner_token="another-browser")
    for owner in (Owner(learner, ""), Owner(None, TOKEN), Owner(other_learner, "")):
        orm = list(model.objects.owned_by(owner).order_by("pk"))
        objects = owned_objects(
            f"test-{model._meta.label}", owner, lambda o: o(model.objects).order_by("pk")
        )
        pks = owned_rows(
            f"test-{model._meta.label}-pk",
            owner,
            lambda o: o(model.objects).order_by("pk").values_list("pk"),
        )
        assert objects == orm and [pk for (pk,) in pks] == [r.pk for r in orm] and orm
        assert all(type(o) is model for o in objects)

        def by_pk(o, pk, model=model):
            return o(model.objects).filter(pk=pk)

        for row in model.objects.all():  # one row by pk: mine, or None
            one = owned_object(f"test-{model._meta.label}-one", owner, by_pk, pk=row.pk)
            assert one == (row if row in orm else None)
        # beyond the column: the ORM's answer (no row), not an error
        huge = owned_object(f"test-{model._meta.label}-one", owner, by_pk, pk=2**40)
        assert huge is None
    with django_assert_num_queries(0):
        nobody = Owner(None, "")
        assert owned_objects("test-nobody", nobody, lambda o: o(model.objects)) == []
        assert (
            owned_rows("test-nobody-rows", nobody, lambda o: o(model.objects).values_list("pk"))
            == []
        )
