"""The sandbox: library, stepper pages, raw JSON, predict mode, uploads and privacy."""

import json
import re
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils.html import escape

from studyapp.agentloop import catalogue
from studyapp.sandbox.library import library
from studyapp.sandbox.models import PredictAnswer, UploadedRun

from .transcripts import MESSAGE

pytestmark = pytest.mark.django_db

TRANSCRIPTS = Path(__file__).resolve().parent.parent / "content" / "transcripts"


def all_steps():
    for run in library().runs().values():
        for n in range(1, len(run.transcript.turns) + 1):
            yield run.key, n


def test_the_library_covers_every_stop_reason_and_case():
    runs = library().runs()
    assert len(runs) >= 14
    seen = {reason for run in runs.values() for reason in run.stop_reasons}
    assert seen == set(catalogue.STOP_REASONS)
    ended = {run.transcript.ended_by for run in runs.values()}
    assert {"turn_cap", "repeated_call"} <= ended


def test_every_library_run_replays_cleanly_except_the_broken_one():
    dirty = {
        key: [f.rule for f in run.findings] for key, run in library().runs().items() if run.findings
    }
    broken = {key for key, run in library().runs().items() if run.transcript.deliberately_broken}
    assert set(dirty) == broken == {"broken-split-results"}, dirty


def test_the_library_page_lists_runs_with_badges_and_filters_by_tag(client):
    html = client.get("/sandbox/").content.decode()
    for run in library().runs().values():
        assert f'href="/sandbox/{run.key}/steps/1/"' in html
    assert '<code class="badge badge-exit">pause_turn</code>' in html
    tag = sorted(library().runs()["parallel-lookups"].transcript.tags)[0]
    filtered = client.get(f"/sandbox/?tag={tag}").content.decode()
    assert filtered.count('class="card"') < html.count('class="card"')


@pytest.mark.parametrize(("key", "n"), list(all_steps()))
def test_every_step_of_every_run_renders(client, key, n, django_assert_max_num_queries):
    with django_assert_max_num_queries(0):  # library runs come from files, never the database
        response = client.get(f"/sandbox/{key}/steps/{n}/")
    assert response.status_code == 200
    html = response.content.decode()
    turn = library().get(key).transcript.turns[n - 1]
    assert f"Step {n} of" in html and f'stop_reason: "{turn.stop_reason}"' in html
    assert "What the loop does next" in html
    assert catalogue.NEXT_ACTIONS[turn.action].label.replace("'", "&#x27;") in html


def test_a_kept_step_panel_is_the_one_its_page_would_render(client, learner, instructor):
    """A step's response, decision panel and request are rendered once per run and kept: a
    step read again, raw or not, in another language, or by an instructor (who also gets the
    make-a-question form, never kept), is the page a first rendering gives. (Signed in: no
    shared page cache answers these requests.)"""
    client.force_login(learner)
    run = library().get("parallel-lookups")
    urls = [
        "/sandbox/parallel-lookups/steps/2/",
        "/pl/sandbox/parallel-lookups/steps/2/",
        "/sandbox/parallel-lookups/steps/2/?raw=1",
        "/zh-hans/sandbox/parallel-lookups/steps/2/?raw=1",
        "/sandbox/parallel-lookups/steps/1/",
    ]

    def page(url):  # (a signed-in page's CSRF token is new on every request)
        html = client.get(url).content.decode()
        return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)

    def first_rendering(url):
        run.rendered.clear()
        return page(url)

    first = {url: first_rendering(url) for url in urls}
    assert len(set(first.values())) == len(urls)
    for url in [*urls, *reversed(urls)]:
        assert page(url) == first[url], url
    client.force_login(instructor)
    html = page(urls[0])
    assert "Make a question from this step" in html
    assert html.count('class="decision"') == 1 and html.count('class="request"') == 1


def test_kept_step_panels_are_bounded_by_size(client, learner, monkeypatch):
    """A part over the size limit is rendered every time, never kept; past a run's budget its
    kept parts are dropped and kept afresh. The pages are the same either way."""
    from studyapp.sandbox import views

    client.force_login(learner)
    run = library().get("parallel-lookups")
    run.rendered.clear()
    url = "/sandbox/parallel-lookups/steps/2/"
    full = client.get(url).content.decode()
    parts = {k: v for k, v in run.rendered.items() if k[0] == "panel" and k != ("panel", "size")}
    assert parts and run.rendered[("panel", "size")] == sum(map(len, parts.values()))
    biggest = max(map(len, parts.values()))

    run.rendered.clear()
    monkeypatch.setattr(views, "PANEL_KEEP_MAX_CHARS", biggest - 1)
    again = client.get(url).content.decode()
    kept = [v for k, v in run.rendered.items() if k[0] == "panel" and k != ("panel", "size")]
    assert kept and biggest not in map(len, kept)

    monkeypatch.setattr(views, "PANEL_KEEP_MAX_CHARS", 10**9)
    monkeypatch.setattr(views, "PANELS_BUDGET_CHARS", biggest + 1)
    run.rendered.clear()
    for step in (1, 2, 1):
        client.get(f"/sandbox/parallel-lookups/steps/{step}/")
        assert run.rendered[("panel", "size")] <= biggest + 1
    strip = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')
    assert (
        strip.sub("", again)
        == strip.sub("", full)
        == strip.sub("", client.get(url).content.decode())
    )


