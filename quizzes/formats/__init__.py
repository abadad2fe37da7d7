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
- truefalse → ``truefalse``; match → ``matching``; shortanswer, numerical and essay → the kinds
  of the same names (``short_answer``, ``numerical``, ``essay``).
- description, Cloze and anything else → skipped with the reason.

Each kind module (quizzes/kinds/) holds its own mapping (``moodle_kind``, ``from_moodle``,
``gift_lines``, ``xml_answers``). Export writes the kinds back with the same fractions, so
export → import is lossless; our bank's other fields (subtopic, concept, notes, sources,
families, per-pair whys) travel in a ``// loopcraft: {json}`` comment (GIFT) or a
``<loopcraft>`` element (XML), both ignored by Moodle.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field

from quizzes.schema import FAMILIES, SUBTOPICS

FORMATS = ("yaml", "gift", "moodlexml", "aiken")  # aiken is read only
DEFAULT_FAMILY = ""  # wrong answers stay untagged unless the instructor picks a trap family
MISSING_WHY = "TODO (imported without feedback): say why this option is right or wrong."
MISSING_EXPLANATION = "TODO (imported without general feedback): explain the point taught."

# Moodle's allowed grades (question_bank::fraction_options_full): these, their negatives, 0 and 1.
_RAW_FRACTIONS = (
    0.9, 0.8333333, 0.8, 0.75, 0.7, 0.6666667, 0.6, 0.5, 0.4, 0.3333333, 0.3, 0.25, 0.2,
    0.1666667, 0.1428571, 0.125, 0.1111111, 0.1, 0.05,
)  # fmt: skip
ALLOWED_FRACTIONS = (0.0, 1.0, -1.0, *_RAW_FRACTIONS, *(-f for f in _RAW_FRACTIONS))

# Moodle's wording, quoted from its English language packs (moodle/moodle):
# question/format/gift/lang/en/qformat_gift.php: braceerror, importminerror, giftmatchingformat,
# giftnonumericalanswers; lang/en/question.php: invalidgrade;
# question/type/multichoice/lang/en/qtype_multichoice.php: notenoughanswers ({$a} = 2),
# fractionsnomax, fractionsaddwrong (without their <br /> and "Do you want to go back …").
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


# Moodle's own reasons, from its documentation of the Embedded answers (Cloze) question type.
CLOZE_REASON = (
    "Embedded answers (Cloze) are not supported: a Cloze question is written in its own "
    "syntax inside the question text, mixes several sub-questions with their own grades in "
    "one text, and Moodle's GIFT and XML formats carry it only as that raw text; Loopcraft "
    "grades one answer per question. Split it into separate questions."
)


_CLOZE_RE = re.compile(
    r"^\d*:(SHORTANSWER|SA|MW|SHORTANSWER_C|SAC|MWC|NUMERICAL|NM|MULTICHOICE|MC|MULTICHOICE_V|MCV|"
    r"MULTICHOICE_H|MCH|MULTIRESPONSE|MR|MULTIRESPONSE_H|MRH|MULTICHOICE_S|MCS|MULTICHOICE_VS|"
    r"MCVS|MULTICHOICE_HS|MCHS|MULTIRESPONSE_S|MRS|MULTIRESPONSE_HS|MRHS):"
)


#: Moodle question types no kind takes, in words (the skip reason names them).
UNSUPPORTED_TYPES = {"description": "description (no answer)"}

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
    tolerance: float | None = None  # numerical (XML <tolerance>); GIFT writes it in the text


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
    idnumber: str = ""  # Moodle's own id of the question (XML <idnumber>), kept on import
    case_sensitive: bool = False  # shortanswer (XML <usecase>)
    graderinfo: str = ""  # essay: information for graders (our model answer)
    meta: dict = field(default_factory=dict)  # our own fields, when the file came from us
    warnings: list[str] = field(default_factory=list)  # what the reader had to guess, as Moodle


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
    from . import aiken

    if "{" not in text and aiken.detect(text):
        return "aiken"
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
_HTML_TAG_RE = re.compile(r"</?([a-zA-Z][a-zA-Z0-9]*)\b[^>]*>")
_ATTR_RE = re.compile(r"\s([a-zA-Z-]+)\s*=")
# Moodle's editors write <b> and <i>; the bank's allowlist says <strong> and <em>.
_SYNONYMS = (("b", "strong"), ("i", "em"))


