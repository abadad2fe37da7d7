"""Compare a live run with its fork (and any live run of one's own) without saving either."""

import pytest

from studyapp.sandbox.models import LiveRun

from .fakes import reply, text, tool_use
from .live_runs import create

pytestmark = pytest.mark.django_db


@pytest.fixture
def run_and_fork(client, learner, api):
    """A live run of two steps, and a fork at step 1 that ends differently."""
    client.force_login(learner)
    live = create(client)
    api.script += [reply(tool_use("lookup_order", {"order_id": "20931"})), reply(text("Refunded."))]
    client.post(f"/sandbox/live/{live.pk}/step/", {"until": "end"})
    client.post(f"/sandbox/live/{live.pk}/fork/", {"at_step": 1, "tool_choice": "auto"})
    fork = LiveRun.objects.latest("pk")
    api.script += [reply(text("No refund: the order is past 30 days."))]
    client.post(f"/sandbox/live/{fork.pk}/step/")
    return live, fork


def test_a_live_run_compares_with_its_fork_before_either_is_saved(client, run_and_fork):
    live, fork = run_and_fork
    page = client.get(f"/sandbox/live/{fork.pk}/").content.decode()
    link = f"/sandbox/compare/?a=live{live.pk}&amp;b=live{fork.pk}"
    assert link in page  # the fork's page links to the comparison
    response = client.get(link.replace("&amp;", "&"))
    html = response.content.decode()
    assert response.status_code == 200
    assert f'<option value="live{live.pk}" selected>Your live run: {live.title}</option>' in html
    assert "(fork at step 1)</h2>" in html  # the fork's own title
    assert "They diverge at step 2" in html  # the kept step 1 is the same
    assert "Refunded." in html and "No refund" in html


def test_another_visitors_live_run_cannot_be_compared(client, run_and_fork, other_learner):
    live, fork = run_and_fork
    client.force_login(other_learner)
    assert client.get(f"/sandbox/compare/?a=live{live.pk}&b=refusal").status_code == 404
    assert client.get(f"/sandbox/compare/?a=refusal&b=live{fork.pk}").status_code == 404
    page = client.get("/sandbox/compare/").content.decode()
    assert f"live{live.pk}" not in page  # nor offered in the lists


def test_a_live_run_without_a_response_is_refused_in_words(client, learner, api):
    client.force_login(learner)
    live = create(client)
    response = client.get(f"/sandbox/compare/?a=live{live.pk}&b=refusal")
    assert response.status_code == 400 and "has no response yet" in response.content.decode()


def test_comparing_live_runs_costs_the_same_queries_however_many_are_owned(
    client, run_and_fork, api, django_assert_num_queries
):
    live, fork = run_and_fork
    url = f"/sandbox/compare/?a=live{live.pk}&b=live{fork.pk}"
    client.get(url)
    # session, the signed-in user, their uploads, their live runs, the two chosen runs' state
    with django_assert_num_queries(5):
        client.get(url)
    for _ in range(3):
        client.post(f"/sandbox/live/{live.pk}/fork/", {"at_step": 1, "tool_choice": "auto"})
    with django_assert_num_queries(5):
        assert client.get(url).status_code == 200
