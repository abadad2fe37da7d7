"""The question editor: fields in, the bank's own YAML-shaped dict out, checked by quizzes.schema.

The browser and the files can never disagree, because the editor does not validate a question
itself: it builds the mapping a bank file would hold, runs the schema on it, and shows each of
the schema's messages next to the field it is about.
"""

from __future__ import annotations

import copy
import copyreg
import functools
import re
from typing import Any

import yaml
from django import forms
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.forms import formset_factory
from django.utils.text import format_lazy
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from core.widgets import Select, ShownChoices
from quizzes import kinds, schema
from quizzes.forms import SUBTOPIC_LABELS
from studyapp.agentloop import bounded, catalogue

from .models import ProblemReport

# Every kind has a browser editor; its module says which rows and fields. Labels in the reader's
# language (the kind modules mark them with gettext_noop).
KIND_LABELS = {code: _(label) for code, label in kinds.LABELS.items()}
MAX_ROWS = 8
#: The bank keys that hold a kind's rows (options, items, pairs, choices, answers).
ROW_KEYS = tuple(dict.fromkeys(m.ROWS for m in kinds.REGISTRY.values() if m.ROWS))


class _SharedChoices:
    """A choice field whose copy in each form shares the class's list of choices instead of
    deep-copying it (with every lazy label in it): a form copies its fields when it is made, and
    the editor makes a form per row (eight rows of two menus copied about 500 objects a page).
    Nothing changes a field's choices in place; a form that needs others assigns a new list."""

    def __deepcopy__(self, memo):
        return forms.Field.__deepcopy__(self, memo)


class ChoiceField(_SharedChoices, forms.ChoiceField):
    pass


@functools.cache
def _copied_as_its_dict(cls: type) -> bool:
    """Whether ``copy.copy`` of an instance of ``cls`` is ``cls.__new__(cls)`` given a shallow
    copy of the instance's ``__dict__`` (what copy.copy does through object.__reduce_ex__ for
    a class that changes none of the ways it copies or pickles)."""
    return (
        getattr(cls, "__copy__", None) is None
        and cls not in copyreg.dispatch_table
        and cls.__reduce_ex__ is object.__reduce_ex__
        and cls.__reduce__ is object.__reduce__
        and cls.__getstate__ is object.__getstate__
        and not hasattr(cls, "__setstate__")
        and not hasattr(cls, "__getnewargs_ex__")
        and not hasattr(cls, "__getnewargs__")
        and cls.__new__ is object.__new__
        and not any("__slots__" in vars(c) for c in cls.__mro__)
    )


_FIELD_COPIES = (forms.Field.__deepcopy__, _SharedChoices.__deepcopy__)
_WIDGET_COPIES = (forms.Widget.__deepcopy__, forms.widgets.ChoiceWidget.__deepcopy__)


def _field_copy(field: forms.Field, memo: dict) -> forms.Field:
    """``copy.deepcopy(field, memo)``, the same copy, for a field and widget that copy as
    Django's Field, Widget and ChoiceWidget do (``__deepcopy__``), without copy.deepcopy's
    machinery around each (a form copies every field of its class when it is made: the
    editor's row form spent about 95 µs of its 110 that way). Any other field is deep-copied."""
    widget = field.widget
    cls, widget_cls = type(field), type(widget)
    if (
        cls.__deepcopy__ not in _FIELD_COPIES
        or widget_cls.__deepcopy__ not in _WIDGET_COPIES
        or not _copied_as_its_dict(cls)
        or not _copied_as_its_dict(widget_cls)
        or id(field) in memo
        or id(widget) in memo
    ):
        return copy.deepcopy(field, memo)
    result = object.__new__(cls)
    result.__dict__.update(field.__dict__)
    memo[id(field)] = result
    copied = object.__new__(widget_cls)  # Widget.__deepcopy__
    copied.__dict__.update(widget.__dict__)
    copied.attrs = widget.attrs.copy()
    if widget_cls.__deepcopy__ is forms.widgets.ChoiceWidget.__deepcopy__:
        copied.choices = copy.copy(widget.choices)
    memo[id(widget)] = copied
    result.widget = copied
    result.error_messages = field.error_messages.copy()
    result.validators = field.validators[:]
    return result