def _keep(text: str, fmt: str) -> tuple[str, list[str]]:
    """Text in the bank's Markdown: HTML is kept, sanitised with the notes' allowlist.

    Returns the text and what sanitising removed (tags and attributes), so the preview can
    warn about a picture or a recording the question may depend on.
    """
    text = text.strip()
    if fmt != "html":
        return text, []
    from core.rendering import ALLOWED_ATTRIBUTES, ALLOWED_TAGS, sanitize

    for old, new in _SYNONYMS:
        text = re.sub(rf"<(/?){old}(\s[^>]*)?>", rf"<\1{new}\2>", text, flags=re.I)
    removed: list[str] = []
    for m in _HTML_TAG_RE.finditer(text):
        tag = m[1].lower()
        if tag not in ALLOWED_TAGS:
            label = f"<{tag}>"
        else:
            bad = [
                a
                for a in _ATTR_RE.findall(m[0])
                if a.lower() not in ALLOWED_ATTRIBUTES.get(tag, ())
            ]
            label = f"{' '.join(sorted(set(bad)))} on <{tag}>" if bad else ""
        if label and label not in removed:
            removed.append(label)
    clean = sanitize(text).strip()
    return clean, removed


def _plain(text: str, fmt: str) -> str:
    return _keep(text, fmt)[0]


@dataclass
class Defaults:
    subtopic: str = ""
    notes: str = ""
    source: str = ""
    family: str = DEFAULT_FAMILY
    #: Moodle category path -> subtopic, chosen on the import form (remembered per category).
    categories: dict = field(default_factory=dict)
    #: (question number in the file, answer index) -> trap family set in the preview.
    families: dict = field(default_factory=dict)


@dataclass
class MapContext:
    """What a kind's ``from_moodle`` needs besides the question, and what it counts."""

    defaults: Defaults
    number: int = 0
    missing_why: int = 0  # answers imported without feedback
    untagged: int = 0  # wrong answers left without a trap family


@dataclass
class Mapped:
    """A question in our bank format, or the reason it was skipped, plus what was filled in."""

    source: MoodleQuestion
    question: dict | None = None
    skipped: str = ""
    filled: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _subtopic_for(q: MoodleQuestion, categories: dict | None = None) -> str:
    if q.meta.get("subtopic") in SUBTOPICS:
        return q.meta["subtopic"]
    for tag in _TAG_RE.findall(q.name):
        if tag in SUBTOPICS:
            return tag
    if (categories or {}).get(q.category) in SUBTOPICS:
        return categories[q.category]
    for part in reversed([p.strip().lower() for p in q.category.split("/")]):
        if part in SUBTOPICS:
            return part
    return ""


def _kind_for(q: MoodleQuestion) -> tuple[str, str, list[str]]:
    """Our kind, or a skip reason; plus warnings about grading differences.

    Each kind module says whether it takes the Moodle question (``moodle_kind``); Cloze and
    the types no kind takes are refused with the reason.
    """
    from quizzes import kinds

    if q.qtype in ("cloze", "multianswer"):  # Moodle's reasons first when Moodle refuses it too
        from . import cloze

        return "", cloze.reason(q.text, CLOZE_REASON), []
    if q.qtype == "shortanswer" and any(_CLOZE_RE.match(a.text) for a in q.answers):
        return "", CLOZE_REASON, []  # {1:SHORTANSWER:=…} is Cloze syntax, not a short answer
    for kind, module in kinds.REGISTRY.items():
        taken = module.moodle_kind(q)
        if taken is not None:
            reason, warnings = taken
            return ("" if reason else kind), reason, warnings
    label = UNSUPPORTED_TYPES.get(q.qtype, q.qtype)
    return "", f"Question type {label} is not supported: Loopcraft has no such kind", []


