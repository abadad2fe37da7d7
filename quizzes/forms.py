from django import forms

from .schema import SUBTOPIC_LABELS, SUBTOPICS
from .services import CCAF_PER_SCENARIO, CCAF_SCENARIOS_PER_EXAM, EXAM_SIZES, PRACTICE_SIZES


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


class CcafForm(forms.Form):
    per_scenario = forms.TypedChoiceField(
        label="Items per scenario",
        choices=[
            (
                n,
                f"{n} each: {n * CCAF_SCENARIOS_PER_EXAM} questions, "
                f"{2 * n * CCAF_SCENARIOS_PER_EXAM} min",
            )
            for n in CCAF_PER_SCENARIO
        ],
        coerce=int,
        initial=CCAF_PER_SCENARIO[-1],
    )