class _Fields(dict):
    """A form class's ``base_fields``, which BaseForm.__init__ deep-copies for every form:
    copied field by field by ``_field_copy`` into a plain dict (what copy.deepcopy gives)."""

    def __deepcopy__(self, memo):
        return {name: _field_copy(field, memo) for name, field in self.items()}


class TypedChoiceField(_SharedChoices, forms.TypedChoiceField):
    pass


#: (which menu, language) -> its choices with the labels translated into that language
_shown: dict[tuple, ShownChoices] = {}


def shown_choices(key: str, choices) -> ShownChoices:
    """A fixed menu's (value, label) choices with each label translated into the active
    language, kept per process and language (the same text the lazy labels give)."""
    lang = get_language()
    found = _shown.get((key, lang))
    if found is None:
        found = _shown[(key, lang)] = ShownChoices([(v, str(label)) for v, label in choices])
    return found


#: (language, the blank choice's label) -> (the notes it was made from, the notes-section
#: menu, the values it offers)
_notes_menus: dict[tuple[str, str], tuple[dict, ShownChoices, frozenset]] = {}


def notes_menu(blank: str = "Choose…") -> tuple[ShownChoices, frozenset]:
    """The notes-section picker's choices (``blank`` first, then every section of every note,
    grouped by note, in the active language) and the values it offers: made again only when
    the notes change (notes_in hands out the same dict until a file changes; the dict itself
    is kept and compared). One menu for every form, so its options are written once
    (core.widgets): the editor's, and the import form's (its blank says "— none —")."""
    from studyapp.notes.loader import NoteError, notes_in

    from .pickers import anchor_choices

    try:
        notes = notes_in()
    except NoteError:
        notes = None
    key = (get_language(), blank)
    kept = _notes_menus.get(key)
    if notes is not None and kept is not None and kept[0] is notes:
        return kept[1], kept[2]
    choices = [("", blank), *(anchor_choices(notes) if notes is not None else [])]
    menu = ShownChoices(choices)
    known = frozenset(v for _, group in choices[1:] for v, _ in group)
    if notes is not None:
        _notes_menus[key] = (notes, menu, known)
    return menu, known


@receiver(setting_changed)
def _forget_shown_choices(**kwargs) -> None:
    """A test that changes settings (languages, locale paths) translates the menus afresh."""
    _shown.clear()
    _notes_menus.clear()
    _today_field.cache_clear()


def _area(rows: int, *, code: bool = False, help_id: str = "") -> forms.Textarea:
    attrs: dict[str, Any] = {"rows": rows}
    if code:
        attrs.update(spellcheck="false", autocomplete="off", **{"class": "code"})
    return forms.Textarea(attrs=attrs)


def today_field() -> ChoiceField:
    """The optional ``today:`` id: which rule of the model catalogue the feedback's "the exam vs
    today" line shows (studyapp/agentloop/changes.py). A copy of one field made once per
    process (its choices, one per rule, shared as _SharedChoices shares them)."""
    return _field_copy(_today_field(), {})


@functools.cache
def _today_field() -> ChoiceField:
    from studyapp.agentloop.changes import CHANGES

    field = ChoiceField(
        label=_("The exam vs today"),
        choices=[("", _("None"))]
        + [(c.id, format_lazy("{}: {}", c.id, _(c.title))) for c in CHANGES.values()],
        required=False,
        widget=Select,
        help_text=_(
            "Optional: after answering, the feedback says what today's models do about this "
            "rule; the question stays keyed to the exam's answer."
        ),
    )
    _kept_menus({"today": field})
    return field


