"""The question editor: fields in, the bank's own YAML-shaped dict out, checked by quizzes.schema.

The browser and the files can never disagree, because the editor does not validate a question
itself: it builds the mapping a bank file would hold, runs the schema on it, and shows each of
the schema's messages next to the field it is about.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml
from django import forms
from django.forms import formset_factory
from django.utils.translation import gettext_lazy as _

from quizzes import schema
from quizzes.forms import SUBTOPIC_LABELS
from studyapp.agentloop import bounded, catalogue

from .models import ProblemReport

KIND_LABELS = {
    "single": _("Single choice"),
    "multiple": _("Multiple response"),
    "truefalse": _("True or false"),
    "ordering": _("Ordering"),
    "matching": _("Matching"),
    "next_action": _("Next action (a response is shown)"),
    "json": _("JSON answer"),
    "fix": _("Fix the conversation"),
}
# Rows each kind starts with on a new question (the schema's lower bound, or none).
START_ROWS = {
    "single": 4,
    "multiple": 4,
    "truefalse": 2,
    "ordering": 4,
    "matching": 3,
    "next_action": 3,
}
ROW_LIST = {  # the bank key that holds a kind's rows
    "single": "options",
    "multiple": "options",
    "truefalse": "options",
    "ordering": "items",
    "matching": "pairs",
    "next_action": "choices",
}
MAX_ROWS = 8
JSON_FIELDS = ("response", "accept", "wrong_answers", "messages", "sample_fix", "context")
KIND_FIELDS = {
    "matching": ("extra_rights",),
    "next_action": ("response",),
    "json": ("accept", "normalize", "why", "wrong_answers", "placeholder"),
    "fix": ("messages", "sample_fix", "context", "why"),
}
CONTEXT_KEYS = ("tools", "tool_choice", "thinking")


def _area(rows: int, *, code: bool = False, help_id: str = "") -> forms.Textarea:
    attrs: dict[str, Any] = {"rows": rows}
    if code:
        attrs.update(spellcheck="false", autocomplete="off", **{"class": "code"})
    return forms.Textarea(attrs=attrs)


class QuestionForm(forms.Form):
    """Every field optional here: the schema says what is missing, in the files' own words."""

    slug = forms.CharField(
        max_length=80,
        required=False,
        help_text=_("Lowercase letters, digits and single hyphens; it never changes once saved."),
    )
    subtopic = forms.ChoiceField(
        choices=[("", "Choose…")] + [(s, SUBTOPIC_LABELS[s]) for s in schema.SUBTOPICS],
        required=False,
    )
    concept = forms.CharField(
        max_length=80,
        required=False,
        help_text=_(
            "A slug that groups questions testing the same fact: pick one the bank uses, "
            "or type a new one."
        ),
        widget=forms.TextInput(attrs={"list": "concept-options", "autocomplete": "off"}),
    )
    difficulty = forms.TypedChoiceField(
        choices=[(1, "1 — easy"), (2, "2 — medium"), (3, "3 — hard")],
        coerce=int,
        initial=2,
        required=False,
    )
    notes = forms.CharField(
        label=_("Notes section"),
        max_length=120,
        required=False,
        help_text=_("The section of the notes that teaches it."),
        widget=forms.Select(),
    )
    sources = forms.CharField(
        widget=_area(2),
        required=False,
        help_text=_("Public https:// URLs the key rests on, one per line."),
    )
    stem = forms.CharField(widget=_area(6), required=False, help_text=_("Markdown."))
    explanation = forms.CharField(
        widget=_area(4), required=False, help_text=_("Markdown, shown after answering.")
    )
    # Kind-specific fields: the template shows those of the question's kind only.
    response = forms.CharField(
        label=_("The API response (JSON)"),
        widget=_area(14, code=True),
        required=False,
        help_text=_("A whole Messages API response; the right action comes from its stop_reason."),
    )
    extra_rights = forms.CharField(
        label=_("Extra right-hand texts"),
        widget=_area(2),
        required=False,
        help_text=_("Wrong answers that match nothing, one per line (optional)."),
    )
    accept = forms.CharField(
        label=_("Accepted answers (a JSON list)"),
        widget=_area(5, code=True),
        required=False,
        help_text=_("Each value that is right, compared by structure, not by text."),
    )
    normalize = forms.ChoiceField(
        choices=[("", _("Compare as written")), ("tool_choice", _("Normalise as a tool_choice"))],
        required=False,
    )
    why = forms.CharField(
        label=_("Why the answer is right"),
        widget=_area(3),
        required=False,
        help_text=_("Markdown."),
    )
    wrong_answers = forms.CharField(
        label=_("Anticipated wrong answers (a JSON list)"),
        widget=_area(5, code=True),
        required=False,
        help_text=_('Optional: [{"answer": …, "why": "…", "family": "…"}].'),
    )
    placeholder = forms.CharField(max_length=200, required=False)
    messages = forms.CharField(
        label=_("The broken history (JSON list of messages)"),
        widget=_area(12, code=True),
        required=False,
    )
    sample_fix = forms.CharField(
        label=_("A repaired history (JSON list of messages)"),
        widget=_area(12, code=True),
        required=False,
    )
    context = forms.CharField(
        label=_("Request context (JSON object)"),
        widget=_area(3, code=True),
        required=False,
        help_text=_("Optional: tools, tool_choice and thinking of the request, as an object."),
    )

    def __init__(self, *args, kind: str, editing: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.kind = kind
        from .pickers import anchor_choices

        choices = [("", "Choose…"), *anchor_choices()]
        value = self.data.get("notes") if self.is_bound else self.initial.get("notes")
        known = {v for _, group in choices[1:] for v, _ in group}
        if value and value not in known:  # keep a value the picker does not offer (a typo shows)
            choices.append((value, f"{value} (not a section of the notes)"))
        self.fields["notes"].widget.choices = choices
        if editing:
            self.fields["slug"].disabled = True
        for name in {n for names in KIND_FIELDS.values() for n in names}:
            if name not in KIND_FIELDS.get(kind, ()):
                del self.fields[name]

    def common_fields(self):
        names = ("slug", "subtopic", "concept", "difficulty", "notes", "sources")
        return [self[n] for n in names]

    def text_fields(self):
        return [self["stem"], self["explanation"]]

    def kind_fields(self):
        return [self[n] for n in KIND_FIELDS.get(self.kind, ())]


class OptionForm(forms.Form):
    """One row: a choice, an ordering step, a matching pair or a next-action choice."""

    text = forms.CharField(required=False, widget=_area(2))
    right = forms.CharField(label=_("Matches"), required=False, widget=_area(2))
    action = forms.ChoiceField(
        label=_("Action"),
        required=False,
        choices=[("", "Choose…")] + [(a.code, a.label) for a in catalogue.NEXT_ACTIONS.values()],
    )
    correct = forms.BooleanField(required=False)
    why = forms.CharField(required=False, widget=_area(2), help_text=_("Markdown."))
    family = forms.ChoiceField(
        label=_("Trap (for a wrong option)"),
        required=False,
        choices=[("", "—")] + [(f, f) for f in schema.FAMILIES],
    )

    def is_blank(self) -> bool:
        data = self.cleaned_data
        return not any((data.get(k) or "").strip() for k in ("text", "right", "why", "action"))


OptionFormSet = formset_factory(
    OptionForm, extra=0, can_delete=True, max_num=MAX_ROWS, validate_max=True
)


# --- from the form to the bank's dict, and back --------------------------------------------


def _lines(text: str) -> list[str]:
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def _json_field(form: QuestionForm, name: str, errors: dict[str, list[str]]) -> Any:
    text = (form.cleaned_data.get(name) or "").strip()
    if not text:
        return None
    try:
        return bounded.loads_json(text, bounded.JSON_FIELD, what="This")
    except bounded.LimitError as e:
        errors.setdefault(name, []).append(str(e))
        return None


def build_question(
    form: QuestionForm, rows: OptionFormSet, *, status: str
) -> tuple[dict, dict[str, list[str]], list[int]]:
    """The question as a bank file would hold it, JSON errors by field, and the rows used."""
    data, kind = form.cleaned_data, form.kind
    errors: dict[str, list[str]] = {}
    q: dict[str, Any] = {
        "slug": (data.get("slug") or "").strip(),
        "kind": kind,
        "subtopic": data.get("subtopic") or None,
        "concept": (data.get("concept") or "").strip(),
        "difficulty": data.get("difficulty") or 2,
        "status": status,
        "notes": (data.get("notes") or "").strip(),
        "sources": _lines(data.get("sources", "")),
        "stem": data.get("stem", ""),
        "explanation": data.get("explanation", ""),
    }
    used = [
        i for i, f in enumerate(rows.forms) if not f.is_blank() and not f.cleaned_data.get("DELETE")
    ]
    entries = []
    for i in used:
        r = rows.forms[i].cleaned_data
        if kind in ("single", "multiple", "truefalse"):
            e = {"text": r["text"], "correct": r["correct"], "why": r["why"]}
        elif kind == "ordering":
            e = {"text": r["text"], "why": r["why"]}
        elif kind == "matching":
            e = {"left": r["text"], "right": r["right"], "why": r["why"]}
        else:  # next_action
            e = {"action": r["action"] or None, "correct": r["correct"], "why": r["why"]}
        if r.get("family") and kind in ("single", "multiple", "truefalse", "next_action"):
            e["family"] = r["family"]
        entries.append(e)
    if kind in ROW_LIST:
        q[ROW_LIST[kind]] = entries
    if kind == "matching":
        q["extra_rights"] = _lines(data.get("extra_rights", ""))
    if kind == "next_action":
        q["response"] = _json_field(form, "response", errors)
    if kind == "json":
        q["accept"] = _json_field(form, "accept", errors)
        wrong = _json_field(form, "wrong_answers", errors)
        q["wrong_answers"] = wrong if wrong is not None else []
        if data.get("normalize"):
            q["normalize"] = data["normalize"]
        q["why"] = data.get("why", "")
        q["placeholder"] = data.get("placeholder", "")
    if kind == "fix":
        q["messages"] = _json_field(form, "messages", errors)
        q["sample_fix"] = _json_field(form, "sample_fix", errors)
        q["why"] = data.get("why", "")
        context = _json_field(form, "context", errors)
        if context is not None and not isinstance(context, dict):
            errors.setdefault("context", []).append(
                'The context must be a JSON object, e.g. {"tools": [...]}.'
            )
        elif context:
            unknown = sorted(set(context) - set(CONTEXT_KEYS))
            if unknown:
                errors.setdefault("context", []).append(
                    f"The context may hold {', '.join(CONTEXT_KEYS)} only (not {unknown[0]})."
                )
            q.update({k: v for k, v in context.items() if k in CONTEXT_KEYS})
    return {k: v for k, v in q.items() if v is not None}, errors, used


CHOICE_KINDS_WITH_TRAPS = ("single", "multiple", "truefalse", "next_action")


def check(question: dict, *, require_families: bool = True) -> tuple[dict | None, list[str]]:
    """Run the bank's own validation on one question, exactly as a file with it would be read."""
    text = yaml.safe_dump({"questions": [question]}, allow_unicode=True, sort_keys=False)
    result = schema.parse_text(text, file="editor")
    problems = [p.message for p in result.problems]
    # Files and imports may leave a wrong answer untagged; a question written here names its trap.
    key = {"next_action": "choices"}.get(question.get("kind"), "options")
    if require_families and question.get("kind") in CHOICE_KINDS_WITH_TRAPS:
        for i, o in enumerate(question.get(key) or [], 1):
            if isinstance(o, dict) and not o.get("correct") and not o.get("family"):
                problems.append(f"{key}[{i}].family must be one of {', '.join(schema.FAMILIES)}")
    parsed = result.questions[0] if result.questions and not problems else None
    return parsed, problems


# --- putting the schema's messages next to the fields ----------------------------------------

_ROW_RE = re.compile(r"^(options|items|pairs|choices)\[(\d+)\]\.(\w+) (.*)$")
_ROW_FIELD = {"left": "text", "text": "text", "right": "right", "action": "action"}
_FIELD_RE = re.compile(r"^([a-z_]+)\b")
_GROUP_HINTS = ("option", "choice", "pairs", "items", "catalogue", "the key says")
_MESSAGE_FIELD = {
    "each source": "sources",
    "an accepted answer": "accept",
    "accept and wrong_answers": "accept",
    "the checker finds nothing wrong with messages": "messages",
}


def _plain(message: str) -> str:
    # The files' messages list every allowed value; next to a menu the short form says it better.
    if "family must be one of" in message:
        return "choose the trap this wrong option tempts (a family)"
    if message.startswith("subtopic must be one of"):
        return "choose a subtopic"
    return message


def place_problems(problems: list[str], form: QuestionForm, rows, used: list[int]) -> list[str]:
    """Attach each problem to its field or row; return the ones about the rows as a whole."""
    group: list[str] = []
    for message in problems:
        m = _ROW_RE.match(message)
        if m and int(m[2]) - 1 < len(used):
            row = rows.forms[used[int(m[2]) - 1]]
            field = _ROW_FIELD.get(m[3], m[3])
            row.add_error(field if field in row.fields else None, _plain(f"{m[3]} {m[4]}"))
            continue
        message = _plain(message)
        field = next((f for p, f in _MESSAGE_FIELD.items() if message.startswith(p)), None)
        if field is None:
            fm = _FIELD_RE.match(message)
            field = fm[1] if fm else None
        if field in form.fields:
            if not form.has_error(field):  # a field whose JSON does not parse says so already
                form.add_error(field, message)
        elif field in ROW_LIST.values() or any(h in message for h in _GROUP_HINTS):
            group.append(message)
        else:
            form.add_error(None, message)
    return group


def question_initial(parsed: dict) -> tuple[dict, list[dict]]:
    """Form and row initial data from a parsed question (the schema's output shape)."""
    data = parsed.get("data", {})
    initial = {
        "slug": parsed["slug"],
        "subtopic": parsed["subtopic"],
        "concept": parsed["concept"],
        "difficulty": parsed["difficulty"],
        "notes": parsed["notes"],
        "sources": "\n".join(parsed["sources"]),
        "stem": parsed["stem"],
        "explanation": parsed["explanation"],
    }

    def dump(value):
        return json.dumps(value, indent=2, ensure_ascii=False)

    kind = parsed["kind"]
    if kind == "matching":
        initial["extra_rights"] = "\n".join(data.get("extra_rights", []))
    if kind == "next_action":
        initial["response"] = dump(data.get("response"))
    if kind == "json":
        initial.update(
            accept=dump(data.get("accept", [])),
            normalize=data.get("normalize", ""),
            why=data.get("why", ""),
            wrong_answers=dump(
                [
                    {k: w[k] for k in ("answer", "why", "family") if k in w}
                    for w in data["wrong_answers"]
                ]
            )
            if data.get("wrong_answers")
            else "",
            placeholder=data.get("placeholder", ""),
        )
    if kind == "fix":
        initial.update(
            messages=dump(data.get("messages", [])),
            sample_fix=dump(data.get("sample_fix", [])),
            context=dump(data["context"]) if data.get("context") else "",
            why=data.get("why", ""),
        )
    rows = [
        {
            "text": o["text"],
            "right": o.get("match", ""),
            "action": o.get("key", "") if kind == "next_action" else "",
            "correct": o["correct"],
            "why": o["why"],
            "family": o.get("family", ""),
        }
        for o in parsed["options"]
    ]
    return initial, rows


def new_rows(kind: str) -> list[dict]:
    if kind == "truefalse":
        return [{"text": "True"}, {"text": "False"}]
    return [{} for _ in range(START_ROWS.get(kind, 0))]


class ReportForm(forms.Form):
    text = forms.CharField(
        label=_("What is wrong with this question?"),
        max_length=ProblemReport.MAX_TEXT,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("For example: the key is wrong, an option is ambiguous, a link is broken."),
    )
    version = forms.IntegerField(required=False, widget=forms.HiddenInput, min_value=1)
    next = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean_text(self):
        text = self.cleaned_data["text"].strip()
        if len(text) < 5:
            raise forms.ValidationError(
                _("Say in a few words what is wrong (5 characters or more).")
            )
        return text


class ReportFilterForm(forms.Form):
    status = forms.ChoiceField(
        choices=[
            ("open", _("Open")),
            ("resolved", _("Resolved")),
            ("dismissed", _("Dismissed")),
            ("all", _("All")),
        ],  # fmt: skip
        required=False,
    )


class QuestionFilterForm(forms.Form):
    subtopic = forms.ChoiceField(
        choices=[("", _("Any subtopic"))] + [(s, SUBTOPIC_LABELS[s]) for s in schema.SUBTOPICS],
        required=False,
    )
    kind = forms.ChoiceField(
        choices=[("", _("Any kind"))] + list(KIND_LABELS.items()), required=False
    )
    status = forms.ChoiceField(
        choices=[("", _("Any status")), ("published", _("Published")), ("draft", _("Draft"))],
        required=False,
    )
    review = forms.BooleanField(label=_("Needs review only"), required=False)
    q = forms.CharField(label=_("Slug or stem contains"), required=False, max_length=80)
