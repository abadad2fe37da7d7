"""GIFT, read and written as Moodle's qformat_gift does (REFERENCE.md §2a)."""

from __future__ import annotations

import re

from quizzes import kinds
from studyapp.agentloop import bounded

from . import (
    MAX_ANSWERS,
    MSG_BRACES,
    MSG_MATCHING,
    MSG_MIN,
    MSG_NUMERICAL,
    MSG_TOO_MANY,
    Answer,
    Issue,
    MoodleQuestion,
    Parsed,
    meta_json,
    moodle_validate,
)

_ESCAPES = (":", "#", "=", "{", "}", "~", "n")
_PH = {c: chr(0xE000 + i) for i, c in enumerate(_ESCAPES)}
_BACKSLASH = "\ue0ff"
_WEIGHT_RE = re.compile(r"^%-*([0-9]{1,2})\.?([0-9]*)%")
_FORMATS = ("moodle", "html", "plain", "markdown")
_META_RE = re.compile(r"^//\s*loopcraft:\s*(\{.*\})\s*$")
MSG_NOT_NUMBERS = "Error - answers must be numeric"


def _pre(text: str) -> str:
    """Swap escaped control characters for placeholders before parsing (\\\\ is a backslash)."""
    text = text.replace("\\\\", _BACKSLASH)
    for c, ph in _PH.items():
        text = text.replace("\\" + c, ph)
    return text.replace(_BACKSLASH, "\\")


def _post(text: str) -> str:
    for c, ph in _PH.items():
        text = text.replace(ph, "\n" if c == "n" else c)
    return text


def _with_format(text: str, default: str = "moodle") -> tuple[str, str]:
    fmt = default
    if text.startswith("["):
        end = text.find("]")
        if end > 0 and text[1:end] in _FORMATS:
            fmt, text = text[1:end], text[end + 1 :]
    return _post(text).strip(), fmt


def _comment(answer: str, fmt: str) -> tuple[str, str]:
    text, _, feedback = answer.partition("#")
    return _with_format(text.strip(), fmt)[0], _with_format(feedback.strip(), fmt)[0]


def _weight(answer: str) -> tuple[float, str]:
    answer = answer[1:]
    end = answer.find("%")
    number = answer[:end]
    sign = -1 if number.startswith("-") else 1
    return sign * float(number.lstrip("-") or 0) / 100, answer[end + 1 :]


def _blocks(text: str):
    """Yield (first line number, lines) for each blank-line separated block."""
    lines: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            # A question's line is its first line that is not a comment.
            if not start or all(x.startswith("//") for x in lines):
                start = number
            lines.append(line.strip())
        elif lines:
            yield start, lines
            lines, start = [], 0
    if lines:
        yield start, lines


def parse(text: str) -> Parsed:
    """Read a GIFT file: every question with its line, and every error worded as Moodle does."""
    result = Parsed()
    category = ""
    for start, lines in _blocks(text.lstrip("\ufeff")):
        where = f"line {start}"
        meta: dict = {}
        kept = []
        for line in lines:
            if line.startswith("//"):
                m = _META_RE.match(line)
                if m:
                    try:
                        meta = bounded.loads_json(m[1], bounded.JSON_FIELD)
                    except bounded.LimitError:
                        meta = {}
                kept.append(" ")
            else:
                kept.append(line)
        body = "\n".join(kept).strip()
        if not body:
            continue
        q, error = _question(_pre(body), where)
        if error:
            result.errors.append(Issue(where, error, q.name if q else ""))
            continue
        if q.qtype == "category":
            category = q.category
            continue
        q.category, q.meta = category, meta if isinstance(meta, dict) else {}
        for message in moodle_validate(q):
            result.errors.append(Issue(where, message, q.name))
            break
        else:
            result.questions.append(q)
    return result


