"""Small question banks for tests, one question of every kind, written as bank YAML."""

from __future__ import annotations

import copy
import functools
import textwrap
from pathlib import Path

from quizzes import bank, schema
from quizzes.models import Option, Question

#: The real bank's files, as loadcontent reads them.
REAL_BANK = sorted(
    (Path(__file__).resolve().parent.parent / "content" / "questions").glob("*.yaml")
)

COMMON = """
    subtopic: {subtopic}
    concept: {slug}
    difficulty: 2
    notes: stop-reasons#max-tokens
    sources: [https://platform.claude.com/docs/en/build-with-claude/handling-stop-reasons]
    stem: "Stem of {slug}"
    explanation: "General explanation of {slug}"
"""

KIND_BODIES = {
    "single": """
    options:
      - {{text: "Option A right", correct: true, why: "WHY-A-RIGHT"}}
      - {{text: "Option B", why: "WHY-B", family: ends-on-text}}
      - {{text: "Option C", why: "WHY-C", family: split-results}}
      - {{text: "Option D", why: "WHY-D", family: cap-as-control}}
""",
    "multiple": """
    options:
      - {{text: "M1 right", correct: true, why: "WHY-M1"}}
      - {{text: "M2 right", correct: true, why: "WHY-M2"}}
      - {{text: "M3", why: "WHY-M3", family: ends-on-text}}
      - {{text: "M4", why: "WHY-M4", family: swallowed-error}}
""",
    "truefalse": """
    options:
      - {{text: "True", correct: true, why: "WHY-TRUE"}}
      - {{text: "False", why: "WHY-FALSE", family: misread-contract}}
""",
    "ordering": """
    items:
      - {{text: "Step one", why: "WHY-S1"}}
      - {{text: "Step two", why: "WHY-S2"}}
      - {{text: "Step three", why: "WHY-S3"}}
      - {{text: "Step four", why: "WHY-S4"}}
""",
    "matching": """
    pairs:
      - {{left: "end_turn", right: "Stop and use the answer", why: "WHY-P1"}}
      - {{left: "tool_use", right: "Run the tools", why: "WHY-P2"}}
      - {{left: "pause_turn", right: "Resend as is", why: "WHY-P3"}}
    extra_rights: ["Retry unchanged"]
""",
    "next_action": """
    response:
      id: msg_01
      type: message
      role: assistant
      model: claude-sonnet-4-5
      content:
        - {{type: text, text: "Let me look that up."}}
        - {{type: tool_use, id: toolu_01, name: lookup_order, input: {{order_id: "A1"}}}}
      stop_reason: max_tokens
      stop_sequence: null
      usage: {{input_tokens: 100, output_tokens: 50}}
    choices:
      - {{action: retry_with_more_tokens, correct: true, why: "WHY-RETRY"}}
      - {{action: run_tools, why: "WHY-RUN", family: truncation-as-done}}
      - {{action: finish, why: "WHY-FINISH", family: truncation-as-done}}
      - {{action: send_continue_message, why: "WHY-CONT", family: pause-as-tool-use}}
""",
    "json": """
    accept:
      - {{type: tool, name: lookup_order, disable_parallel_tool_use: true}}
    normalize: tool_choice
    why: "WHY-JSON"
    placeholder: '{{"type": ...}}'
    wrong_answers:
      - answer: {{type: any, disable_parallel_tool_use: true}}
        why: "WHY-JSON-ANY"
        family: forced-choice-mixup
""",
    "fix": """
    why: "WHY-FIX"
    messages:
      - {{role: user, content: "Where are orders 1 and 2?"}}
      - role: assistant
        content:
          - {{type: tool_use, id: toolu_01A, name: lookup_order, input: {{id: "1"}}}}
          - {{type: tool_use, id: toolu_01B, name: lookup_order, input: {{id: "2"}}}}
      - role: user
        content: [{{type: tool_result, tool_use_id: toolu_01A, content: "shipped"}}]
      - role: user
        content: [{{type: tool_result, tool_use_id: toolu_01B, content: "packing"}}]
    sample_fix:
      - {{role: user, content: "Where are orders 1 and 2?"}}
      - role: assistant
        content:
          - {{type: tool_use, id: toolu_01A, name: lookup_order, input: {{id: "1"}}}}
          - {{type: tool_use, id: toolu_01B, name: lookup_order, input: {{id: "2"}}}}
      - role: user
        content:
          - {{type: tool_result, tool_use_id: toolu_01A, content: "SAMPLE-shipped"}}
          - {{type: tool_result, tool_use_id: toolu_01B, content: "SAMPLE-packing"}}
""",
}


