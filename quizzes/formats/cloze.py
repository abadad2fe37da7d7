"""Embedded answers (Cloze): never imported, but a broken one is refused with Moodle's reasons.

Moodle itself refuses a Cloze question whose embedded answers don't parse or can't be graded
(question/format/xml/format.php ``import_multianswer`` calls ``qtype_multianswer_validate_question``
in question/type/multianswer/questiontype.php and reports
``get_string('invalidmultianswerquestion', 'qtype_multianswer', implode(' ', $errors))``).
A valid one is still skipped here (``CLOZE_REASON``: Loopcraft grades one answer per question),
so an instructor learns both whether Moodle would take the question and why we don't.
"""

from __future__ import annotations

import re

# Moodle's English strings, quoted from its language packs:
# qtype_multianswer: invalidmultianswerquestion, questionsmissing (lang/en/qtype_multianswer.php)
MSG_INVALID = "Invalid embedded answers (Cloze) question ({})."
MSG_NO_SUBQUESTION = "The question text must include at least one embedded answer."
# qtype_multichoice: notenoughanswers (lang/en/qtype_multichoice.php), with {$a} = 2
MSG_TWO_CHOICES = "This type of question requires at least 2 choices"
# question: notenoughanswers (lang/en/question.php), with {$a} = 1
MSG_ONE_ANSWER = "This type of question requires at least 1 answers"
# question: fractionsnomax (lang/en/question.php)
MSG_NO_FULL_MARKS = (
    "One of the answers should have a score of 100% so it is possible to get full marks for "
    "this question."
)
# qtype_numerical: answermustbenumberorstar (lang/en/qtype_numerical.php)
MSG_NOT_A_NUMBER = "The answer must be a number, for example -1.234 or 3e8, or '*'."

_MULTICHOICE = ("MULTICHOICE", "MC", "MULTIRESPONSE", "MR")
_NUMERICAL = ("NUMERICAL", "NM")
_TYPES = (
    "SHORTANSWER|SA|MW|SHORTANSWER_C|SAC|MWC|NUMERICAL|NM|MULTICHOICE_V|MCV|MULTICHOICE_H|MCH|"
    "MULTICHOICE_S|MCS|MULTICHOICE_VS|MCVS|MULTICHOICE_HS|MCHS|MULTICHOICE|MC|MULTIRESPONSE_H|"
    "MRH|MULTIRESPONSE_S|MRS|MULTIRESPONSE_HS|MRHS|MULTIRESPONSE|MR"
)
_SUBQUESTION = re.compile(r"\{(\d*):(" + _TYPES + r"):((?:\\.|[^}\\])*)\}")
_WEIGHT = re.compile(r"^(=|%(-?\d+(?:\.\d+)?)%)")
_NUMBER = re.compile(r"^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$")


def _alternatives(body: str) -> list[tuple[str, float]]:
    """(answer text, fraction) of each ``~``-separated alternative, as Moodle splits them."""
    out = []
    for alt in re.split(r"(?<!\\)~", body):
        m = _WEIGHT.match(alt)
        fraction = 0.0
        if m:
            fraction = 1.0 if m[1] == "=" else float(m[2]) / 100
            alt = alt[m.end() :]
        text = re.split(r"(?<!\\)#", alt, maxsplit=1)[0]
        out.append((text.strip(), fraction))
    return out


def errors(text: str) -> list[str]:
    """Moodle's validation errors for a Cloze question text (empty: Moodle would import it)."""
    found = []
    subquestions = _SUBQUESTION.findall(text)
    if not subquestions:
        return [MSG_NO_SUBQUESTION]
    for _, qtype, body in subquestions:
        family = qtype.split("_")[0]
        answers = [(t, f) for t, f in _alternatives(body) if t != ""]
        multi = family in _MULTICHOICE
        for answer, _fraction in answers:
            value = answer.split(":", 1)[0].strip() if family in _NUMERICAL else answer
            if family in _NUMERICAL and value != "*" and not _NUMBER.match(value):
                found.append(MSG_NOT_A_NUMBER)
        if multi and len(answers) < 2:
            found.append(MSG_TWO_CHOICES)
        elif not answers:
            found.append(MSG_ONE_ANSWER)
        many = family in ("MULTIRESPONSE", "MR")
        full = any(f == 1 for _, f in answers) or (many and any(f > 0 for _, f in answers))
        if not full:
            found.append(MSG_NO_FULL_MARKS)
    return found  # as Moodle: one message per problem, repeated when several parts have it


def reason(text: str, unsupported: str) -> str:
    """Why a Cloze question is not imported: Moodle's own reasons when it is broken, else ours."""
    found = errors(text)
    return MSG_INVALID.format(" ".join(found)) if found else unsupported
