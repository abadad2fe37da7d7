"""Question interchange formats (GIFT, Moodle XML, our YAML) as pure code: no Django here.

Readers turn a file into ``MoodleQuestion`` records (Moodle's own model of a question, with the
line or XML element it came from), apply Moodle's import validation, and ``to_bank`` maps each
record onto our bank format (docs/QUESTION_FORMAT.md) or says why it can't.

Fractions: Moodle gives every answer a fraction of the mark. Our kinds map as follows.

- multichoice, one answer allowed → ``single`` when one answer is worth 100 % and every other 0 %.
  Any partial or negative mark is skipped: our single-choice questions are right or wrong.
- multichoice, several answers allowed → ``multiple`` when the k positive answers are worth
  100/k % each. Our grading deducts 1/k for each wrong pick (floored at 0), which is exactly
  Moodle's grading with −100/k % on the wrong answers; other negative marks are imported with a
  warning naming the difference. Unequal positive marks (70 % + 30 %) are skipped.
- truefalse → ``truefalse``; match → ``matching``.
- shortanswer, numerical, essay, description, cloze and anything else → skipped with the reason.

Export writes those four kinds back with the same fractions, so export → import is lossless;
our bank's other fields (subtopic, concept, notes, sources, families, per-pair whys) travel in a
``// loopcraft: {json}`` comment (GIFT) or a ``<loopcraft>`` element (XML), both ignored by Moodle.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field

from quizzes.schema import FAMILIES, SUBTOPICS

FORMATS = ("yaml", "gift", "moodlexml")
SUPPORTED_KINDS = ("single", "multiple", "truefalse", "matching")
DEFAULT_FAMILY = "misread-contract"
MISSING_WHY = "TODO (imported without feedback): say why this option is right or wrong."
MISSING_EXPLANATION = "TODO (imported without general feedback): explain the point taught."

# Moodle's allowed grades (question_bank::fraction_options_full): these, their negatives, 0 and 1.
_RAW_FRACTIONS = (
    0.9, 0.8333333, 0.8, 0.75, 0.7, 0.6666667, 0.6, 0.5, 0.4, 0.3333333, 0.3, 0.25, 0.2,
    0.1666667, 0.1428571, 0.125, 0.1111111, 0.1, 0.05,
)  # fmt: skip
ALLOWED_FRACTIONS = (0.0, 1.0, -1.0, *_RAW_FRACTIONS, *(-f for f in _RAW_FRACTIONS))

# Moodle's wording (lang strings of qformat_gift, question, qtype_multichoice, qformat_xml).
MSG_BRACES = "Could not find {...} around answers"
MSG_MIN = "There is an error in the question. There are not enough answers for this question type"
MSG_MATCHING = "Matching question answers are improperly formatted"
MSG_NUMERICAL = "No answers found for numerical question"
MSG_GRADES = "Grades ({}) do not match grade options - question skipped."
MSG_TWO_CHOICES = "This type of question requires at least 2 choices"
MSG_NO_MAX = (
    "One of the choices should be 100%, so that it is possible to get a full grade for this "
    "question."
)
MSG_ADD_WRONG = (
    "The positive grades you have chosen do not add up to 100%. Instead, they add up to {}%"
)


#: Answers (or matching pairs) one imported question may have: our kinds use at most 8, so a
#: question with thousands is refused at once instead of being read, mapped and checked.
MAX_ANSWERS = 100
MSG_TOO_MANY = "This question has {} answers; an import takes at most " + str(MAX_ANSWERS) + "."


class FormatError(ValueError):
    """The whole file can't be read in this format."""


@dataclass
class Answer:
    text: str
    fraction: float = 0.0
    feedback: str = ""


@dataclass
class MoodleQuestion:
    """One question as Moodle models it, with where it came from (a line or an element path)."""

    qtype: str
    where: str
    name: str = ""
    text: str = ""
    text_format: str = "moodle"
    general_feedback: str = ""
    single: bool = True
    answers: list[Answer] = field(default_factory=list)
    pairs: list[tuple[str, str]] = field(default_factory=list)  # match: (left, right); "" = extra
    category: str = ""
    meta: dict = field(default_factory=dict)  # our own fields, when the file came from us