# The kinds Moodle users bring (quizzes/kinds/), kept apart so older tests keep their bank.
NEW_KIND_BODIES = {
    "short_answer": """
    answers:
      - {{answer: "end_turn", why: "WHY-SHORT"}}
      - {{answer: "end*", grade: 0, why: "WHY-SHORT-WILD", family: misread-contract}}
""",
    "numerical": """
    answers:
      - {{answer: 7, why: "WHY-SEVEN"}}
      - {{answer: 6, tolerance: 0.5, grade: 50, why: "WHY-SIX"}}
""",
    "essay": """
    model_answer: "MODEL-ANSWER of the essay"
""",
}
ALL_KIND_BODIES = {**KIND_BODIES, **NEW_KIND_BODIES}


def question_yaml(kind: str, slug: str | None = None, subtopic: str = "stop-reasons") -> str:
    slug = slug or f"t-{kind.replace('_', '-')}"
    head = f"  - slug: {slug}\n    kind: {kind}" + COMMON.format(slug=slug, subtopic=subtopic)
    return head + ALL_KIND_BODIES[kind].format()


def bank_yaml(kinds=tuple(KIND_BODIES), **kw) -> str:
    return "questions:\n" + "".join(question_yaml(k, **kw) for k in kinds)


def parse_question(kind: str, slug: str | None = None, subtopic: str = "stop-reasons") -> dict:
    """The parsed form of ``question_yaml(kind, slug, subtopic)``. The YAML and its checks run
    once per kind; other slugs and subtopics are filled into a copy (test_factories proves
    the copy equals a real parse)."""
    slug = slug or f"t-{kind.replace('_', '-')}"
    parsed = copy.deepcopy(_parsed_template(kind))
    parsed.update(
        slug=slug,
        concept=slug,
        subtopic=subtopic,
        stem=f"Stem of {slug}",
        explanation=f"General explanation of {slug}",
    )
    return parsed


@functools.cache
def _parsed_template(kind: str) -> dict:
    result = schema.parse_text(textwrap.dedent("questions:\n" + question_yaml(kind)))
    assert not result.problems, result.problems
    return result.questions[0]


def make_question(kind: str, slug: str | None = None, subtopic: str = "stop-reasons") -> Question:
    return bank.save_question(parse_question(kind, slug, subtopic))


def make_bank(n: int, prefix: str = "b") -> list[Question]:
    """n questions (slugs ``<prefix>-0`` …) spread over kinds and subtopics (new_questions)."""
    kinds = list(KIND_BODIES)
    return new_questions(
        [
            (kinds[i % len(kinds)], f"{prefix}-{i}", schema.SUBTOPICS[i % len(schema.SUBTOPICS)])
            for i in range(n)
        ]
    )


def new_questions(specs: list[tuple[str, str, str]]) -> list[Question]:
    """The first versions of new slugs, (kind, slug, subtopic) each, with the rows
    bank.create_questions writes for them (tests/test_factories.py compares the two), in two
    inserts; each spec's rows are built once per session (its Markdown, hash and kind's HTML)."""
    return _write([_built(*spec) for spec in specs])


@functools.cache
def _built(kind: str, slug: str, subtopic: str) -> tuple[dict, tuple[dict, ...]]:
    question = bank._build(parse_question(kind, slug, subtopic), 1, Question.Origin.FILE)
    return _fields(question), tuple(_fields(o) for o in question._pending_options)