def test_the_decision_panel_highlights_the_branch_that_runs(client):
    html = client.get("/sandbox/web-search-pause-turn/steps/1/").content.decode()
    active = [line for line in html.split('<span class="line is-active">')[1:]]
    assert active and all(
        "pause_turn" in a.split("</span>")[0]
        or "append" in a.split("</span>")[0]
        or "no extra user message" in a.split("</span>")[0]
        for a in active
    )
    assert "Send the paused turn back as is" in html


def test_htmx_gets_the_stepper_fragment_and_a_url_gets_the_page(client):
    url = "/sandbox/refund-25-days/steps/2/"
    fragment = client.get(url, headers={"HX-Request": "true"}).content.decode()
    assert fragment.lstrip().startswith('<div id="stepper-body">') and "<html" not in fragment
    assert "<html" in client.get(url).content.decode()


@pytest.mark.parametrize(
    "url",
    [
        "/sandbox/refund-25-days/steps/0/",
        "/sandbox/refund-25-days/steps/99/",
        "/sandbox/no-such-run/steps/1/",
        "/sandbox/..%2Fsecrets/steps/1/",
    ],
)
def test_unknown_runs_and_steps_are_404(client, url):
    assert client.get(url).status_code == 404


def test_the_raw_json_choice_is_remembered_across_steps(client):
    client.post("/sandbox/raw-json/", {"next": "/sandbox/refund-25-days/steps/1/"})
    html = client.get("/sandbox/refund-25-days/steps/2/").content.decode()
    assert 'class="raw-json"' in html and 'aria-pressed="true"' in html
    client.post("/sandbox/raw-json/", {"next": "https://evil.example/"})
    assert 'class="raw-json"' not in client.get("/sandbox/refund-25-days/steps/2/").content.decode()


def test_the_broken_run_shows_its_finding_at_the_step(client):
    run = library().get("broken-split-results")
    step = run.findings[0].step + 1
    html = client.get(f"/sandbox/broken-split-results/steps/{step}/").content.decode()
    assert "The checker found" in html


def _offered(html: str) -> list[str]:
    return re.findall(r'name="action" id="a-[a-z_]+" value="([a-z_]+)"', html)


def test_predict_mode_scores_and_explains_each_step(client):
    url = "/sandbox/web-search-pause-turn/predict/1/"
    before = client.get(url).content.decode()
    assert "What the loop does next" not in before  # nothing revealed before choosing
    right = client.post(url, {"action": "resend_paused"}).content.decode()
    assert "Right." in right and "What the loop does next" in right
    url2 = "/sandbox/web-search-pause-turn/predict/2/"
    run = library().get("web-search-pause-turn")
    wrong_choice = next(
        c
        for c in _offered(client.get(url2).content.decode())
        if c != run.transcript.turns[1].action
    )
    wrong = client.post(url2, {"action": wrong_choice})
    assert "Not quite." in wrong.content.decode()
    summary = client.get("/sandbox/web-search-pause-turn/predict/summary/").content.decode()
    assert "1 right out of 2 answered" in summary
    client.post("/sandbox/web-search-pause-turn/predict/reset/")
    assert (
        "0 right out of 0"
        in client.get("/sandbox/web-search-pause-turn/predict/summary/").content.decode()
    )


def test_predict_mode_hides_the_runs_title_and_summary_until_the_end(client):
    run = library().get("max-tokens-tool-use-retry")
    for n in range(1, len(run.transcript.turns) + 1):
        html = client.get(f"/sandbox/max-tokens-tool-use-retry/predict/{n}/").content.decode()
        assert run.title not in html
        assert run.transcript.summary not in html
    summary = client.get("/sandbox/max-tokens-tool-use-retry/predict/summary/").content.decode()
    assert run.title in summary and run.transcript.summary in summary


def test_predict_offers_four_or_five_plausible_choices_per_step(client):
    seen = set()
    for run in library().runs().values():
        for turn in run.transcript.turns:
            html = client.get(f"/sandbox/{run.key}/predict/{turn.index + 1}/").content.decode()
            offered = _offered(html)
            assert 4 <= len(offered) <= 5, (run.key, turn.index, offered)
            assert turn.action in offered
            seen.add(tuple(sorted(offered)))
    assert len(seen) > 3  # not the same list every time


