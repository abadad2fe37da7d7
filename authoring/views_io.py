"""Import (preview, then one transaction) and export of the bank, under /author/."""

from __future__ import annotations

import re

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from core import i18n
from core.widgets import Select
from quizzes import importing
from quizzes.formats import DEFAULT_FAMILY, FAMILIES_CHOICES, Defaults, FormatError
from quizzes.schema import FAMILIES, KINDS, NOTES_RE, SUBTOPICS

from .access import instructor_required
from .forms import ChoiceField, notes_menu, shown_choices
from .models import CategorySubtopic


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


FORMAT_CHOICES = [("auto", _("Detect from the file"))] + list(importing.IMPORT_LABELS.items())


class ImportForm(forms.Form):
    file = forms.FileField(required=False, label=_("Upload a file"))
    text = forms.CharField(
        required=False, label=_("…or paste the questions"), widget=forms.Textarea(attrs={"rows": 8})
    )
    format = ChoiceField(choices=FORMAT_CHOICES, initial="auto", widget=Select)
    default_subtopic = ChoiceField(
        required=False,
        label=_("Default subtopic (required when the file has none)"),
        choices=[("", _("— none —"))] + [(s, s) for s in SUBTOPICS],
        widget=Select,
        help_text=_(
            "For questions whose category or name names no subtopic. Required for a "
            "GIFT, XML or Aiken file that did not come from Loopcraft."
        ),
    )
    default_notes = forms.CharField(
        required=False,
        label=_("Default notes link (required when the file has none)"),
        help_text=_("The notes section that teaches these questions."),
        widget=Select(choices=[]),
    )
    default_source = forms.URLField(
        required=False,
        assume_scheme="https",
        label=_("Default source (required when the file has none)"),
        help_text=_("An https:// URL the answers rest on."),
    )
    default_family = ChoiceField(
        required=False,
        choices=[("", _("— leave unset —"))] + FAMILIES_CHOICES,
        initial="",
        widget=Select,
        label=_("Trap family for every wrong answer"),
        help_text=_(
            "Usually left unset: set the trap of each wrong answer in the preview instead."
        ),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Every note section, one menu per language kept until the notes change (its options
        # written once: core.widgets.control)
        self.fields["default_notes"].widget.choices = notes_menu(str(_("— none —")))[0]
        for name in ("format", "default_subtopic", "default_family"):  # fixed menus
            field = self.fields[name]
            field.widget.choices = shown_choices(f"import-{name}", field.choices)

    def clean_default_notes(self) -> str:
        value = self.cleaned_data["default_notes"].strip()
        if value and not NOTES_RE.match(value):
            raise forms.ValidationError(_("Write the notes link as note-slug#anchor."))
        return value

    def clean_default_source(self) -> str:
        value = self.cleaned_data["default_source"]
        if value and not value.startswith("https://"):
            raise forms.ValidationError(_("The source must be an https:// URL."))
        return value

    def clean(self):
        data = super().clean()
        upload = data.get("file")
        if upload:
            if upload.size > importing.MAX_BYTES:
                raise forms.ValidationError(
                    _("The file is larger than %(mb)s MB, the size limit for an import.")
                    % {"mb": importing.MAX_BYTES // 1024 // 1024}
                )
            try:
                data["text"] = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError as e:
                raise forms.ValidationError(
                    _("The file is not UTF-8 text: save it as UTF-8 and upload it again.")
                ) from e
        if not (data.get("text") or "").strip():
            raise forms.ValidationError(_("Upload a file or paste some questions."))
        return data

    def defaults(self) -> Defaults:
        d = self.cleaned_data
        return Defaults(
            d["default_subtopic"],
            d["default_notes"],
            d["default_source"],
            d["default_family"] or DEFAULT_FAMILY,
            categories=self.category_choices(),
            families=self.family_choices(),
        )

    def category_choices(self) -> dict[str, str]:
        """Remembered category → subtopic choices, overridden by the ones on this form."""
        chosen = dict(CategorySubtopic.objects.values_list("category", "subtopic"))
        for key, name in self.data.items():
            m = re.fullmatch(r"catname-(\d+)", key)
            if m:
                subtopic = self.data.get(f"cat-{m[1]}", "")
                if subtopic in SUBTOPICS:
                    chosen[name] = subtopic
                elif subtopic == "":
                    chosen.pop(name, None)
        return chosen

    def family_choices(self) -> dict[tuple[int, int], str]:
        out = {}
        for key, value in self.data.items():
            m = re.fullmatch(r"fam-(\d+)-(\d+)", key)
            if m and value in FAMILIES:
                out[(int(m[1]), int(m[2]))] = value
        return out


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
    context = {"form": form, "preview": preview, "error": error}
    context["subtopics"], context["families"] = SUBTOPICS, FAMILIES_CHOICES
    return render(request, template, context)


@instructor_required
@require_POST
def import_apply(request: HttpRequest) -> HttpResponse:
    """Re-read the previewed text and write it in one transaction, or show why not."""
    form = ImportForm(request.POST)
    if not form.is_valid():
        return render(request, "authoring/io_import.html", {"form": form}, status=400)
    preview, error = _preview(form)
    if preview is None or not preview.can_apply:
        context = {"form": form, "preview": preview, "error": error or _("Nothing to import.")}
        return render(request, "authoring/io_import.html", context, status=400)
    importing.import_apply(preview)
    for name, subtopic in form.category_choices().items():  # remembered for the next file
        if name in dict(preview.categories):
            CategorySubtopic.objects.update_or_create(
                category=name, defaults={"subtopic": subtopic}
            )
    messages.success(
        request,
        _(
            "Imported: %(created)s created, %(updated)s updated, %(unchanged)s unchanged, "
            "%(skipped)s skipped."
        )
        % {
            "created": preview.count("create"),
            "updated": preview.count("update"),
            "unchanged": preview.count("unchanged"),
            "skipped": len(preview.skipped),
        },
    )
    return redirect("author:import")


@instructor_required
@require_GET
def export_page(request: HttpRequest) -> HttpResponse:
    """Without ?format= the choice of format; with it, the file (two queries)."""
    fmt = request.GET.get("format", "")
    filters = {
        "subtopic": (request.GET.get("subtopic", ""), SUBTOPICS),
        "status": (request.GET.get("status", ""), ("draft", "published")),
        "kind": (request.GET.get("kind", ""), KINDS),
    }
    # GIFT and XML hold one language: ?lang= writes that translation's words (YAML has them all).
    filters["lang"] = (request.GET.get("lang", ""), i18n.other_languages())
    bad = [name for name, (value, allowed) in filters.items() if value and value not in allowed]
    if fmt not in importing.WRITERS or bad:
        error = _("Choose a format.") if fmt else ""
        if bad:
            error = _("Unknown %(field)s %(value)r: choose one from the list.") % {
                "field": bad[0],
                "value": filters[bad[0]][0],
            }
        return render(
            request,
            "authoring/io_export.html",
            {
                "formats": importing.FORMAT_LABELS,
                "error": error,
                "subtopics": SUBTOPICS,
                "kinds": KINDS,
                "export_languages": [
                    (code, name) for code, name in settings.LANGUAGES if code != i18n.DEFAULT
                ],
            },
            status=400 if fmt or bad else 200,
        )
    questions = importing.exportable()
    lang = filters.pop("lang")[0]
    for name, (value, _allowed) in filters.items():
        if value:
            questions = questions.filter(**{name: value})
    text, skipped = importing.export_questions(fmt, questions, lang=lang if fmt != "yaml" else "")
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    if fmt == "moodlexml":
        response["Content-Type"] = "application/xml; charset=utf-8"
    suffix = f".{lang}" if lang and fmt != "yaml" else ""
    name = f"loopcraft-questions{suffix}.{importing.EXTENSIONS[fmt]}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    # Which questions the format could not hold, for the caller (the page lists them too).
    response["X-Skipped"] = str(len(skipped))
    return response
