"""Questions in four languages: one question, one key; the words change with the page's language."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from core.owners import Owner
from progress.models import ConceptCard
from quizzes import bank, services, translations
from quizzes.importing import question_to_bank
from quizzes.models import Question, QuestionTranslation, Response

from .i18n_content import copy_fixture

PL_STEM = "Co pętla robi dalej?"
ZH_STEM = "循环接下来做什么？"
EN_STEM = "What does the loop do next?"


@pytest.fixture
def content(db, tmp_path, settings):
    settings.CONTENT_DIR = copy_fixture(tmp_path)
    call_command("loadcontent", stdout=StringIO(), stderr=StringIO())
    return settings.CONTENT_DIR


@pytest.fixture
def attempt(content, learner, client):
    client.force_login(learner)
    return services.practice_start(owner=Owner(learner, ""), subtopics=[], which="all", count=2)


def position_of(attempt, slug: str) -> int:
    return Response.objects.get(attempt=attempt, question__slug=slug).position


def right_choice(slug: str) -> str:
    q = Question.objects.current().get(slug=slug)
    return next(o.key for o in q.options.all() if o.correct)


def test_loadcontent_attaches_each_translation_to_the_current_english_version(content):
    rows = QuestionTranslation.objects.select_related("question")
    assert sorted((t.question.slug, t.lang) for t in rows) == [
        ("mini-exit", "pl"), ("mini-exit", "zh-hans"),
        ("mini-order", "pl"), ("mini-order", "zh-hans"),
    ]  # fmt: skip
    assert all(t.question.is_current for t in rows)
    assert all(t.source_hash == translations.question_hash(t.question) for t in rows)


def test_the_practice_page_shows_the_question_in_the_page_language(client, attempt):
    n = position_of(attempt, "mini-exit")
    for prefix, stem, option in [
        ("", EN_STEM, "Return the text to the user"),
        ("/pl", PL_STEM, "Zwraca tekst użytkownikowi"),
        ("/zh-hans", ZH_STEM, "把这段文本返回给用户"),
    ]:
        html = client.get(f"{prefix}/practice/{attempt.pk}/{n}/").content.decode()
        assert stem in html and option in html, prefix
    # Traditional Chinese has no translation here: the English question.
    assert EN_STEM in client.get(f"/zh-hant/practice/{attempt.pk}/{n}/").content.decode()


def test_show_in_english_keeps_the_place_and_answers_nothing(client, attempt):
    n = position_of(attempt, "mini-exit")
    url = f"/pl/practice/{attempt.pk}/{n}/"
    page = client.get(url).content.decode()
    assert f'href="{url}?original=1#q-heading"' in page
    english = client.get(url + "?original=1").content.decode()
    assert EN_STEM in english and PL_STEM not in english
    assert '<html lang="pl"' in english  # the interface stays Polish
    assert f'href="{url}#q-heading"' in english  # and back
    assert 'id="feedback"' not in english and 'id="feedback"' not in page  # nothing revealed
    assert Response.objects.get(attempt=attempt, position=n).answered_at is None


def test_grading_and_statistics_are_the_same_in_every_language(client, content, learner):
    owner = Owner(learner, "")
    client.force_login(learner)
    scores = []
    for prefix in ("", "/pl", "/zh-hans"):
        attempt = services.practice_start(owner=owner, subtopics=[], which="all", count=2)
        n = position_of(attempt, "mini-exit")
        response = client.post(
            f"{prefix}/practice/{attempt.pk}/{n}/", {"choice": right_choice("mini-exit")}
        )
        assert response.status_code == 200
        r = Response.objects.get(attempt=attempt, position=n)
        scores.append((r.score, r.is_correct, r.question_id))
    assert len(set(scores)) == 1 and scores[0][:2] == (1.0, True)
    # One question, one version, one FSRS card: the language made no second of anything.
    assert Question.objects.filter(slug="mini-exit").count() == 1
    concept = Question.objects.get(slug="mini-exit").concept
    assert ConceptCard.objects.filter(user=learner, concept=concept).count() == 1


def test_a_wrong_answer_in_polish_gets_the_polish_why(client, attempt):
    n = position_of(attempt, "mini-exit")
    q = Question.objects.current().get(slug="mini-exit")
    wrong = next(o.key for o in q.options.all() if not o.correct)
    html = client.post(f"/pl/practice/{attempt.pk}/{n}/", {"choice": wrong}).content.decode()
    assert "Pętla rozgałęzia się według" in html or "API już to powiedziało" in html
    r = Response.objects.get(attempt=attempt, position=n)
    assert r.score == 0 and r.is_correct is False


def test_an_english_edit_makes_the_translation_stale_and_learners_see_english(client, attempt):
    q = Question.objects.current().prefetch_related("options").get(slug="mini-exit")
    parsed = question_to_bank(q)
    parsed["stem"] = parsed["stem"].replace("Let me check", "One moment, let me check")
    parsed["data"] = {}
    edited = bank.save_question(_parsed(parsed), origin=Question.Origin.BROWSER)
    assert edited.version == 2
    carried = QuestionTranslation.objects.get(question=edited, lang="pl")
    status = translations.status_by_question(Question.objects.current().prefetch_related("options"))
    assert status[edited.pk] == {"zh-hans": "stale", "zh-hant": "missing", "pl": "stale"}
    assert carried.source_hash != translations.question_hash(edited)
    # A new attempt draws the new version: Polish pages show it in English, with a notice.
    other = services.practice_start(
        owner=attempt_owner(attempt), subtopics=[], which="all", count=2
    )
    n = position_of(other, "mini-exit")
    html = client.get(f"/pl/practice/{other.pk}/{n}/").content.decode()
    assert "One moment, let me check" in html and PL_STEM not in html
    assert "translation-toggle" in html


def attempt_owner(attempt):
    return Owner(attempt.user, "")


def _parsed(bank_form: dict) -> dict:
    """Bank form back through the schema, as the editor does."""
    from quizzes import schema

    parsed, problems = schema.check_question(
        {k: v for k, v in bank_form.items() if k != "data"}, "edit"
    )
    assert not problems, problems
    return parsed


def test_the_question_page_runs_the_same_queries_in_every_language(
    client, attempt, django_assert_num_queries
):
    n = position_of(attempt, "mini-exit")
    client.get(f"/practice/{attempt.pk}/{n}/")  # warm: session and content caches
    # session, user, the response with its attempt, question and translation (subqueries);
    # the options come from the per-version cache (quizzes/versioncache.py)
    for prefix in ("", "/pl", "/zh-hant"):
        with django_assert_num_queries(3):
            assert client.get(f"{prefix}/practice/{attempt.pk}/{n}/").status_code == 200


def _write_pl(content, body: str) -> None:
    (content / "questions" / "pl" / "mini.yaml").write_text(body, encoding="utf-8")


BROKEN = [
    (
        "mini-exit", "    options:\n      - {text: a, why: b}\n",
        "options: has 1 entries; the English question has 3",
    ),
    (
        "mini-exit", "    options:\n" + "      - {text: a, why: b, correct: true}\n" * 3,
        "options[1].correct: not translated here",
    ),
    ("mini-exit", "    family: ends-on-text\n", "family: not a translatable field"),
    (
        "mini-order", "    options:\n" + "      - {text: a, why: b}\n" * 3,
        "options: the English question has no options",
    ),
    ("mini-order", "    stem: ''\n", "stem: must be a non-empty text"),
]  # fmt: skip


@pytest.mark.django_db
@pytest.mark.parametrize(("slug", "extra", "message"), BROKEN)
def test_loadcontent_names_the_file_slug_and_field_of_a_bad_translation(
    tmp_path, settings, slug, extra, message
):
    content = copy_fixture(tmp_path)
    settings.CONTENT_DIR = content
    _write_pl(content, f"lang: pl\ntranslations:\n  - slug: {slug}\n{extra}")
    err = StringIO()
    call_command("loadcontent", stdout=StringIO(), stderr=err)
    assert f"questions/pl/mini.yaml: {slug}: {message}" in err.getvalue()
    assert not QuestionTranslation.objects.filter(lang="pl").exists()
    # the other language's translations still load
    assert QuestionTranslation.objects.filter(lang="zh-hans").count() == 2


@pytest.mark.django_db
def test_an_unknown_slug_is_skipped_with_a_warning_and_the_rest_loads(tmp_path, settings):
    content = copy_fixture(tmp_path)
    settings.CONTENT_DIR = content
    text = (content / "questions" / "pl" / "mini.yaml").read_text()
    _write_pl(
        content, text.replace("translations:\n", "translations:\n  - slug: no-such\n    stem: x\n")
    )
    err = StringIO()
    call_command("loadcontent", stdout=StringIO(), stderr=err)
    assert (
        "skipped translation: mini.yaml: entry 1: no English question 'no-such'" in err.getvalue()
    )
    assert QuestionTranslation.objects.filter(lang="pl").count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("lang: de\ntranslations: []\n", "says lang 'de', but lives in the 'pl' folder"),
        ("lang: pl\n", "needs `lang: pl` and a `translations:` list"),
        ("lang: pl\ntranslations: [\n", "not valid YAML"),
    ],
)
def test_a_bad_translation_file_is_reported_not_a_crash(tmp_path, settings, text, message):
    settings.CONTENT_DIR = copy_fixture(tmp_path)
    _write_pl(settings.CONTENT_DIR, text)
    err = StringIO()
    call_command("loadcontent", stdout=StringIO(), stderr=err)
    assert message in err.getvalue()
    with pytest.raises(CommandError):
        call_command("loadcontent", "--strict", stdout=StringIO(), stderr=StringIO())


def test_authors_see_missing_and_stale_translations_per_language(client, content, instructor):
    client.force_login(instructor)
    listing = client.get("/author/?q=mini").content.decode()
    assert "zh-Hant</span>: missing" in listing and "pl</span>: stale" not in listing
    q = Question.objects.current().prefetch_related("options").get(slug="mini-exit")
    parsed = question_to_bank(q)
    parsed["explanation"] += "\nAnd keep a cap as a safety net."
    bank.save_question(_parsed(parsed), origin=Question.Origin.BROWSER)
    listing = client.get("/author/?q=mini").content.decode()
    row = listing[listing.index("mini-exit") : listing.index("mini-order")]
    assert "pl</span>: stale" in row and "zh-Hans</span>: stale" in row
    editor = client.get("/author/questions/mini-exit/edit/").content.decode()
    assert "stale: the English words changed since it was translated" in editor
    # The untouched question is still current in both languages.
    order = client.get("/author/questions/mini-order/edit/").content.decode()
    assert order.count("up to date") == 2


def test_exam_results_show_the_feedback_in_the_page_language(client, content, learner):
    client.force_login(learner)
    attempt = services.exam_start(owner=Owner(learner, ""), count=2)
    n = position_of(attempt, "mini-exit")
    client.post(f"/pl/exam/{attempt.pk}/q/{n}/", {"choice": right_choice("mini-exit")})
    assert PL_STEM in client.get(f"/pl/exam/{attempt.pk}/q/{n}/").content.decode()
    services.attempt_submit(attempt=attempt)
    polish = client.get(f"/pl/exam/{attempt.pk}/results/").content.decode()
    assert PL_STEM in polish and "Tura nie jest skończona" in polish
    english = client.get(f"/exam/{attempt.pk}/results/").content.decode()
    assert EN_STEM in english and PL_STEM not in english


def test_the_yaml_export_carries_translations_and_round_trips_byte_identical(content):
    from quizzes import importing

    first, _ = importing.export_questions("yaml", importing.exportable())
    assert "translations:\n" in first and "  pl:\n" in first and PL_STEM in first
    preview = importing.import_preview(first, "yaml")
    assert preview.errors == [] and {r.action for r in preview.rows} == {"unchanged"}
    QuestionTranslation.objects.all().delete()  # the import alone brings them back
    importing.import_apply(preview)
    assert QuestionTranslation.objects.count() == 4
    assert not QuestionTranslation.objects.filter(is_stale=True).exists()
    second, _ = importing.export_questions("yaml", importing.exportable())
    assert second == first
    assert Question.objects.filter(slug="mini-exit").count() == 1  # no new version


def test_a_yaml_import_with_a_broken_translation_says_where(content):
    from quizzes import importing

    text, _ = importing.export_questions("yaml", importing.exportable())
    broken = text.replace("    pl:\n", "    pl:\n      correct: true\n", 1)
    preview = importing.import_preview(broken, "yaml")
    assert any(
        "translations.pl.correct: not a translatable field" in str(e) for e in preview.errors
    )


@pytest.mark.parametrize("fmt", ["gift", "moodlexml"])
def test_gift_and_xml_export_one_language_per_file(client, content, instructor, fmt):
    client.force_login(instructor)
    polish = client.get("/author/export/", {"format": fmt, "lang": "pl"})
    assert polish.status_code == 200 and ".pl." in polish["Content-Disposition"]
    text = polish.content.decode()
    assert "Przychodzi odpowiedź" in text and 'Let me check that." What does' not in text
    english = client.get("/author/export/", {"format": fmt}).content.decode()
    assert "Przychodzi odpowiedź" not in english
    assert client.get("/author/export/", {"format": fmt, "lang": "de"}).status_code == 400


@pytest.mark.django_db
def test_a_changed_english_file_makes_its_translations_stale_until_restamped(tmp_path, settings):
    content = copy_fixture(tmp_path)
    settings.CONTENT_DIR = content
    call_command("loadcontent", stdout=StringIO(), stderr=StringIO())
    assert not QuestionTranslation.objects.filter(is_stale=True).exists()  # stamped files
    english = content / "questions" / "mini.yaml"
    english.write_text(english.read_text().replace("Let me check\n", "Let me look\n"))
    out = StringIO()
    call_command("loadcontent", stdout=out, stderr=StringIO())
    assert "questions: 0 created, 1 updated" in out.getvalue()
    assert "2 stale" in out.getvalue()  # pl and zh-hans of mini-exit
    stale = QuestionTranslation.objects.filter(is_stale=True, question__is_current=True)
    assert sorted(t.lang for t in stale) == ["pl", "zh-hans"]
    assert {t.question.slug for t in stale} == {"mini-exit"}
    # The translator updates the words and stamps: current again.
    call_command("translations", "--stamp", stdout=StringIO())
    call_command("loadcontent", stdout=StringIO(), stderr=StringIO())
    assert not QuestionTranslation.objects.filter(is_stale=True, question__is_current=True).exists()


@pytest.mark.django_db
def test_a_next_action_translation_names_the_actions_in_the_page_language(monkeypatch):
    from django.utils import translation

    from core import i18n
    from quizzes import presentation

    from .factories import make_question

    q = make_question("next_action", slug="na")
    whys = [{"why": f"PL-WHY-{i}"} for i in range(q.options.count())]
    entry = {"choices": whys}
    english = question_to_bank(Question.objects.prefetch_related("options").get(pk=q.pk))
    assert translations.check_entry(entry, english) == []
    translations.upsert(q, "pl", entry, english)
    monkeypatch.setattr(i18n, "gettext", lambda s: f"PL:{s}")
    monkeypatch.setattr(i18n, "_catalogues", {})
    row = translations.with_translation(Question.objects.prefetch_related("options"), "pl").get(
        pk=q.pk
    )
    with translation.override("pl"):
        shown = translations.localise(row, row.tr_html, row.tr_stale, "pl")
        ctx = presentation.present(shown.question, seed=1)
        fb = presentation.feedback(shown.question, {"choice": "retry_with_more_tokens"}, 1.0)
    assert shown.available
    assert all(c["html"].startswith("PL:") for c in ctx["choices"])
    assert sorted(o["why_html"] for o in fb["options"]) == sorted(f"PL-WHY-{i}" for i in range(4))
    assert [o["correct"] for o in fb["options"]].count(True) == 1  # the key is the catalogue's


def test_the_done_page_and_exam_summary_quote_stems_in_the_page_language(client, content, learner):
    client.force_login(learner)
    practice = services.practice_start(owner=Owner(learner, ""), subtopics=[], which="all", count=2)
    assert "Ułóż jedną iterację" in client.get(f"/pl/practice/{practice.pk}/done/").content.decode()
    exam = services.exam_start(owner=Owner(learner, ""), count=2)
    summary = client.get(f"/zh-hans/exam/{exam.pk}/summary/").content.decode()
    assert "循环接下来做什么" in summary
    assert "A response arrives with" in client.get(f"/exam/{exam.pk}/summary/").content.decode()


@pytest.mark.django_db
def test_a_scenario_brief_is_shown_through_gettext(client, learner, monkeypatch):
    from quizzes import views

    from .factories import make_question

    q = make_question("single", slug="brief-q")
    Question.objects.filter(pk=q.pk).update(scenario="customer-support")
    client.force_login(learner)
    attempt = services.practice_start(owner=Owner(learner, ""), subtopics=[], which="all", count=1)
    monkeypatch.setattr(views, "gettext", lambda s: f"PL[{s}]")
    html = client.get(f"/pl/practice/{attempt.pk}/1/").content.decode()
    assert "PL[Customer support agent]" in html
    assert "lookup_order" in html  # tool names are never translated


def test_an_import_that_brings_only_translations_moves_the_cached_pages(
    content, django_capture_on_commit_callbacks
):
    """Note pages show questions in the page's language: an import whose questions are all
    unchanged but whose translations are new must still announce the bank changed."""
    from quizzes import importing
    from quizzes.signals import bank_changed

    text, _ = importing.export_questions("yaml", importing.exportable())
    QuestionTranslation.objects.all().delete()
    preview = importing.import_preview(text, "yaml")
    assert {r.action for r in preview.rows} == {"unchanged"}
    heard = []

    def listen(**kwargs):
        heard.append(kwargs)

    bank_changed.connect(listen)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            importing.import_apply(preview)
    finally:
        bank_changed.disconnect(listen)
    assert QuestionTranslation.objects.count() == 4 and heard


def test_the_options_read_in_one_query_are_the_prefetched_ones(one_of_each):
    """load_translations reads every current question's options in one query (_options_of):
    each question's English words are the ones prefetch_related("options") gives."""
    current = list(Question.objects.current().order_by("pk"))
    options = translations._options_of(current)
    prefetched = Question.objects.current().order_by("pk").prefetch_related("options")
    assert [question_to_bank(q, options[q.pk]) for q in current] == [
        question_to_bank(q) for q in prefetched
    ]
    assert sum(map(len, options.values())) > 20


def test_a_translation_file_is_copied_as_deepcopy_copies_it():
    """A file read again comes from the loaded YAML, copied (translations.copied): equal to a
    deep copy, nothing mutable shared; YAML aliases (shared or nested in themselves) are deep-
    copied."""
    import copy

    from .i18n_content import FIXTURE

    path = FIXTURE / "questions" / "pl" / "mini.yaml"
    first = translations.read_file(path, "pl")
    loaded = translations._LOADED[path.read_text(encoding="utf-8")][0]
    again = translations._load_text(path.read_text(encoding="utf-8"))
    assert again == copy.deepcopy(loaded) == {"lang": "pl", "translations": first}
    again["translations"][0]["stem"] = "changed"
    again["translations"][0].setdefault("options", []).append({})
    assert translations.read_file(path, "pl") == first != again["translations"]
    shared = translations._load_text("a: &x [1, {b: 2}]\nc: *x\nd: &y [*y]\n")
    assert shared["a"] is shared["c"] and shared["d"][0] is shared["d"]
    assert not translations.is_tree(shared) and translations.is_tree(again)