@dataclass
class Issue:
    where: str
    message: str
    name: str = ""

    def __str__(self) -> str:
        return f"{self.where}: {self.name + ': ' if self.name else ''}{self.message}"


@dataclass
class Parsed:
    questions: list[MoodleQuestion] = field(default_factory=list)
    errors: list[Issue] = field(default_factory=list)


def detect(text: str) -> str:
    """Guess the format from the text: XML declaration or <quiz>, a questions: list, else GIFT."""
    head = text.lstrip("\ufeff \t\r\n")[:200]
    if head.startswith("<?xml") or head.startswith("<quiz"):
        return "moodlexml"
    if re.match(r"questions\s*:", _first_content_line(text.lstrip("\ufeff"))):
        return "yaml"
    return "gift"


IMPORTABLE = (
    "Import reads Moodle XML (a <quiz> element), GIFT (each question's answers between "
    "{ and }) or Loopcraft YAML (a top-level questions: list)."
)


def describe(text: str) -> str | None:
    """What a file that is in none of our formats looks like, in words; None if it may be GIFT.

    Without this every unknown file fell through to GIFT and came back as "short answer not
    supported" or "description not supported".
    """
    from studyapp.agentloop import bounded

    head = text.lstrip("\ufeff \t\r\n")
    if head[:1] in "{[":
        try:
            bounded.loads_json(head, bounded.IMPORT)
        except bounded.LimitError:
            pass
        else:
            return "a JSON document"
    if head.startswith("%PDF"):
        return "a PDF document"
    if head.startswith("PK\x03\x04"):
        return "a ZIP archive (a Word or Excel file is one)"
    if "\x00" in head[:4096]:
        return "a binary file"
    lowered = head[:200].lower()
    if lowered.startswith("<!doctype html") or lowered.startswith("<html"):
        return "an HTML page"
    if head.startswith("<"):
        return "XML or HTML without a Moodle <quiz> element"
    if "{" in text and "}" in text or "::" in text or "$CATEGORY:" in text:
        return None  # it has GIFT's marks: let the GIFT reader say what is wrong in it
    first = _first_content_line(text)
    if re.match(r"[A-Za-z_][\w-]*\s*:(\s|$)", first):
        return "YAML (or text) without a top-level questions: list"
    lines = [line for line in head.splitlines()[:20] if line.strip()]
    if len(lines) >= 2 and lines[0].count(",") >= 1 and lines[1].count(",") == lines[0].count(","):
        return "comma-separated values (CSV)"
    return "plain text with no question in it"


def _first_content_line(text: str) -> str:
    """The first line that is neither blank nor a # comment: one pass, no backtracking (the
    regex this replaces, ``(#.*\\n|\\s*\\n)*questions``, took seconds on 26 blank lines)."""
    pos = 0
    while pos < len(text):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end]
        if line.strip() and not line.startswith("#"):
            return line
        pos = end + 1
    return ""


def fraction_text(fraction: float) -> str:
    """A fraction as Moodle writes a percentage: 100, 50, 33.33333, -25."""
    value = round(fraction * 100, 5)
    return str(int(value)) if value == int(value) else f"{value:.5f}".rstrip("0")


def moodle_validate(q: MoodleQuestion) -> list[str]:
    """The checks Moodle applies on import (grade options) and on save (multichoice rules)."""
    if q.qtype not in ("multichoice", "shortanswer", "numerical"):
        return []
    bad = [
        a.fraction
        for a in q.answers
        if not any(abs(a.fraction - f) < 1e-5 for f in ALLOWED_FRACTIONS)
    ]
    if bad:
        return [MSG_GRADES.format(", ".join(f"{f:g}" for f in bad))]
    if q.qtype != "multichoice":
        return []
    if len(q.answers) < 2:
        return [MSG_TWO_CHOICES]
    if q.single:
        if max(a.fraction for a in q.answers) < 0.9999999:
            return [MSG_NO_MAX]
    else:
        total = round(sum(a.fraction for a in q.answers if a.fraction > 0), 2)
        if abs(total - 1) > 1e-9:
            return [MSG_ADD_WRONG.format(fraction_text(total))]
    return []


