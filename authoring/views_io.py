"""Import (preview, then one transaction) and export of the bank, under /author/."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from quizzes import importing
from quizzes.formats import DEFAULT_FAMILY, FAMILIES_CHOICES, Defaults, FormatError
from quizzes.schema import NOTES_RE, SUBTOPICS

from .access import instructor_required


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


FORMAT_CHOICES = [("auto", "Detect from the file")] + list(importing.FORMAT_LABELS.items())


class ImportForm(forms.Form):
    file = forms.FileField(required=False, label="Upload a file")
    text = forms.CharField(
        required=False, label="…or paste the questions", widget=forms.Textarea(attrs={"rows": 8})
    )
    format = forms.ChoiceField(choices=FORMAT_CHOICES, initial="auto")
    default_subtopic = forms.ChoiceField(
        required=False,
        label="Default subtopic",
        choices=[("", "— none —")] + [(s, s) for s in SUBTOPICS],
        help_text="For questions whose category or name names no subtopic.",
    )
    default_notes = forms.CharField(
        required=False,
        label="Default notes link",
        help_text="note-slug#anchor, e.g. stop-reasons#max-tokens",
    )
    default_source = forms.URLField(
        required=False,
        assume_scheme="https",
        label="Default source",
        help_text="An https:// URL the answers rest on.",
    )
    default_family = forms.ChoiceField(
        required=False,
        choices=FAMILIES_CHOICES,
        initial="misread-contract",
        label="Default distractor family",
        help_text="Given to wrong answers; review each before publishing.",
    )

    def clean_default_notes(self) -> str:
        value = self.cleaned_data["default_notes"].strip()
        if value and not NOTES_RE.match(value):
            raise forms.ValidationError("Write the notes link as note-slug#anchor.")
        return value

    def clean_default_source(self) -> str:
        value = self.cleaned_data["default_source"]
        if value and not value.startswith("https://"):
            raise forms.ValidationError("The source must be an https:// URL.")
        return value

    def clean(self):
        data = super().clean()
        upload = data.get("file")
        if upload:
            if upload.size > importing.MAX_BYTES:
                raise forms.ValidationError(
                    f"The file is larger than {importing.MAX_BYTES // 1024 // 1024} MB, "
                    "the size limit for an import."
                )
            try:
                data["text"] = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError as e:
                raise forms.ValidationError(
                    "The file is not UTF-8 text: save it as UTF-8 and upload it again."
                ) from e
        if not (data.get("text") or "").strip():
            raise forms.ValidationError("Upload a file or paste some questions.")
        return data

    def defaults(self) -> Defaults:
        d = self.cleaned_data
        return Defaults(
            d["default_subtopic"],
            d["default_notes"],
            d["default_source"],
            d["default_family"] or DEFAULT_FAMILY,
        )


def _preview(form: ImportForm):
    try:
        return importing.import_preview(
            form.cleaned_data["text"], form.cleaned_data["format"], form.defaults()
        ), ""
    except FormatError as e:
        return None, str(e)


@instructor_required
@require_http_methods(["GET", "POST"])
def import_page(request: HtmxHttpRequest) -> HttpResponse:
    """GET: the form. POST: the preview of what would be written (nothing is written)."""
    form = ImportForm(request.POST or None, request.FILES or None)
    preview, error = None, ""
    if request.method == "POST" and form.is_valid():
        preview, error = _preview(form)
    template = "authoring/io_import.html"
    if request.htmx and request.method == "POST":
        template += "#preview"
    return render(request, template, {"form": form, "preview": preview, "error": error})


@instructor_required
@require_POST
def import_apply(request: HttpRequest) -> HttpResponse:
    """Re-read the previewed text and write it in one transaction, or show why not."""
    form = ImportForm(request.POST)
    if not form.is_valid():
        return render(request, "authoring/io_import.html", {"form": form}, status=400)
    preview, error = _preview(form)
    if preview is None or not preview.can_apply:
        context = {"form": form, "preview": preview, "error": error or "Nothing to import."}
        return render(request, "authoring/io_import.html", context, status=400)
    importing.import_apply(preview)
    messages.success(
        request,
        f"Imported: {preview.count('create')} created, {preview.count('update')} updated, "
        f"{preview.count('unchanged')} unchanged, {len(preview.skipped)} skipped.",
    )
    return redirect("author:import")


@instructor_required
@require_GET
def export_page(request: HttpRequest) -> HttpResponse:
    """Without ?format= the choice of format; with it, the file (two queries)."""
    fmt = request.GET.get("format", "")
    if fmt not in importing.WRITERS:
        error = "Choose a format." if fmt else ""
        return render(
            request,
            "authoring/io_export.html",
            {"formats": importing.FORMAT_LABELS, "error": error},
            status=400 if fmt else 200,
        )
    questions = importing.exportable()
    subtopic = request.GET.get("subtopic", "")
    if subtopic in SUBTOPICS:
        questions = questions.filter(subtopic=subtopic)
    text, skipped = importing.export_questions(fmt, questions)
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    if fmt == "moodlexml":
        response["Content-Type"] = "application/xml; charset=utf-8"
    name = f"loopcraft-questions.{importing.EXTENSIONS[fmt]}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    # Which questions the format could not hold, for the caller (the page lists them too).
    response["X-Skipped"] = str(len(skipped))
    return response