def test_wrong_prediction_explains_the_right_action_and_why_the_choice_is_wrong(client):
    url = "/sandbox/refusal/predict/1/"
    html = client.post(url, {"action": "retry_unchanged"}).content.decode()
    right = catalogue.NEXT_ACTIONS["handle_refusal"]
    chosen = catalogue.NEXT_ACTIONS["retry_unchanged"]
    assert escape(right.detail) in html
    assert "Why not “Resend the same request unchanged”" in html
    assert "The same context gets the same refusal" in html
    assert (
        escape(chosen.detail) not in html
    )  # the wrong choice's own description is not the feedback


def test_predictions_are_kept_per_learner_and_shown_in_progress(client):
    client.post("/sandbox/refusal/predict/1/", {"action": "handle_refusal"})
    assert PredictAnswer.objects.get().correct is True
    page = client.get("/me/").content.decode()
    assert "1 right out of 1 step predicted" in page
    other = Client()
    assert "1 right out of 1" not in other.get("/me/").content.decode()


def test_predict_mode_asks_for_a_choice(client):
    html = client.post(
        "/sandbox/refund-25-days/predict/1/", {"action": "nonsense"}
    ).content.decode()
    assert "Choose what the loop must do next." in html


def test_predict_keeps_the_first_answer(client):
    url = "/sandbox/refusal/predict/1/"
    client.post(url, {"action": "retry_unchanged"})
    html = client.post(url, {"action": "handle_refusal"}).content.decode()
    assert "Not quite." in html


# --- uploads -------------------------------------------------------------------------------


def upload(client, text=None, file=None, title=""):
    data = {"title": title, "text": text or ""}
    if file is not None:
        data["file"] = file
    return client.post("/sandbox/upload/", data)


def test_uploading_a_library_transcript_opens_it(client):
    text = (TRANSCRIPTS / "parallel-lookups.json").read_text()
    response = upload(client, file=SimpleUploadedFile("run.json", text.encode()))
    run = UploadedRun.objects.get()
    assert response["Location"] == f"/sandbox/uploads/{run.pk}/steps/1/"
    assert client.get(f"/sandbox/uploads/{run.pk}/steps/2/").status_code == 200


def test_an_upload_holding_a_nul_character_is_refused_with_where_it_is(client):
    """No text column of PostgreSQL stores a NUL: a transcript with a \\u0000 escape is refused
    in words (a 500 there before), an escaped backslash followed by "u0000" is plain text."""
    with_nul = json.dumps({**MESSAGE, "id": "msg_\x00"}, indent=1)
    response = upload(client, text=with_nul)
    assert response.status_code == 400 and not UploadedRun.objects.exists()
    assert "holds a NUL character (\\u0000) at line 2" in response.content.decode()
    backslash = json.dumps({**MESSAGE, "id": "msg_\\u0000"})  # the six characters \u0000
    assert upload(client, text=backslash).status_code == 302


def test_a_single_message_uploads_and_its_blocks_are_escaped(client):
    response = upload(client, text=json.dumps(MESSAGE), title="One message")
    assert response.status_code == 302
    html = client.get(response["Location"]).content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    assert "lookup_order" in html


def test_a_jsonl_log_of_request_response_pairs_uploads(client):
    second = {
        **MESSAGE,
        "id": "msg_02",
        "content": [{"type": "text", "text": "Done."}],
        "stop_reason": "end_turn",
    }
    request1 = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "Where is order 1?"}],
        "tools": [{"name": "lookup_order", "input_schema": {"type": "object"}}],
    }
    request2 = {
        **request1,
        "messages": request1["messages"]
        + [
            {"role": "assistant", "content": MESSAGE["content"]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_01A", "content": "shipped"}
                ],
            },
        ],
    }
    log = "\n".join(
        json.dumps(x)
        for x in (
            {"request": request1, "response": MESSAGE},
            {"request": request2, "response": second},
        )
    )
    response = upload(client, text=log)
    assert response.status_code == 302, response.content.decode()[:2000]
    html = client.get(response["Location"].removesuffix("1/") + "2/").content.decode()
    assert "Step 2 of 2" in html


def test_unknown_block_types_are_kept_and_shown_raw(client):
    message = {**MESSAGE, "content": MESSAGE["content"] + [{"type": "hologram", "beam": 3}]}
    response = upload(client, text=json.dumps(message))
    assert response.status_code == 302
    html = client.get(response["Location"]).content.decode()
    assert "hologram" in html and "shown raw" in html


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "line 1"),
        (json.dumps({**MESSAGE, "content": [{"type": "tool_use", "name": "x"}]}), "content[0]"),
        (json.dumps({"format": "loopcraft.transcript/1", "turns": "many"}), "turns"),
        ("[" * 200 + "]" * 200, "nest"),
        ("", "Choose a file or paste"),
    ],
)
def test_bad_uploads_name_the_problem_and_keep_the_text(client, text, message):
    response = upload(client, text=text)
    html = response.content.decode()
    assert response.status_code in (200, 400)
    assert message.lower() in html.lower(), html[html.find("message error") :][:400]
    if text:
        assert not UploadedRun.objects.exists()


