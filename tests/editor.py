"""What the question editor's form posts, shared by the test modules that drive the editor."""

from __future__ import annotations

from authoring import forms


def form_data(parsed: dict, *, save: str | None = "publish", **changes) -> dict:
    """What the editor's form posts for a question, as a browser would send it."""
    initial, rows = forms.question_initial(parsed)
    data = {k: v for k, v in initial.items() if v not in (None, "")}
    data.update(kind=parsed["kind"], **{"opt-TOTAL_FORMS": len(rows), "opt-INITIAL_FORMS": 0})
    for i, row in enumerate(rows):
        for key, value in row.items():
            if key == "correct":
                if value:
                    data[f"opt-{i}-correct"] = "on"
            elif value:
                data[f"opt-{i}-{key}"] = value
    if save:
        data["save"] = save
    data.update(changes)
    return data


def edit_url(slug: str) -> str:
    return f"/author/questions/{slug}/edit/"