class QuestionForm(forms.Form):
    """Every field optional here: the schema says what is missing, in the files' own words."""

    slug = forms.CharField(
        label=_("Slug"),
        max_length=80,
        required=False,
        help_text=_("Lowercase letters, digits and single hyphens; it never changes once saved."),
    )
    subtopic = ChoiceField(
        label=_("Subtopic"),
        choices=[("", _("Choose…"))] + [(s, SUBTOPIC_LABELS[s]) for s in schema.SUBTOPICS],
        required=False,
        widget=Select,
    )
    concept = forms.CharField(
        label=_("Concept"),
        max_length=80,
        required=False,
        help_text=_(
            "A slug that groups questions testing the same fact: pick one the bank uses, "
            "or type a new one."
        ),
        widget=forms.TextInput(attrs={"list": "concept-options", "autocomplete": "off"}),
    )
    difficulty = TypedChoiceField(
        label=_("Difficulty"),
        choices=[(1, _("1 — easy")), (2, _("2 — medium")), (3, _("3 — hard"))],
        coerce=int,
        initial=2,
        required=False,
        widget=Select,
    )
    notes = forms.CharField(
        label=_("Notes section"),
        max_length=120,
        required=False,
        help_text=_("The section of the notes that teaches it."),
        widget=Select(),
    )
    sources = forms.CharField(
        label=_("Sources"),
        widget=_area(2),
        required=False,
        help_text=_("Public https:// URLs the key rests on, one per line."),
    )
    stem = forms.CharField(
        label=_("Stem"), widget=_area(6), required=False, help_text=_("Markdown.")
    )
    explanation = forms.CharField(
        label=_("Explanation"),
        widget=_area(4),
        required=False,
        help_text=_("Markdown, shown after answering."),
    )

    def __init__(self, *args, kind: str, editing: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.kind = kind
        menu, known = notes_menu()
        value = self.data.get("notes") if self.is_bound else self.initial.get("notes")
        if value and value not in known:  # keep a value the picker does not offer (a typo shows)
            menu = ShownChoices([*menu.choices, (value, f"{value} (not a section of the notes)")])
        self.fields["notes"].widget.choices = menu
        if editing:
            self.fields["slug"].disabled = True
        # The kind's own fields come from its module (quizzes/kinds/<kind>.py).
        own = kinds.of(kind).editor_fields()
        self.kind_names = list(own)
        self.fields.update(own)
        self.fields["today"] = today_field()
        for name in ("subtopic", "difficulty", "today"):
            field = self.fields[name]
            field.widget.choices = shown_choices(f"question-{name}", field.choices)

    def common_fields(self):
        names = ("slug", "subtopic", "concept", "difficulty", "notes", "sources")
        return [self[n] for n in names]

    def text_fields(self):
        return [self["stem"], self["explanation"]]

    def kind_fields(self):
        return [self[n] for n in self.kind_names]

    def today_fields(self):
        return [self["today"]]


class OptionForm(forms.Form):
    """One row: a choice, an ordering step, a matching pair or a next-action choice."""

    text = forms.CharField(label=_("Text"), required=False, widget=_area(2))
    right = forms.CharField(label=_("Matches"), required=False, widget=_area(2))
    action = ChoiceField(
        label=_("Action"),
        required=False,
        choices=[("", _("Choose…"))]
        + [(a.code, _(a.label)) for a in catalogue.NEXT_ACTIONS.values()],
        widget=Select,
    )
    tolerance = forms.CharField(
        label=_("Tolerance (±)"),
        required=False,
        max_length=40,
        help_text=_("A number of at least 0; blank means exactly this number."),
    )
    grade = forms.CharField(
        label=_("Grade (%)"),
        required=False,
        max_length=20,
        help_text=_("0 to 100; blank means 100. One answer must be worth 100."),
    )
    correct = forms.BooleanField(label=_("Correct"), required=False)
    why = forms.CharField(label=_("Why"), required=False, widget=_area(2), help_text=_("Markdown."))
    family = ChoiceField(
        label=_("Trap (for a wrong option)"),
        required=False,
        choices=[("", "—")] + [(f, f) for f in schema.FAMILIES],
        widget=Select,
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        action = self.fields["action"]
        action.widget.choices = shown_choices("row-action", action.choices)

    def is_blank(self) -> bool:
        data = self.cleaned_data
        return not any((data.get(k) or "").strip() for k in ("text", "right", "why", "action"))


def _kept_menus(fields: dict) -> None:
    """Each menu's choices (already normalised, a list) kept as one ShownChoices that every
    copy of the widget shares: ChoiceWidget.__deepcopy__ normalises a list again for every
    copy (about 20 µs for the row's action menu, on every row). The forms that show a menu in
    the reader's language assign it its translated choices after the copy."""
    for field in fields.values():
        widget = field.widget
        if isinstance(widget, forms.widgets.ChoiceWidget) and type(widget.choices) is list:
            widget.choices = ShownChoices(widget.choices)


QuestionForm.base_fields = _Fields(QuestionForm.base_fields)
OptionForm.base_fields = _Fields(OptionForm.base_fields)
_kept_menus(QuestionForm.base_fields)
_kept_menus(OptionForm.base_fields)

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


class _Editor:
    """What a kind's ``from_editor`` may ask of the form: a JSON field read, an error noted."""

    def __init__(self, form: QuestionForm, errors: dict[str, list[str]]):
        self.form, self.errors = form, errors

    def json(self, name: str) -> Any:
        return _json_field(self.form, name, self.errors)

    def error(self, name: str, message: str) -> None:
        self.errors.setdefault(name, []).append(message)


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
    if data.get("today"):
        q["today"] = data["today"]
    ed = _Editor(form, errors)
    q.update(kinds.of(kind).from_editor(data, [rows.forms[i].cleaned_data for i in used], ed))
    return {k: v for k, v in q.items() if v is not None}, errors, used


#: libyaml's C emitter (as quizzes/formats/yamlfmt.py): the editor's every page and preview
#: writes its question out as bank YAML; the pure-Python SafeDumper spent ~2 ms on one. Its
#: text reads back to the same questions and problems for every question of the bank (checked
#: when this was changed), and a NEL (U+0085) is escaped, not written raw (read back as a break).
_SAFE_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


#: Up to this many characters of text in all, a question is checked as data; a bigger one is
#: written out as a file and read back, so that the byte limit of a bank file (which only that
#: text can reach: escapes make it longer than the characters) says what it says of the file.
DATA_CHECK_MAX_CHARS = bounded.IMPORT.max_bytes // 8


def _schema(question: dict) -> tuple[dict | None, list[str]]:
    """The bank's own validation of one question, as a file with it would be read: the parsed
    question (None when it has problems) and the problems.

    Checked as data (``schema.check_question``: the checks ``parse_text`` runs on a file), not
    written out as YAML and read back (0.5 ms of every editor page, preview and post): that
    text reads back to the same data, whatever the form held (the dumper quotes what YAML would
    read otherwise: ``<<``, ``=``, "yes", dates; it escapes every character YAML may not hold
    raw), and the question's limits are the form's (its JSON fields read within
    bounded.JSON_FIELD, far inside a file's depth and count limits), but for the file's size.
    tests/test_authoring_editor.py compares the two ways. A parsed question's ``line`` is 1,
    not 2 (the bank drops it)."""
    if _characters(question) > DATA_CHECK_MAX_CHARS:
        return _schema_as_file(question)
    parsed, found = schema.check_question(question, file="editor")
    problems = [p.message for p in found]
    return (parsed if parsed and not problems else None), problems


def _characters(value: Any) -> int:
    """The characters of text in ``value``: its strings, keys and values at every depth."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return sum(len(k) if isinstance(k, str) else 0 for k in value) + sum(
            map(_characters, value.values())
        )
    if isinstance(value, list | tuple):
        return sum(map(_characters, value))
    return 0


def _schema_as_file(question: dict) -> tuple[dict | None, list[str]]:
    """``_schema`` exactly as a bank file holding the question would be read."""
    text = yaml.dump(
        {"questions": [question]}, Dumper=_SAFE_DUMPER, allow_unicode=True, sort_keys=False
    )
    result = schema.parse_text(text, file="editor")
    problems = [p.message for p in result.problems]
    return (result.questions[0] if result.questions and not problems else None), problems


def _untagged(question: dict) -> list[str]:
    """Files and imports may leave a wrong answer untagged; a question written here names its
    trap."""
    module = kinds.get(question.get("kind") or "")
    if module is None or not module.TRAPS_REQUIRED:
        return []
    key = module.ROWS
    return [
        f"{key}[{i}].family must be one of {', '.join(schema.FAMILIES)}"
        for i, o in enumerate(question.get(key) or [], 1)
        if isinstance(o, dict) and not o.get("correct") and not o.get("family")
    ]


def check(question: dict, *, require_families: bool = True) -> tuple[dict | None, list[str]]:
    """Run the bank's own validation on one question, exactly as a file with it would be read."""
    parsed, problems = _schema(question)
    if not require_families:
        return parsed, problems
    traps = _untagged(question)
    return (None if traps else parsed), problems + traps


def check_both(question: dict) -> tuple[dict | None, dict | None, list[str]]:
    """``check`` with and without the trap rule from one run of the schema (the editor's page
    shows both): the parsed question if it passes every check, the parsed question if it passes
    all but the trap rule, and every problem."""
    lenient, problems = _schema(question)
    traps = _untagged(question)
    return (None if traps else lenient), lenient, problems + traps


# --- putting the schema's messages next to the fields ----------------------------------------

_ROW_RE = re.compile(r"^(options|items|pairs|choices|answers)\[(\d+)\]\.(\w+) (.*)$")
_ROW_FIELD = {
    "left": "text",
    "text": "text",
    "right": "right",
    "action": "action",
    "answer": "text",
}
_FIELD_RE = re.compile(r"^([a-z_]+)\b")
_GROUP_HINTS = ("option", "choice", "pairs", "items", "answers", "catalogue", "the key says")
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
        elif field in ROW_KEYS or any(h in message for h in _GROUP_HINTS):
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

    if data.get("today"):
        initial["today"] = data["today"]
    own, rows = kinds.of(parsed["kind"]).to_editor(parsed)
    initial.update(own)
    blank = {"text": "", "right": "", "action": "", "correct": False, "why": "", "family": ""}
    return initial, [{**blank, **row} for row in rows]


def new_rows(kind: str) -> list[dict]:
    return kinds.of(kind).new_rows()


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
    status = ChoiceField(
        choices=[
            ("open", _("Open")),
            ("resolved", _("Resolved")),
            ("dismissed", _("Dismissed")),
            ("all", _("All")),
        ],  # fmt: skip
        required=False,
    )


class QuestionFilterForm(forms.Form):
    subtopic = ChoiceField(
        label=_("Subtopic"),
        choices=[("", _("Any subtopic"))] + [(s, SUBTOPIC_LABELS[s]) for s in schema.SUBTOPICS],
        required=False,
    )
    kind = ChoiceField(
        label=_("Kind"), choices=[("", _("Any kind"))] + list(KIND_LABELS.items()), required=False
    )
    status = ChoiceField(
        choices=[("", _("Any status")), ("published", _("Published")), ("draft", _("Draft"))],
        required=False,
    )
    review = forms.BooleanField(label=_("Needs review only"), required=False)
    q = forms.CharField(label=_("Slug or stem contains"), required=False, max_length=80)
