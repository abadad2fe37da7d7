"""Moodle XML, read and written as Moodle's qformat_xml does (REFERENCE.md §2b)."""

from __future__ import annotations

import xml.etree.ElementTree as ET  # noqa: S405 - DTDs and entities are refused before parsing

from quizzes import kinds
from studyapp.agentloop import bounded

from . import (
    MAX_ANSWERS,
    MSG_TOO_MANY,
    Answer,
    FormatError,
    Issue,
    MoodleQuestion,
    Parsed,
    exportable,
    meta_json,
    moodle_validate,
)

# question/format/xml/lang/en/qformat_xml.php: invalidxml, xmlimportnoquestion, xmltypeunsupported.
MSG_INVALID = "Invalid XML file - string expected (use CDATA?)"
MSG_NO_TEXT = "Missing question text in XML file"
MSG_TYPE = "Question type {} is not supported by XML import"
MSG_TRUEFALSE = "It was not clear whether the correct answer is true or false"
# qformat_xml's truefalseimporterror (question/format/xml/lang/en/qformat_xml.php), without its <b>.
MSG_TRUEFALSE_GUESS = (
    "Warning: The true/false question '{}' could not be imported properly. It was not clear "
    "whether the correct answer is true or false. The question has been imported assuming that "
    "the answer is '{}'. If this is not correct, you will need to edit the question."
)
# Types Moodle knows and we report as skipped (rather than as an unknown type).
KNOWN_TYPES = {
    "multichoice", "truefalse", "matching", "shortanswer", "numerical", "essay", "description",
    "cloze", "calculated", "calculatedsimple", "calculatedmulti", "ddwtos", "gapselect",
    "ddimageortext", "ddmarker", "randomsamatch", "ordering", "random",
}  # fmt: skip
FORMAT_NAMES = {"html": "html", "moodle_auto_format": "moodle", "plain_text": "plain"}


def _text(node: ET.Element | None, path: str = "text") -> str:
    if node is None:
        return ""
    child = node.find(path) if path else node
    return (child.text or "").strip() if child is not None else ""


def _fmt(node: ET.Element | None, default: str = "html") -> str:
    if node is None:
        return default
    name = node.get("format", default)
    return FORMAT_NAMES.get(name, "markdown" if name == "markdown" else default)


def _fraction(raw: str | None) -> float:
    try:
        return float(raw or 0) / 100
    except ValueError:
        return float("nan")


def parse(text: str) -> Parsed:
    """Read a Moodle XML file: every question with its element path, every error Moodle gives."""
    if "<!DOCTYPE" in text or "<!ENTITY" in text:
        raise FormatError("The file declares a DTD or entities; Moodle XML files have none.")
    try:
        root = ET.fromstring(text.lstrip("\ufeff").encode())  # noqa: S314
    except ET.ParseError as e:
        raise FormatError(f"{MSG_INVALID}: {e.msg}") from e
    if root.tag != "quiz":
        raise FormatError(f"{MSG_INVALID}: the root element must be <quiz>, not <{root.tag}>")
    result = Parsed()
    category = ""
    for index, node in enumerate(root.findall("question"), 1):
        where = f"quiz/question[{index}]"
        qtype = node.get("type", "")
        if qtype == "category":
            category = _text(node.find("category"))
            continue
        name = _text(node.find("name"))
        if qtype not in KNOWN_TYPES:
            result.errors.append(Issue(where, MSG_TYPE.format(qtype or "(none)"), name))
            continue
        qtext = node.find("questiontext")
        q = MoodleQuestion(
            "match" if qtype == "matching" else qtype,
            where,
            name=name,
            text=_text(qtext),
            text_format=_fmt(qtext),
            general_feedback=_text(node.find("generalfeedback")),
            category=category,
            idnumber=_text(node, "idnumber"),
        )
        if qtext is None or (not q.text and qtype != "description"):
            result.errors.append(Issue(where + "/questiontext", MSG_NO_TEXT, name))
            continue
        image, data = _text(node, "image"), _text(node, "image_base64")
        if image and data:  # Moodle 1.9's picture field: Moodle appends it to the question text
            q.text += f' <img src="@@PLUGINFILE@@/{image.replace("/", "_")}" />'
        raw_meta = _text(node, "loopcraft")
        try:
            q.meta = bounded.loads_json(raw_meta, bounded.JSON_FIELD) if raw_meta else {}
        except bounded.LimitError:
            q.meta = {}
        error = _read_parts(q, node, where)
        if error:
            result.errors.append(Issue(error[0], error[1], name))
            continue
        for message in moodle_validate(q):
            result.errors.append(Issue(where, message, name))
            break
        else:
            result.questions.append(q)
    return result