def slugify(text: str, fallback: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:80].strip("-")
    return slug or fallback


_TAG_RE = re.compile(r"\[([a-z-]+)\]")
_HTML_TAG_RE = re.compile(r"<[^>]+>")


def _plain(text: str, fmt: str) -> str:
    """Our bank is Markdown: HTML from Moodle is reduced to text (sanitised again on render)."""
    if fmt == "html":
        text = re.sub(r"<br\s*/?>|</p>\s*<p[^>]*>", "\n\n", text, flags=re.I)
        text = _HTML_TAG_RE.sub("", text)
        text = text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"')
        text = text.replace("&nbsp;", " ").replace("&amp;", "&")
    return text.strip()


@dataclass
class Defaults:
    subtopic: str = ""
    notes: str = ""
    source: str = ""
    family: str = DEFAULT_FAMILY


@dataclass
class Mapped:
    """A question in our bank format, or the reason it was skipped, plus what was filled in."""

    source: MoodleQuestion
    question: dict | None = None
    skipped: str = ""
    filled: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _subtopic_for(q: MoodleQuestion) -> str:
    if q.meta.get("subtopic") in SUBTOPICS:
        return q.meta["subtopic"]
    for tag in _TAG_RE.findall(q.name):
        if tag in SUBTOPICS:
            return tag
    for part in reversed([p.strip().lower() for p in q.category.split("/")]):
        if part in SUBTOPICS:
            return part
    return ""


def _kind_for(q: MoodleQuestion) -> tuple[str, str, list[str]]:
    """Our kind, or a skip reason; plus warnings about grading differences."""
    if q.qtype == "truefalse":
        return "truefalse", "", []
    if q.qtype == "match":
        return "matching", "", []
    if q.qtype != "multichoice":
        names = {
            "shortanswer": "short answer (typed text)",
            "numerical": "numerical",
            "essay": "essay (manually graded)",
            "description": "description (no answer)",
            "cloze": "embedded answers (Cloze)",
            "multianswer": "embedded answers (Cloze)",
        }
        label = names.get(q.qtype, q.qtype)
        return "", f"Question type {label} is not supported: Loopcraft has no such kind", []
    positive = [a.fraction for a in q.answers if a.fraction > 0]
    if q.single:
        partial = [
            a.fraction for a in q.answers if 0 < abs(a.fraction) < 0.9999999 or a.fraction < 0
        ]
        if partial or len(positive) != 1:
            marks = ", ".join(f"{fraction_text(f)} %" for f in partial or positive)
            return (
                "",
                (
                    f"an answer earns partial or negative credit ({marks}): our single-choice "
                    "questions are graded right or wrong"
                ),
                [],
            )
        return "single", "", []
    k = len(positive)
    if k < 2 or any(abs(f - 1 / k) > 1e-4 for f in positive):
        marks = ", ".join(f"{fraction_text(f)} %" for f in positive)
        return (
            "",
            (
                f"the correct answers are weighted {marks}: our multiple-response questions weight "
                "every correct answer equally"
            ),
            [],
        )
    negative = {round(a.fraction, 4) for a in q.answers if a.fraction <= 0}
    warnings = []
    if negative != {round(-1 / k, 4)}:
        marks = ", ".join(f"{fraction_text(f)} %" for f in sorted(negative))
        warnings.append(
            f"wrong answers are worth {marks} in the file; Loopcraft deducts "
            f"{fraction_text(1 / k)} % per wrong pick"
        )
    return "multiple", "", warnings


