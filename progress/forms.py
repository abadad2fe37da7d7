from django import forms
from django.utils.translation import gettext_lazy as _

from . import rules


class RetentionForm(forms.Form):
    retention = forms.TypedChoiceField(
        label=_("Desired retention"),
        choices=[(p, f"{p}%") for p in range(80, 96)],
        coerce=int,
        widget=forms.Select(attrs={"aria-describedby": "retention-help"}),
        help_text=_(
            "The chance you want of still remembering a concept when it comes due. "
            "Higher means more reviews."
        ),
        error_messages={
            "invalid_choice": _("Choose a desired retention between 80%% and 95%%."),
            "required": _("Choose a desired retention between 80% and 95%."),
        },
    )

    def cleaned_retention(self) -> float:
        value = self.cleaned_data["retention"] / 100
        assert rules.RETENTION_MIN <= value <= rules.RETENTION_MAX
        return value
