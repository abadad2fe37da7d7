from django import forms

from .schema import SUBTOPICS
from .services import EXAM_SIZES, PRACTICE_SIZES

SUBTOPIC_LABELS = {
    "loop-basics": "Loop basics",
    "stop-reasons": "Stop reasons",
    "tool-results": "Tool results",
    "server-tools": "Server tools and pause_turn",
    "tool-choice": "tool_choice",
    "guards": "Guards",
    "errors": "Errors",
    "thinking": "Thinking blocks",
    "context": "Context",
    "parallel": "Parallel calls",
    "observability": "Observability and the Agent SDK",
    "rules-in-code": "Rules in code",
}


class PracticeForm(forms.Form):
    subtopics = forms.MultipleChoiceField(
        choices=[(s, SUBTOPIC_LABELS[s]) for s in SUBTOPICS],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Leave all unticked to practise everything.",
    )
    which = forms.ChoiceField(
        choices=[
            ("all", "Any question"),
            ("unseen", "Not seen yet"),
            ("missed", "Missed last time"),
        ],
        initial="all",
        widget=forms.RadioSelect,
    )
    count = forms.TypedChoiceField(
        choices=[(n, str(n)) for n in PRACTICE_SIZES], coerce=int, initial=10
    )


class ExamForm(forms.Form):
    count = forms.TypedChoiceField(
        label="Questions",
        choices=[(n, f"{n} questions ({2 * n} minutes)") for n in EXAM_SIZES],
        coerce=int,
        initial=30,
    )
