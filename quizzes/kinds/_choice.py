"""What the choice kinds share (single, multiple, truefalse, next_action): options with a key,
a why, and a trap family on the wrong ones. Each kind module picks the parts it uses."""

from __future__ import annotations

from .base import fam, option_list

ROW_FIELDS = ("text", "correct", "why", "family")


def check_options(c, q: dict, out: dict, low: int, high: int) -> None:
    options = option_list(c, q, "options", low, high)
    for i, opt in enumerate(options):
        where = f"options[{i + 1}]."
        correct = opt.get("correct", False)
        if not isinstance(correct, bool):
            c.err(f"{where}correct must be true or false", opt)
        out["options"].append(
            {
                "text": c.text(opt, "text", where),
                "correct": correct is True,
                "why": c.text(opt, "why", where),
                "family": "" if correct is True else c.family(opt, where),
            }
        )


def unique_texts(c, out: dict) -> None:
    texts = [o["text"] for o in out["options"]]
    if len(set(texts)) != len(texts):
        c.err("two options have the same text")


def n_correct(out: dict) -> int:
    return sum(o["correct"] for o in out["options"])


def parse_one(spec: dict, get) -> dict:
    from quizzes.grading import AnswerError, NoAnswer

    choice = get("choice")
    if not choice:
        raise NoAnswer("Choose one answer first.")
    if choice not in {o["key"] for o in spec["options"]}:
        raise AnswerError("That choice is not one of this question's options.")
    return {"choice": choice}


def grade_one(spec: dict, answer: dict):
    from quizzes.grading import Graded

    chosen = {o["key"]: o for o in spec["options"]}[answer["choice"]]
    return Graded(1.0 if chosen["correct"] else 0.0, [] if chosen["correct"] else fam(chosen))


def chosen_one(answer: dict) -> list:
    return [answer.get("choice")]


def present(question, answer: dict, options: list, template: str, **extra) -> dict:
    chosen = set(answer.get("choices", [])) | {answer.get("choice")}
    return {
        "template": template,
        "choices": [
            {"key": o.key, "html": o.text_html, "checked": o.key in chosen} for o in options
        ],
        **extra,
    }


def feedback(question, answer: dict, options: list, template: str, right: str | None = None):
    chosen = set(answer.get("choices", [])) | {answer.get("choice")}
    return {
        "template": template,
        "options": [
            {
                "html": o.text_html,
                "why_html": o.why_html,
                "correct": (o.key == right) if right else o.correct,
                "chosen": o.key in chosen,
                "family": o.family,
            }
            for o in options
        ],
    }


def yaml_row(o, head: dict) -> dict:
    """An option as the export writes it: correct only when true, family only when set."""
    head["why"] = o.why
    if o.correct:
        head["correct"] = True
    elif o.family:  # an untagged wrong answer stays untagged
        head["family"] = o.family
    return head


def from_moodle(mq, out: dict, meta: dict, keep, ctx) -> list[str]:
    """Moodle answers as options: positive fraction = correct; the trap family of each wrong
    one comes from the preview, then the file's own metadata, then the form's default."""
    from quizzes.formats import MISSING_WHY
    from quizzes.schema import FAMILIES

    families = list(meta.get("families") or [])
    out["options"] = []
    for i, a in enumerate(mq.answers):
        option = {"text": keep(a.text), "why": keep(a.feedback)}
        if not option["why"]:
            option["why"] = MISSING_WHY
            ctx.missing_why += 1
        if a.fraction > 0:
            option["correct"] = True
        else:
            family = ctx.defaults.families.get((ctx.number, i), "")
            if family not in FAMILIES:
                family = families[i] if i < len(families) else ""
            if family not in FAMILIES:
                family = ctx.defaults.family if ctx.defaults.family in FAMILIES else ""
            if family:
                option["family"] = family
            else:
                ctx.untagged += 1
        out["options"].append(option)
    return []


def meta(question: dict, key: str = "options") -> dict:
    return {"families": [o.get("family", "") for o in question[key]]}


def fractions(question: dict, single: bool) -> list[tuple[str, float, str]]:
    """(text, Moodle fraction, feedback) of each option: 1/0 for one answer, ±1/k for several."""
    options = question["options"]
    if single:
        return [(o["text"], 1.0 if o.get("correct") else 0.0, o["why"]) for o in options]
    k = sum(1 for o in options if o.get("correct"))
    return [(o["text"], 1 / k if o.get("correct") else -1 / k, o["why"]) for o in options]


def gift_answers(question: dict, escape, single: bool) -> list[str]:
    from quizzes.formats import fraction_text

    lines = []
    for text, fraction, why in fractions(question, single):
        if single and fraction == 1:
            mark = "="
        elif fraction == 0:
            mark = "~"
        else:
            mark = f"~%{fraction_text(fraction)}%"
        lines.append(f"\t{mark}{escape(text)}#{escape(why)}")
    return lines


def xml_answers(el, question: dict, add_text, single: bool, lower: bool = False) -> None:
    import xml.etree.ElementTree as ET  # noqa: S405 - writing only

    from quizzes.formats import fraction_text

    for text, fraction, why in fractions(question, single):
        attrs = {"fraction": fraction_text(fraction), "format": "markdown"}
        ans = ET.SubElement(el, "answer", attrs)
        ET.SubElement(ans, "text").text = text.lower() if lower else text
        add_text(ans, "feedback", why)


def xml_multichoice(el, single: bool) -> None:
    import xml.etree.ElementTree as ET  # noqa: S405 - writing only

    ET.SubElement(el, "single").text = "true" if single else "false"
    ET.SubElement(el, "shuffleanswers").text = "true"
    ET.SubElement(el, "answernumbering").text = "abc"


def from_editor(rows: list[dict], key: str = "options") -> dict:
    entries = []
    for r in rows:
        e = {"text": r["text"], "correct": r["correct"], "why": r["why"]}
        if r.get("family"):
            e["family"] = r["family"]
        entries.append(e)
    return {key: entries}


def to_editor(parsed: dict) -> tuple[dict, list[dict]]:
    rows = [
        {"text": o["text"], "correct": o["correct"], "why": o["why"], "family": o.get("family", "")}
        for o in parsed["options"]
    ]
    return {}, rows


def with_words(options: list, words) -> list:
    """Copies of ``options`` whose text is ``words(option)`` (escaped) where it gives one: the
    kinds whose option texts come from a catalogue (next actions, True/False) show them in the
    reader's language, whatever the stored English."""
    import copy

    from django.utils.html import escape

    out = []
    for o in options:
        text = words(o)
        if text:
            o = copy.copy(o)
            o.text_html = escape(text)
        out.append(o)
    return out