#: Bank fields GIFT and Moodle XML have no place for; they travel in our metadata.
META_FIELDS = (
    "slug", "version", "status", "subtopic", "concept", "difficulty", "notes", "sources",
    "scenario", "cluster", "today", "idnumber",
)  # fmt: skip


def to_bank(q: MoodleQuestion, defaults: Defaults, slug: str, number: int = 0) -> Mapped:
    """Map one Moodle question onto our bank format; never guesses silently.

    ``number`` is the question's place in the file (1-based): per-answer trap families chosen
    in the preview are keyed by it.
    """
    kind, reason, warnings = _kind_for(q)
    mapped = Mapped(source=q, warnings=[*q.warnings, *warnings])
    if not kind:
        mapped.skipped = reason
        return mapped
    meta = q.meta
    filled = mapped.filled
    subtopic = _subtopic_for(q, defaults.categories)
    if not subtopic:
        subtopic = defaults.subtopic
        filled.append(f"subtopic (default: {subtopic or 'none chosen'})")
    notes = meta.get("notes") or defaults.notes
    if not meta.get("notes"):
        filled.append(f"notes link (default: {notes or 'none chosen'})")
    sources = meta.get("sources") or ([defaults.source] if defaults.source else [])
    if not meta.get("sources"):
        filled.append(f"source (default: {defaults.source or 'none chosen'})")
    removed: list[str] = []

    def keep(text: str) -> str:
        clean, gone = _keep(text, q.text_format)
        removed.extend(g for g in gone if g not in removed)
        return clean

    explanation = keep(q.general_feedback)
    if not explanation:
        explanation = MISSING_EXPLANATION
        filled.append("explanation (no general feedback)")
    out = {
        "slug": slug,
        "kind": kind,
        "subtopic": subtopic,
        "concept": meta.get("concept") or slug,
        "difficulty": meta.get("difficulty", 2),
        "status": meta.get("status") if meta.get("status") in ("draft", "published") else "draft",
        "notes": notes,
        "sources": sources,
        "stem": keep(q.text),
        "explanation": explanation,
    }
    for tag in ("scenario", "cluster", "today"):
        if meta.get(tag):
            out[tag] = meta[tag]
    idnumber = meta.get("idnumber", "") if meta else q.idnumber
    if idnumber:
        out["idnumber"] = idnumber
    from quizzes import kinds

    ctx = MapContext(defaults=defaults, number=number)
    mapped.warnings += kinds.of(kind).from_moodle(q, out, meta, keep, ctx)
    missing_why, untagged = ctx.missing_why, ctx.untagged
    if missing_why:
        filled.append(f"why on {missing_why} answer(s) with no feedback")
    if untagged:
        filled.append(f"trap family left unset on {untagged} wrong answer(s): set it below")
    if removed:
        mapped.warnings.append(
            "removed by the sanitiser (not on the bank's allowlist): " + ", ".join(removed)
        )
    mapped.question = out
    return mapped


def meta_for(question: dict) -> dict:
    """The fields of a bank question that GIFT and Moodle XML have no place for."""
    from quizzes import kinds

    meta = {k: question[k] for k in META_FIELDS if question.get(k) not in (None, "")}
    meta.update(kinds.of(question["kind"]).meta(question))
    return meta


def meta_json(question: dict) -> str:
    return json.dumps(meta_for(question), ensure_ascii=False, separators=(",", ":"))


def export_skip_reason(question: dict) -> str:
    from quizzes import kinds

    if kinds.of(question["kind"]).MOODLE_QTYPE:
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
