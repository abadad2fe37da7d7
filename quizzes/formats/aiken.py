"""Aiken, read as Moodle's qformat_aiken does: single-choice questions in plain text.

    What does the loop do after end_turn?
    A. Call the API again
    B. Finish with the answer
    ANSWER: B

The question is the text before the first choice; each choice is a capital letter followed by
``.`` or ``)`` and a space; ``ANSWER:`` names the right letter; a blank line (or the next
question) ends the block. Aiken has no feedback, no names and no categories.
"""

from __future__ import annotations

from . import Answer, Issue, MoodleQuestion, Parsed

MSG_NO_ANSWER = "Question not completed: it has no ANSWER: line"
MSG_FEW = "This type of question requires at least 2 choices"
MSG_BAD_ANSWER = "The ANSWER: letter {!r} names none of the choices"
MSG_NO_QUESTION = "A choice or an ANSWER: line comes before any question text"


def _choice(line: str) -> tuple[str, str] | None:
    if len(line) >= 3 and "A" <= line[0] <= "Z" and line[1] in ".)" and line[2] in " \t":
        return line[0], line[3:].strip()
    return None


def detect(text: str) -> bool:
    """An Aiken file: some line is ANSWER: <letter>, and some line is a lettered choice."""
    lines = [line.strip() for line in text.splitlines()]
    return any(line.upper().startswith("ANSWER:") for line in lines) and any(
        _choice(line) for line in lines
    )


def parse(text: str) -> Parsed:
    result = Parsed()
    stem: list[str] = []
    choices: list[tuple[str, str]] = []
    start = 0
    for number, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = raw.strip()
        if not line:
            if stem and not choices:  # a question may run over several lines; keep reading
                continue
            if choices:
                result.errors.append(Issue(f"line {start}", MSG_NO_ANSWER, " ".join(stem)[:60]))
                stem, choices = [], []
            continue
        choice = _choice(line)
        if line.upper().startswith("ANSWER:"):
            where, name = f"line {start or number}", " ".join(stem)[:60]
            letter = line[7:].strip().upper()
            if not stem:
                result.errors.append(Issue(f"line {number}", MSG_NO_QUESTION))
            elif len(choices) < 2:
                result.errors.append(Issue(where, MSG_FEW, name))
            elif letter not in {c for c, _ in choices}:
                result.errors.append(Issue(where, MSG_BAD_ANSWER.format(letter), name))
            else:
                q = MoodleQuestion("multichoice", where, name=name, text=" ".join(stem))
                q.text_format = "plain"
                q.answers = [Answer(t, 1.0 if c == letter else 0.0) for c, t in choices]
                result.questions.append(q)
            stem, choices, start = [], [], 0
        elif choice and stem:
            choices.append(choice)
        elif choice:
            result.errors.append(Issue(f"line {number}", MSG_NO_QUESTION))
        else:
            if choices:  # text after the choices without an ANSWER: a new question started
                result.errors.append(Issue(f"line {start}", MSG_NO_ANSWER, " ".join(stem)[:60]))
                stem, choices = [], []
            if not stem:
                start = number
            stem.append(line)
    if choices or stem:
        result.errors.append(Issue(f"line {start}", MSG_NO_ANSWER, " ".join(stem)[:60]))
    return result
