"""{% predict_progress %}: predict mode's score per stop_reason, for /me/ (one query)."""

from django import template
from django.db.models import Count, Q

from core.owners import get_owner, owned_rows

from ..models import PredictAnswer

register = template.Library()


@register.inclusion_tag("sandbox/_predict_progress.html", takes_context=True)
def predict_progress(context):
    owner = get_owner(context["request"], create=False)
    found = owned_rows(  # its SQL compiled once (core/owners.owned_rows)
        "sandbox-predict-progress",
        owner,
        lambda owned: (
            owned(PredictAnswer.objects)
            .values("stop_reason")
            .annotate(n=Count("id"), right=Count("id", filter=Q(correct=True)))
            .order_by("stop_reason")
        ),
    )
    rows = [dict(zip(("stop_reason", "n", "right"), row, strict=True)) for row in found]
    for r in rows:
        r["percent"] = round(100 * r["right"] / r["n"]) if r["n"] else 0
    return {
        "predictions": rows,
        "predicted": sum(r["n"] for r in rows),
        "predicted_right": sum(r["right"] for r in rows),
    }
