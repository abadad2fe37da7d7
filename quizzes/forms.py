from django import forms
from django.utils.translation import gettext_lazy as _

from .schema import SUBTOPIC_LABELS, SUBTOPICS
from .services import CCAF_PER_SCENARIO, CCAF_SCENARIOS_PER_EXAM, EXAM_SIZES, PRACTICE_SIZES


class PracticeForm(forms.Form):
    subtopics = forms.MultipleChoiceField(
        choices=[(s, SUBTOPIC_LABELS[s]) for s in SUBTOPICS],
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text=_("Leave all unticked to practise everything."),
    )
    which = forms.ChoiceField(
        choices=[
            ("all", _("Any question")),
            ("unseen", _("Not seen yet")),
            ("missed", _("Missed last time")),
        ],
        initial="all",
        widget=forms.RadioSelect,
    )
    count = forms.TypedChoiceField(
        choices=[(n, str(n)) for n in PRACTICE_SIZES], coerce=int, initial=10
    )


class ExamForm(forms.Form):
    count = forms.TypedChoiceField(
        label=_("Questions"),
        choices=[
            (n, _("%(count)s questions (%(minutes)s minutes)") % {"count": n, "minutes": 2 * n})
            for n in EXAM_SIZES
        ],
        coerce=int,
        initial=30,
    )


class CcafForm(forms.Form):
    per_scenario = forms.TypedChoiceField(
        label=_("Items per scenario"),
        choices=[
            (
                n,
                _("%(n)s each: %(count)s questions, %(minutes)s min")
                % {
                    "n": n,
                    "count": n * CCAF_SCENARIOS_PER_EXAM,
                    "minutes": 2 * n * CCAF_SCENARIOS_PER_EXAM,
                },
            )
            for n in CCAF_PER_SCENARIO
        ],
        coerce=int,
        initial=CCAF_PER_SCENARIO[-1],
    )