def to_bank(q: MoodleQuestion, defaults: Defaults, slug: str) -> Mapped:
    """Map one Moodle question onto our bank format; never guesses silently."""
    kind, reason, warnings = _kind_for(q)
    mapped = Mapped(source=q, warnings=warnings)
    if not kind:
        mapped.skipped = reason
        return mapped
    meta = q.meta
    filled = mapped.filled
    subtopic = _subtopic_for(q)
    if not subtopic:
        subtopic = defaults.subtopic
        filled.append(f"subtopic (default: {subtopic or 'none chosen'})")
    notes = meta.get("notes") or defaults.notes
    if not meta.get("notes"):
        filled.append(f"notes link (default: {notes or 'none chosen'})")
    sources = meta.get("sources") or ([defaults.source] if defaults.source else [])
    if not meta.get("sources"):
        filled.append(f"source (default: {defaults.source or 'none chosen'})")
    explanation = _plain(q.general_feedback, q.text_format)
    if not explanation:
        explanation = MISSING_EXPLANATION
        filled.append("explanation (no general feedback)")
    out = {
        "slug": slug,
        "kind": kind,
        "subtopic": subtopic,
        "concept": meta.get("concept") or slug,
        "difficulty": meta.get("difficulty", 2),
        "status": "draft",
        "notes": notes,
        "sources": sources,
        "stem": _plain(q.text, q.text_format),
        "explanation": explanation,
    }
    families = list(meta.get("families") or [])
    missing_why = missing_family = 0
    if kind == "matching":
        whys = list(meta.get("whys") or [])
        out["pairs"] = []
        for i, (left, right) in enumerate(p for p in q.pairs if p[0]):
            why = whys[i] if i < len(whys) else ""
            missing_why += not why
            out["pairs"].append({"left": left, "right": right, "why": why or MISSING_WHY})
        extra = [right for left, right in q.pairs if not left]
        if extra:
            out["extra_rights"] = extra
    else:
        out["options"] = []
        for i, a in enumerate(q.answers):
            correct = a.fraction > 0
            option = {
                "text": _plain(a.text, q.text_format),
                "why": _plain(a.feedback, q.text_format),
            }
            if not option["why"]:
                option["why"] = MISSING_WHY
                missing_why += 1
            if correct:
                option["correct"] = True
            else:
                family = families[i] if i < len(families) and families[i] in FAMILIES else ""
                if not family:
                    family = defaults.family
                    missing_family += 1
                option["family"] = family
            out["options"].append(option)
    if missing_why:
        filled.append(f"why on {missing_why} answer(s) with no feedback")
    if missing_family:
        filled.append(f"distractor family on {missing_family} wrong answer(s) ({defaults.family})")
    mapped.question = out
    return mapped


def meta_for(question: dict) -> dict:
    """The fields of a bank question that GIFT and Moodle XML have no place for."""
    meta = {
        k: question[k]
        for k in ("slug", "subtopic", "concept", "difficulty", "notes", "sources")
        if k in question
    }
    if question["kind"] == "matching":
        meta["whys"] = [p["why"] for p in question["pairs"]]
    else:
        meta["families"] = [o.get("family", "") for o in question["options"]]
    return meta


def meta_json(question: dict) -> str:
    return json.dumps(meta_for(question), ensure_ascii=False, separators=(",", ":"))


def answers_for_export(question: dict) -> tuple[bool, list[Answer]]:
    """(single, answers) of a single/multiple/truefalse bank question with Moodle fractions."""
    options = question["options"]
    if question["kind"] == "multiple":
        k = sum(1 for o in options if o.get("correct"))
        return False, [
            Answer(o["text"], 1 / k if o.get("correct") else -1 / k, o["why"]) for o in options
        ]
    return True, [Answer(o["text"], 1.0 if o.get("correct") else 0.0, o["why"]) for o in options]


def export_skip_reason(question: dict) -> str:
    if question["kind"] in SUPPORTED_KINDS:
        return ""
    return f"kind {question['kind']} has no equivalent in this format"


def exportable(questions: list[dict], skipped: list[tuple[str, str]]):
    """Yield (question, category or None) for each question a Moodle format can hold.

    ``category`` is the Moodle category path whenever the subtopic changes (so the writer
    emits a category entry first); questions the format can't hold go to ``skipped`` as
    (slug, reason).
    """
    category = None
    for q in questions:
        reason = export_skip_reason(q)
        if reason:
            skipped.append((q["slug"], reason))
            continue
        new = None
        if q["subtopic"] != category:
            category = q["subtopic"]
            new = f"$course$/Loopcraft/{category}"
        yield q, new


FAMILIES_CHOICES = [(f, f"{f}: {d}") for f, d in FAMILIES.items()]
