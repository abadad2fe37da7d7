"""Form widgets every app may use."""

from __future__ import annotations

from django import forms


class Select(forms.Select):
    """Django's ``<select>``, the same HTML, with its options written by one loop in one template
    (core/templates/core/widgets/select.html). Django's own template includes an option template
    and an attributes template for every option: the question editor's notes-section picker (163
    sections) cost about 330 template renders a page that way."""

    template_name = "core/widgets/select.html"