def _read_parts(q: MoodleQuestion, node: ET.Element, where: str) -> tuple[str, str] | None:
    if q.qtype == "multichoice":
        q.single = _text(node, "single").lower() not in ("false", "0")
    parts = node.findall("answer") + node.findall("subquestion")
    if len(parts) > MAX_ANSWERS:
        return where, MSG_TOO_MANY.format(len(parts))
    if q.qtype in ("multichoice", "truefalse", "shortanswer", "numerical"):
        for i, a in enumerate(node.findall("answer"), 1):
            fraction = _fraction(a.get("fraction"))
            if fraction != fraction:  # NaN
                return (
                    f"{where}/answer[{i}]",
                    f"Grades ({a.get('fraction')}) do not match grade options - question skipped.",
                )
            answer = Answer(_text(a), fraction, _text(a.find("feedback")))
            if q.qtype == "numerical":
                try:
                    answer.tolerance = float(_text(a, "tolerance") or 0)
                except ValueError:
                    return f"{where}/answer[{i}]", "The tolerance must be a number."
            q.answers.append(answer)
    if q.qtype == "shortanswer":
        q.case_sensitive = _text(node, "usecase") not in ("", "0", "false")
    if q.qtype == "essay":
        q.graderinfo = _text(node.find("graderinfo"))
    if q.qtype == "truefalse":
        return _truefalse(q, where)
    if q.qtype == "match":
        for sub in node.findall("subquestion"):
            q.pairs.append((_text(sub), _text(sub.find("answer"))))
        if sum(1 for left, _ in q.pairs if left) < 2:
            return where, "You must supply at least 2 questions and 3 answers."
    return None


def _truefalse(q: MoodleQuestion, where: str) -> tuple[str, str] | None:
    """The key as Moodle's import_truefalse reads it (question/format/xml/format.php): answers in
    file order, the text "true" or "false" saying which is which (else the first is true, with
    Moodle's warning), and the last answer read decides."""
    if not q.answers:
        return where, MSG_TRUEFALSE
    correct, feedback, guessed = True, {"true": "", "false": ""}, False
    full_marks = sum(abs(a.fraction - 1) < 1e-9 for a in q.answers)
    for i, a in enumerate(q.answers):
        side = a.text.strip()
        if side not in ("true", "false"):
            guessed, side = True, "true" if i == 0 else "false"
        full = abs(a.fraction - 1) < 1e-9
        correct = full if side == "true" else not full
        feedback[side] = a.feedback
    q.answers = [
        Answer("True", 1.0 if correct else 0.0, feedback["true"]),
        Answer("False", 0.0 if correct else 1.0, feedback["false"]),
    ]
    key = "True" if correct else "False"
    if guessed:
        q.warnings.append(MSG_TRUEFALSE_GUESS.format(q.text[:60], key.lower()))
    elif full_marks != 1:
        q.warnings.append(f"neither or both answers are worth 100 %: Moodle reads that as {key}")
    return None


def _add_text(parent: ET.Element, tag: str, text: str, fmt: str | None = "markdown") -> ET.Element:
    el = ET.SubElement(parent, tag, {"format": fmt} if fmt else {})
    ET.SubElement(el, "text").text = text
    return el


def export(questions: list[dict]) -> tuple[str, list[tuple[str, str]]]:
    """Bank questions as Moodle XML, plus (slug, reason) for each that it can't hold."""
    root = ET.Element("quiz")
    skipped: list[tuple[str, str]] = []
    for q, category in exportable(questions, skipped):
        if category:
            cat = ET.SubElement(root, "question", {"type": "category"})
            _add_text(cat, "category", category, None)
        module = kinds.of(q["kind"])
        el = ET.SubElement(root, "question", {"type": module.MOODLE_QTYPE})
        _add_text(el, "name", q["slug"], None)
        _add_text(el, "questiontext", q["stem"])
        _add_text(el, "generalfeedback", q["explanation"])
        ET.SubElement(el, "defaultgrade").text = "1"
        ET.SubElement(el, "penalty").text = module.XML_PENALTY
        ET.SubElement(el, "hidden").text = "0"
        ET.SubElement(el, "idnumber").text = q.get("idnumber") or q["slug"]
        module.xml_answers(el, q, _add_text)
        ET.SubElement(el, "loopcraft").text = meta_json(q)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n", skipped