def _write(built) -> list[Question]:
    """Questions and their options from built rows ((question columns, option columns), each
    without ids), in two inserts (insert_rows); the questions read back, in order."""
    from django.db.models import Max

    last = Question.objects.aggregate(last=Max("pk"))["last"] or 0
    insert_rows(Question, [fields for fields, _ in built])
    ids = list(Question.objects.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True))
    assert len(ids) == len(built)
    insert_rows(
        Option,
        [
            {**o, "question_id": pk}
            for pk, (_, options) in zip(ids, built, strict=True)
            for o in options
        ],
    )
    return list(Question.objects.filter(pk__in=ids).order_by("pk"))


@functools.cache
def parse_real_bank() -> schema.Result:
    """The real bank's files parsed and checked, once per session (callers only read it)."""
    return schema.parse_files(REAL_BANK)


@functools.cache
def _real_bank_built() -> tuple[tuple[dict, tuple[dict, ...]], ...]:
    """The rows loadcontent writes for the real bank into an empty database, built once per
    session: the YAML, the schema's checks and the Markdown run here and never again."""
    result = parse_real_bank()
    assert not result.problems, result.problems
    rows = []
    for parsed in result.questions:
        question = bank._build(parsed, 1, Question.Origin.FILE)
        rows.append((_fields(question), tuple(_fields(o) for o in question._pending_options)))
    return tuple(rows)


def _fields(instance) -> dict:
    """The columns a row is made of, less its id, its question and its creation time."""
    return {
        f.attname: getattr(instance, f.attname)
        for f in instance._meta.concrete_fields
        if not f.primary_key and f.attname not in ("question_id", "created_at")
    }


def load_real_bank() -> list[Question]:
    """The real bank written as ``loadcontent`` writes it into an empty database: its rows in
    two inserts (tests/test_factories.py compares the rows with load_bank's)."""
    return _write(_real_bank_built())


class _RolledBack(Exception):
    pass


def written_translations(before: set[int]) -> tuple[tuple[str, dict], ...]:
    """The question translations written since the rows ``before`` (their pks), as (English
    slug, columns less the pk and the update time): what write_translations writes again."""
    from quizzes.models import QuestionTranslation

    written = QuestionTranslation.objects.exclude(pk__in=before).select_related("question")
    return tuple(
        (t.question.slug, {k: v for k, v in _fields(t).items() if k != "updated_at"})
        for t in written.order_by("pk")
    )


@functools.cache
def _translations_built(content_dir: Path) -> tuple[tuple[str, dict], ...]:
    """The rows loadcontent writes for the question translations of ``content_dir`` onto its
    English bank: the YAML, the checks and the Markdown run once per session, in a transaction
    rolled back (call with that bank in the database, as load_real_translations does)."""
    from django.db import transaction

    from quizzes.models import QuestionTranslation
    from quizzes.translations import load_translations

    rows: tuple[tuple[str, dict], ...] = ()
    try:
        with transaction.atomic():
            before = set(QuestionTranslation.objects.values_list("pk", flat=True))
            report = load_translations(content_dir)
            assert not report.problems, report.problems
            rows = written_translations(before)
            raise _RolledBack
    except _RolledBack:
        pass
    return rows


def load_real_translations(content_dir: Path | None = None) -> int:
    """The real bank's question translations (or those of ``content_dir``), written as
    ``loadcontent`` writes them onto a database that holds load_real_bank()'s rows (that
    folder's English bank) and none of their translations, in one insert. Returns the number
    of rows."""
    return write_translations(_translations_built(Path(content_dir or REAL_BANK[0].parent.parent)))


def write_translations(rows: tuple[tuple[str, dict], ...]) -> int:
    """Translation rows as written_translations gives them, onto the current questions of their
    slugs, in one insert (insert_rows)."""
    from django.utils import timezone

    from quizzes.models import QuestionTranslation

    ids = dict(
        Question.objects.current()
        .filter(slug__in={slug for slug, _ in rows})
        .values_list("slug", "pk")
    )
    now = timezone.now()
    insert_rows(
        QuestionTranslation,
        [{**fields, "question_id": ids[slug], "updated_at": now} for slug, fields in rows],
    )
    return len(rows)