def _question(text: str, where: str) -> tuple[MoodleQuestion | None, str]:
    if text.startswith("$CATEGORY:"):
        return MoodleQuestion("category", where, category=text[10:].strip()), ""
    q = MoodleQuestion("", where)
    if text.startswith("::"):
        text = text[2:]
        end = text.find("::")
        if end >= 0:
            q.name = _post(text[:end]).strip()
            text = text[end + 2 :].strip()
    start, finish = text.find("{"), text.find("}")
    description = start < 0 and finish < 0
    if description:
        answertext, questiontext = "", text
    elif start < 0 or finish < 0:
        return q, MSG_BRACES
    else:
        answertext = text[start + 1 : finish].strip()
        blank = "" if text.endswith("}") else "_____"
        questiontext = text[:start] + blank + text[finish + 1 :]
    general = ""
    gf = answertext.rfind("####")
    if gf >= 0:
        general, answertext = answertext[gf + 4 :], answertext[:gf].strip()
    q.text, q.text_format = _with_format(questiontext.strip())
    q.general_feedback = _with_format(general.strip(), q.text_format)[0]
    if not q.name:
        q.name = q.text[:60]
    fmt = q.text_format
    if description:
        q.qtype = "description"
    elif answertext == "":
        q.qtype = "essay"
    elif answertext.startswith("#"):
        q.qtype = "numerical"
        return _numerical(q, answertext[1:])
    elif "~" in answertext:
        q.qtype = "multichoice"
        q.single = "=" in answertext
        parts = answertext.replace("=", "~=").split("~")
        if not parts[0].strip():
            parts = parts[1:]
        if len(parts) < 2:
            return q, MSG_MIN
        if len(parts) > MAX_ANSWERS:
            return q, MSG_TOO_MANY.format(len(parts))
        for part in parts:
            part = part.strip()
            if part.startswith("="):
                weight, part = 1.0, part[1:]
            elif _WEIGHT_RE.match(part):
                weight, part = _weight(part)
            else:
                weight = 0.0
            answer, feedback = _comment(part, fmt)
            q.answers.append(Answer(answer, weight, feedback))
    elif "=" in answertext and "->" in answertext:
        q.qtype = "match"
        parts = answertext.split("=")
        if not parts[0].strip():
            parts = parts[1:]
        if len(parts) < 2:
            return q, MSG_MIN
        if len(parts) > MAX_ANSWERS:
            return q, MSG_TOO_MANY.format(len(parts))
        for part in parts:
            part = part.strip()
            if "->" not in part:
                return q, MSG_MATCHING
            left, _, right = part.partition("->")
            q.pairs.append((_with_format(left.strip(), fmt)[0], _post(right).strip()))
    else:
        check = answertext.split("#", 1)[0].strip() if "#" in answertext[1:] else answertext
        if check in ("T", "TRUE", "F", "FALSE"):
            q.qtype = "truefalse"
            bits = (answertext.split("#", 2) + ["", ""])[:3]
            value = _with_format(bits[0].strip(), fmt)[0]
            wrong, right = (_with_format(b.strip(), fmt)[0] for b in bits[1:])
            is_true = value in ("T", "TRUE")
            q.answers = [
                Answer("True", 1.0 if is_true else 0.0, right if is_true else wrong),
                Answer("False", 0.0 if is_true else 1.0, wrong if is_true else right),
            ]
        else:
            q.qtype = "shortanswer"
            parts = answertext.split("=")
            if not parts[0].strip():
                parts = parts[1:]
            if len(parts) < 1:
                return q, MSG_MIN
            for part in parts:
                part = part.strip()
                weight = 1.0
                if _WEIGHT_RE.match(part):
                    weight, part = _weight(part)
                answer, feedback = _comment(part, fmt)
                q.answers.append(Answer(answer, weight, feedback))
    return q, ""


def _numerical(q: MoodleQuestion, answertext: str) -> tuple[MoodleQuestion, str]:
    # As Moodle's qformat_gift: "~#feedback" after the answers is the feedback for any other
    # number, stored as a catch-all "*" answer worth 0 % (question/format/gift/format.php).
    pos = answertext.find("~")
    wrong = ""
    if pos >= 0:
        answertext, wrong = answertext[:pos], answertext[pos:]
    parts = answertext.split("=")
    if not parts[0].strip():
        parts = parts[1:]
    if not parts:
        return q, MSG_NUMERICAL
    for part in parts:
        part = part.strip()
        weight = 1.0
        if _WEIGHT_RE.match(part):
            weight, part = _weight(part)
        answer, feedback = _comment(part, q.text_format)
        if ".." in answer[1:]:
            low, _, high = answer.partition("..")
            values = [low.strip(), high.strip()]
        elif ":" in answer[1:]:
            value, _, tol = answer.partition(":")
            values = [value.strip(), tol.strip()]
        else:
            values = [answer.strip()]
        for v in values:
            try:
                float(v)
            except ValueError:
                if v != "*":
                    return q, MSG_NOT_NUMBERS
        q.answers.append(Answer(answer, weight, feedback))
    if wrong:
        q.answers.append(Answer("*", 0.0, _comment(wrong, q.text_format)[1]))
    return q, ""


def escape(text: str) -> str:
    """Escape the characters GIFT reserves, as Moodle's export does."""
    for c in ("\\", "#", "=", "~", "{", "}", ":"):
        text = text.replace(c, "\\" + c)
    return text.replace("\r", "").replace("\n", "\\n")


def export(questions: list[dict]) -> tuple[str, list[tuple[str, str]]]:
    """Bank questions as GIFT text, plus (slug, reason) for each that GIFT can't hold."""
    from . import exportable

    blocks: list[str] = []
    skipped: list[tuple[str, str]] = []
    for q, category in exportable(questions, skipped):
        if category:
            blocks.append(f"$CATEGORY: {category}")
        head = f"::{escape(q['slug'])}::[markdown]{escape(q['stem'])}{{"
        lines = [f"// loopcraft: {meta_json(q)}", *kinds.of(q["kind"]).gift_lines(q, escape, head)]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n", skipped
