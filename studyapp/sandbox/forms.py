from django import forms

MAX_UPLOAD_BYTES = 2 * 1024 * 1024


class UploadForm(forms.Form):
    title = forms.CharField(max_length=200, required=False, label="Title (optional)")
    file = forms.FileField(required=False, label="A file")
    text = forms.CharField(
        required=False,
        label="Or paste it here",
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}),
    )

    def clean_file(self):
        f = self.cleaned_data.get("file")
        if f and f.size > MAX_UPLOAD_BYTES:
            raise forms.ValidationError(
                f"That file is {f.size / 1024 / 1024:.1f} MB; the limit is 2 MB."
            )
        return f

    def clean(self):
        data = super().clean()
        if not data.get("file") and not (data.get("text") or "").strip() and not self.errors:
            raise forms.ValidationError("Choose a file or paste a transcript, a log or a message.")
        return data
