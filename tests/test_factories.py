"""The test factories and the suite's own set-up: fast paths that write what the slow ones write."""

import textwrap

import pytest

from quizzes import schema

from .factories import KIND_BODIES, parse_question, question_yaml


@pytest.mark.parametrize("kind", KIND_BODIES)
def test_a_filled_in_copy_equals_parsing_the_yaml(kind):
    real = schema.parse_text(textwrap.dedent("questions:\n" + question_yaml(kind, "b-7", "guards")))
    assert not real.problems
    assert parse_question(kind, "b-7", "guards") == real.questions[0]


def _row(question):
    skip = {"id", "created_at", "updated_at"}
    fields = {f.name: getattr(question, f.name) for f in question._meta.concrete_fields}
    random_keys = ("_state", "id", "question_id", "key", "match")
    options = [
        {**{k: v for k, v in o.__dict__.items() if k not in random_keys}, "match": bool(o.match)}
        for o in question.options.all()  # in position order (Option.Meta), prefetched or not
    ]
    data = {k: v for k, v in fields.items() if k not in skip}
    data["data"] = {k: v for k, v in data["data"].items() if k != "rights"}  # keys are random
    return data, options


@pytest.mark.django_db
def test_make_bank_writes_what_save_question_writes():
    from quizzes import bank
    from quizzes.models import Question

    from .factories import make_bank

    fast = make_bank(len(KIND_BODIES))
    for q in fast:
        Question.objects.filter(pk=q.pk).update(slug=f"fast-{q.slug}")
    slow = [
        bank.save_question(parse_question(q.kind, q.slug.removeprefix("fast-"), q.subtopic))
        for q in Question.objects.filter(pk__in=[q.pk for q in fast]).order_by("pk")
    ]
    current = Question.objects.filter(pk__in=[q.pk for q in fast]).order_by("pk")
    for f, s in zip(current, slow, strict=True):
        fd, fo = _row(f)
        sd, so = _row(s)
        fd["slug"] = fd["slug"].removeprefix("fast-")
        assert fd == sd and fo == so


@pytest.mark.django_db
def test_load_real_bank_writes_what_load_bank_writes():
    from quizzes import bank
    from quizzes.models import Question

    from .factories import REAL_BANK, load_real_bank

    report = bank.load_bank(REAL_BANK)
    assert not report.problems and len(report.created) > 100
    slow = [_row(q) for q in Question.objects.order_by("pk").prefetch_related("options")]
    Question.objects.all().delete()
    load_real_bank()
    fast = [_row(q) for q in Question.objects.order_by("pk").prefetch_related("options")]
    assert [d["slug"] for d, _ in fast] == report.created
    assert fast == slow


def _translation_rows():
    from quizzes.models import QuestionTranslation

    return [
        (t.question.slug, t.lang, t.fields, t.html, t.source_hash, t.is_stale)
        for t in QuestionTranslation.objects.select_related("question").order_by("pk")
    ]


@pytest.mark.django_db
def test_load_real_translations_writes_what_load_translations_writes():
    """The real translations, read back (written_translations) from what load_translations
    wrote and written again (write_translations), are the rows it wrote: the two halves of
    load_real_translations, on the whole real bank (its rolled-back load is the next test's)."""
    from quizzes.models import QuestionTranslation
    from quizzes.translations import load_translations

    from .factories import REAL_BANK, load_real_bank, write_translations, written_translations

    load_real_bank()
    report = load_translations(REAL_BANK[0].parent.parent)
    assert not report.problems and len(report.loaded) > 100
    slow = _translation_rows()
    captured = written_translations(set())
    QuestionTranslation.objects.all().delete()
    assert write_translations(captured) == len(report.loaded)
    assert _translation_rows() == slow


@pytest.mark.django_db
def test_load_real_translations_keeps_what_its_rolled_back_load_wrote():
    """load_real_translations as a whole (its load_translations in a transaction rolled back,
    then one insert), on the small fixture content: the rows a load of it writes."""
    from quizzes import bank
    from quizzes.models import QuestionTranslation
    from quizzes.translations import load_translations

    from .factories import load_real_translations
    from .i18n_content import FIXTURE

    assert not bank.load_bank(sorted((FIXTURE / "questions").glob("*.yaml"))).problems
    report = load_translations(FIXTURE)
    assert not report.problems and len(report.loaded) == 4
    slow = _translation_rows()
    QuestionTranslation.objects.all().delete()
    assert load_real_translations(FIXTURE) == 4 == QuestionTranslation.objects.count()
    assert _translation_rows() == slow
    QuestionTranslation.objects.all().delete()
    assert load_real_translations(FIXTURE) == 4  # built once, written again
    assert _translation_rows() == slow


@pytest.mark.django_db(transaction=True)
def test_a_flush_leaves_the_rows_the_migrations_write():
    """Transactional tests end with a flush; the tests after them, in any order and in any
    pytest-xdist worker, still find the Instructors group with its permissions."""
    from django.contrib.auth.models import Group
    from django.core.management import call_command

    before = set(Group.objects.get(name="Instructors").permissions.values_list("codename"))
    call_command("flush", "--noinput", verbosity=0)
    after = set(Group.objects.get(name="Instructors").permissions.values_list("codename"))
    assert after == before and len(after) == 7
