"""The question bank: the schema's messages, loadcontent's upsert, and the real bank's health."""

import re
from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command

from quizzes import schema
from quizzes.bank import load_bank
from quizzes.models import Question
from studyapp.notes.loader import library

from .factories import bank_yaml, parse_real_bank


@pytest.fixture(scope="module")
def real_bank():
    return parse_real_bank()


def test_the_real_bank_is_valid(real_bank):
    assert [str(p) for p in real_bank.problems] == []


def test_the_real_bank_has_enough_questions_of_every_kind(real_bank):
    published = [q for q in real_bank.questions if q["status"] == "published"]
    assert len(published) >= 120
    assert set(Counter(q["kind"] for q in published)) == set(schema.KINDS)


@pytest.mark.parametrize(
    ("subtopic", "minimum"),
    [
        ("stop-reasons", 30),
        ("tool-choice", 20),
        ("server-tools", 10),
        ("tool-results", 15),
        ("guards", 10),
        ("errors", 10),
        ("thinking", 8),
        ("observability", 8),
        ("rules-in-code", 9),
    ],
)
def test_the_real_bank_covers_each_subtopic(real_bank, subtopic, minimum):
    assert sum(q["subtopic"] == subtopic for q in real_bank.questions) >= minimum


def test_single_choice_keys_are_spread_over_the_positions(real_bank):
    singles = [q for q in real_bank.questions if q["kind"] == "single"]
    positions = Counter(
        next(i for i, o in enumerate(q["options"]) if o["correct"]) for q in singles
    )
    worst = max(positions.values()) / len(singles)
    assert worst <= 0.35, f"one letter holds {worst:.0%} of the keys: {dict(positions)}"


def test_every_question_links_to_a_real_notes_section(real_bank):
    notes = library().notes()
    broken = []
    for q in real_bank.questions:
        slug, anchor = q["notes"].split("#")
        if slug not in notes or anchor not in notes[slug].anchors:
            broken.append(f"{q['slug']} → {q['notes']}")
    assert not broken


def test_every_wrong_option_names_a_known_family(real_bank):
    for q in real_bank.questions:
        for o in q["options"]:
            assert (
                o["correct"]
                or o["family"] in schema.FAMILIES
                or q["kind"]
                in (
                    "ordering",
                    "matching",
                )
            ), q["slug"]


def test_problems_name_the_file_line_and_slug():
    text = bank_yaml(kinds=("single",)).replace("correct: true", "correct: false")
    text += "  - slug: Bad Slug\n    kind: cloze\n"
    result = schema.parse_text(text, file="bank.yaml")
    messages = [str(p) for p in result.problems]
    assert any(
        re.match(r"bank\.yaml:2: t-single: a single question needs exactly one correct", m)
        for m in messages
    ), messages
    assert any("slug must be lowercase" in m for m in messages)
    assert any("kind must be one of" in m for m in messages)


def test_invalid_yaml_reports_the_line():
    result = schema.parse_text("questions:\n  - slug: a\n   kind: [", file="x.yaml")
    assert result.problems and result.problems[0].line >= 2
    assert "not valid YAML" in result.problems[0].message


def test_a_next_action_key_that_disagrees_with_the_catalogue_is_refused():
    text = bank_yaml(kinds=("next_action",))
    text = text.replace("retry_with_more_tokens, correct: true", "retry_with_more_tokens")
    text = text.replace("{action: run_tools,", "{action: run_tools, correct: true,")
    messages = [str(p) for p in schema.parse_text(text).problems]
    assert any("catalogue says retry_with_more_tokens" in m for m in messages), messages


@pytest.mark.django_db
def test_loading_is_an_idempotent_upsert_that_versions_changes(tmp_path):
    path = tmp_path / "bank.yaml"
    path.write_text(bank_yaml())
    first = load_bank([path])
    assert len(first.created) == 8 and not first.problems
    again = load_bank([path])
    assert len(again.unchanged) == 8 and not again.created and not again.updated
    path.write_text(bank_yaml().replace("Stem of t-single", "A clearer stem"))
    changed = load_bank([path])
    assert changed.updated == ["t-single"]
    versions = Question.objects.filter(slug="t-single").order_by("version")
    assert [(q.version, q.is_current) for q in versions] == [(1, False), (2, True)]


@pytest.mark.django_db
def test_save_question_finds_the_current_version_the_orm_finds():
    """bank.current_version (compiled once) is Question.objects.current().filter(slug).first():
    none, the first version, then the second; each save makes the next version."""
    from quizzes.bank import current_version, save_question

    from .factories import parse_question

    assert current_version("cv-q") is None
    first = save_question(parse_question("single", "cv-q"))
    second = save_question({**parse_question("single", "cv-q"), "stem": "Another stem"})
    orm = Question.objects.current().filter(slug="cv-q").first()
    found = current_version("cv-q")
    assert (first.version, second.version) == (1, 2) and found == orm == second
    assert [(f, getattr(found, f)) for f in vars(orm) if f != "_state"] == [
        (f, getattr(orm, f)) for f in vars(orm) if f != "_state"
    ]
    assert current_version("cv-q'; --") is None