def test_a_file_over_2_mb_is_refused_in_words(client):
    big = SimpleUploadedFile("big.json", b" " * (2 * 1024 * 1024 + 10))
    html = upload(client, file=big).content.decode()
    assert "the limit is 2 MB" in html


def test_a_file_that_is_not_utf8_is_refused_in_words(client):
    html = upload(client, file=SimpleUploadedFile("x.json", b"\xff\xfe\x00bad")).content.decode()
    assert "not UTF-8" in html


def test_uploads_are_private_and_deletable(client, learner, other_learner):
    client.force_login(learner)
    upload(client, text=json.dumps(MESSAGE))
    run = UploadedRun.objects.get()
    assert run.user == learner
    client.force_login(other_learner)
    assert client.get(f"/sandbox/uploads/{run.pk}/steps/1/").status_code == 404
    assert client.post(f"/sandbox/uploads/{run.pk}/delete/").status_code == 404
    client.force_login(learner)
    assert "Your uploads" in client.get("/sandbox/").content.decode()
    client.post(f"/sandbox/uploads/{run.pk}/delete/")
    assert not UploadedRun.objects.exists()


def test_an_uploaded_step_runs_a_constant_number_of_queries(client, django_assert_num_queries):
    upload(client, text=(TRANSCRIPTS / "coding-agent-fix-test.json").read_text())
    run = UploadedRun.objects.get()
    client.get(f"/sandbox/uploads/{run.pk}/steps/1/")  # the first step reads the transcript
    # session, the upload's row (its transcript is parsed once per process, not per step)
    with django_assert_num_queries(2):
        client.get(f"/sandbox/uploads/{run.pk}/steps/3/")


def test_a_history_restore_request_gets_the_whole_page(client):
    headers = {"HX-Request": "true", "HX-History-Restore-Request": "true"}
    html = client.get("/sandbox/refund-25-days/steps/2/", headers=headers).content.decode()
    assert "<html" in html


@pytest.mark.parametrize(
    ("block", "shown"),
    [
        (
            {
                "type": "web_fetch_tool_result",
                "tool_use_id": "srvtoolu_01F",
                "content": {
                    "type": "web_fetch_tool_result_error",
                    "error_code": "url_not_accessible",
                },
            },
            "error: url_not_accessible",
        ),
        (
            {
                "type": "code_execution_tool_result",
                "tool_use_id": "srvtoolu_01C",
                "content": {
                    "type": "code_execution_result",
                    "stdout": "42\n",
                    "stderr": "",
                    "return_code": 0,
                    "content": [],
                },
            },
            "return code <code>0</code>",
        ),
        ({"type": "container_upload", "file_id": "file_01Z"}, "file_01Z"),
    ],
)
def test_server_tool_result_blocks_render_by_type(client, block, shown):
    message = {**MESSAGE, "stop_reason": "end_turn", "content": [block]}
    response = upload(client, text=json.dumps(message))
    assert response.status_code == 302, response.content.decode()[-600:]
    assert shown in client.get(response["Location"]).content.decode()


def test_an_upload_is_judged_by_its_own_models_rules(client):
    data = json.loads((TRANSCRIPTS / "tool-choice-any.json").read_text())
    assert data["model"] == "claude-sonnet-4-5" and data["tool_choice"] == {"type": "any"}
    data["model"] = "claude-sonnet-5-5"  # the same loop, sent to today's Sonnet
    response = upload(client, text=json.dumps(data), title="Forced on Sonnet 5.5")
    html = client.get(response["Location"]).content.decode()
    assert "claude-sonnet-5-5 rejects forced tool_choice" in html
    data["model"] = "claude-haiku-5-5"
    response = upload(client, text=json.dumps(data), title="Forced on Haiku 5.5")
    assert "rejects forced tool_choice" not in client.get(response["Location"]).content.decode()


def test_an_upload_number_no_column_can_hold_is_a_404(client):
    """The upload's lookup is compiled once per process (core/owners.owned_object); an id
    beyond the column goes through the ORM: a 404 on each of its pages, never a 500."""
    upload(client, text=json.dumps(MESSAGE))
    run = UploadedRun.objects.get()
    assert client.get(f"/sandbox/uploads/{run.pk}/steps/1/").status_code == 200
    for pk in (2**40, 2**70):
        for page in ("steps/1/", "overview/", "conversation/"):
            assert client.get(f"/sandbox/uploads/{pk}/{page}").status_code == 404
