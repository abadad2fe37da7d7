from django import forms

from . import rules


class RetentionForm(forms.Form):
    retention = forms.TypedChoiceField(
        label="Desired retention",
        choices=[(p, f"{p}%") for p in range(80, 96)],
        coerce=int,
        widget=forms.Select(attrs={"aria-describedby": "retention-help"}),
        help_text="The chance you want of still remembering a concept when it comes due. "
        "Higher means more reviews.",
        error_messages={
            "invalid_choice": "Choose a desired retention between 80%% and 95%%.",
            "required": "Choose a desired retention between 80% and 95%.",
        },
    )

    def cleaned_retention(self) -> float:
        value = self.cleaned_data["retention"] / 100
        assert rules.RETENTION_MIN <= value <= rules.RETENTION_MAX
        return value