@pytest.mark.django_db
def test_a_stored_question_of_every_kind_reads_back_as_its_yaml_would():
    """The editor opens a stored version through services.check_data (the schema on the data);
    the data written out as YAML and read back (forms._schema_as_file) gives the same question
    and problems, for every kind, and the same problem in a question that no longer passes."""
    from authoring import forms, services

    from .factories import ALL_KIND_BODIES, new_questions

    stored = new_questions([(kind, f"rb-{i}", "guards") for i, kind in enumerate(ALL_KIND_BODIES)])
    broken = {**services.question_as_bank_dict(stored[0]), "difficulty": 9}
    for question in [*map(services.question_as_bank_dict, stored), broken]:
        fast, fast_problems = services.check_data(question, require_families=False)
        slow, slow_problems = forms._schema_as_file(question)
        assert fast_problems == slow_problems and (fast is None) == (slow is None)
        if fast is not None:
            assert {**fast, "line": 0} == {**slow, "line": 0}
    assert services.check_data(broken, require_families=False)[1]


@pytest.mark.django_db
def test_browser_authored_questions_are_never_overwritten_or_retired(tmp_path):
    path = tmp_path / "bank.yaml"
    path.write_text(bank_yaml())
    load_bank([path])
    Question.objects.filter(slug="t-json").update(origin=Question.Origin.BROWSER)
    path.write_text(bank_yaml(kinds=("single",)).replace("Stem of", "Changed"))
    report = load_bank([path])
    kept = Question.objects.get(slug="t-json")
    assert kept.status == "published" and kept.version == 1
    assert "t-multiple" in report.retired and "t-json" not in report.retired


@pytest.mark.django_db
def test_loadcontent_reports_invalid_questions_and_loads_the_rest(tmp_path):
    path = tmp_path / "bank.yaml"
    path.write_text(
        bank_yaml(kinds=("single", "multiple")).replace('"M1 right", correct: true', '"M1"')
    )
    out, err = StringIO(), StringIO()
    call_command("loadcontent", str(path), stdout=out, stderr=err)
    assert "1 created" in out.getvalue()
    assert "bank.yaml" in err.getvalue() and "t-multiple" in err.getvalue()


@pytest.mark.django_db
def test_loadcontent_loads_the_real_bank_twice_without_changes():
    out = StringIO()
    call_command("loadcontent", stdout=out)
    call_command("loadcontent", stdout=out)
    lines = [line for line in out.getvalue().splitlines() if line.startswith("questions:")]
    assert re.search(r"questions: (1[2-9]\d|[2-9]\d\d) created", lines[0])
    assert "0 created, 0 updated" in lines[1]
    assert Question.objects.published().count() >= 120


def test_an_unknown_today_id_is_refused_with_the_known_ids():
    text = bank_yaml(kinds=("single",)).replace(
        "    stem:", "    today: forced-choice\n    stem:", 1
    )
    messages = [str(p) for p in schema.parse_text(text, file="bank.yaml").problems]
    assert any(
        "today must be one of sampling, forced-tool-choice" in m and "'forced-choice'" in m
        for m in messages
    ), messages


def test_a_known_today_id_is_kept_with_the_question():
    text = bank_yaml(kinds=("single",)).replace(
        "    stem:", "    today: forced-tool-choice\n    stem:", 1
    )
    result = schema.parse_text(text)
    assert not result.problems and result.questions[0]["data"]["today"] == "forced-tool-choice"


@pytest.mark.django_db
def test_loadcontent_refuses_a_next_action_key_or_a_today_id_the_catalogues_disagree_with(
    tmp_path,
):
    from io import StringIO

    from django.core.management import CommandError, call_command

    text = bank_yaml(kinds=("next_action", "single"))
    text = text.replace("retry_with_more_tokens, correct: true", "retry_with_more_tokens")
    text = text.replace("{action: run_tools,", "{action: run_tools, correct: true,")
    text = text.replace(
        '    stem: "Stem of t-single"', '    today: no-such-rule\n    stem: "Stem of t-single"'
    )
    path = tmp_path / "bank.yaml"
    path.write_text(text)
    err = StringIO()
    with pytest.raises(CommandError, match="invalid question"):
        call_command("loadcontent", str(path), "--strict", stdout=StringIO(), stderr=err)
    assert "catalogue says retry_with_more_tokens" in err.getvalue()
    assert "today must be one of" in err.getvalue() and "'no-such-rule'" in err.getvalue()


def test_a_bank_file_read_again_is_a_copy_of_what_was_parsed(tmp_path):
    """schema._parse_file keeps a parsed file pickled: a second read gives the first's questions
    and problems (lines and slugs included), never the same objects."""
    path = tmp_path / "bank.yaml"
    path.write_text(bank_yaml(kinds=("single", "multiple")).replace("correct: true", "x: 1", 1))
    fresh = schema.parse_text(path.read_text(), file=str(path))
    first, again = schema.parse_files([path]), schema.parse_files([path])
    assert isinstance(schema._PARSED[(str(path), path.read_text())], bytes)
    assert [str(p) for p in again.problems] == [str(p) for p in fresh.problems] != []
    assert again.questions == first.questions != [] and again.questions[0] is not first.questions[0]
    assert [q["line"] for q in again.questions] == [q["line"] for q in fresh.questions]
    first.questions[0]["options"].append({})
    assert schema.parse_files([path]).questions == again.questions