def note_text(slug="sample", body="## Part one {#one}\n\nText.\n", **meta) -> str:
    """A note file's text: front matter (``meta`` replaces or, with None, drops a key) and body."""
    front = {
        "title": "A sample",
        "slug": slug,
        "order": 1,
        "summary": "A summary.",
        "subtopics": "[loop-basics]",
        "sources": '\n  - title: Docs\n    url: "https://platform.claude.com/docs"',
        "last_verified": "2026-11-29",
    }
    front.update(meta)
    lines = "\n".join(f"{k}: {v}" for k, v in front.items() if v is not None)
    return f"---\n{lines}\n---\n{body}"


#: (field class, the value types its get_db_prep_save hands SQLite unchanged)
_PLAIN_FIELDS = (
    ("IntegerField", (int, type(None))),  # every integer field and the auto ids
    ("CharField", (str, type(None))),
    ("TextField", (str, type(None))),
    ("BooleanField", (bool, type(None))),
    ("FloatField", (float, type(None))),
)
_PREPARING = ("get_db_prep_save", "get_db_prep_value", "get_prep_value", "to_python")


def _plain_types(field, connection) -> tuple[type, ...]:
    """The value types ``field`` writes to SQLite as they are: a value of one of them needs no
    preparing (Django's own methods, not overridden, return it unchanged). () when unsure."""
    from django.db import models

    if connection.vendor != "sqlite":
        return ()
    if field.is_relation:
        if type(field) is not models.ForeignKey:
            return ()
        field = field.target_field
    from django.db.backends.base.operations import BaseDatabaseOperations
    from django.db.models.fields import AutoFieldMixin

    for name, types in _PLAIN_FIELDS:
        base = getattr(models, name)
        own = {m: getattr(base, m) for m in _PREPARING}
        if isinstance(field, AutoFieldMixin):  # an id: also checked by validate_autopk_value
            own["get_db_prep_value"] = AutoFieldMixin.get_db_prep_value
            ops = type(connection.ops).validate_autopk_value
            if ops is not BaseDatabaseOperations.validate_autopk_value:
                return ()
        if isinstance(field, base) and all(getattr(type(field), m) is f for m, f in own.items()):
            return types
    return ()


def insert_rows(model, rows: list[dict]) -> None:
    """Many rows of ``model`` (dicts of attname -> value; every other column its default, the
    primary key the database's unless the rows name it) in one
    ``executemany``, for the tests that need thousands: each distinct value is prepared for the
    database once (``bulk_create`` builds an instance and prepares every value of every row, about
    0.7 s for 10,000 responses). No signals, no ``save()``; read the rows back for their pks."""
    from django.db import connection

    given = set(rows[0]) if rows else set()
    fields = [f for f in model._meta.concrete_fields if not f.primary_key or f.attname in given]
    defaults = {f.attname: f.get_default() for f in fields}
    prepared: dict[tuple[str, str], object] = {}

    def prep(field, value):
        key = (field.attname, repr(value))
        if key not in prepared:
            prepared[key] = field.get_db_prep_save(value, connection)
        return prepared[key]

    columns_of_values = []
    for f in fields:
        name, default, plain = f.attname, defaults[f.attname], _plain_types(f, connection)
        values = [row.get(name, default) for row in rows]
        columns_of_values.append(
            [v if type(v) in plain else prep(f, v) for v in values] if plain else
            [prep(f, v) for v in values]
        )  # fmt: skip
    params = list(zip(*columns_of_values, strict=True)) if fields else [() for _ in rows]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(f.column) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    with connection.cursor() as cursor:
        cursor.executemany(
            f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({marks})",  # noqa: S608 - names from the model, values as parameters
            params,
        )
