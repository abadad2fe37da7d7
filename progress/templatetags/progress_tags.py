import secrets

from django import template
from django.template.loader import render_to_string
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import get_language

from progress import hooks, rules

register = template.Library()


# The fields are the same for every question but for the response's id, the signed stamp and
# the level chosen: rendered once per process, language and chosen level, with stand-ins for the
# other two (random per process, so no text can contain them), filled in per request.
_HOLE = "lc" + secrets.token_hex(8)
_PK_HOLE, _STAMP_HOLE = f"{_HOLE}pk", f"{_HOLE}stamp"
_rendered: dict[tuple, str] = {}


@register.simple_tag(takes_context=True)
def certainty_fields(context, response):
    """The optional certainty radios and the signed shown-at stamp for a practice form
    (progress/_certainty_fields.html)."""
    request = context.get("request")
    posted = request.POST if request is not None and request.method == "POST" else {}
    stamp = posted.get("shown", "")
    if hooks.seconds_since_shown(stamp, response.pk) is None:
        stamp = hooks.make_stamp(response.pk)  # keep the first stamp when a form comes back
    chosen = rules.parse_certainty(posted.get("certainty"))
    key = (get_language(), chosen)
    html = _rendered.get(key)
    if html is None:
        html = _rendered[key] = render_to_string(
            "progress/_certainty_fields.html",
            {
                "stamp": _STAMP_HOLE,
                "chosen": chosen,
                "levels": [
                    (level, label, rules.CBM_RIGHT[level], rules.CBM_WRONG[level])
                    for level, label in rules.CERTAINTY_LABELS.items()
                ],
                "response": {"pk": _PK_HOLE},
            },
        )
    filled = html.replace(_PK_HOLE, str(int(response.pk))).replace(_STAMP_HOLE, escape(stamp))
    return mark_safe(filled)  # noqa: S308 - an int and an escaped signed stamp


@register.filter
def concept_label(slug: str) -> str:
    """A concept in words; a flashcard's concept by what its card asks."""
    from progress import flashcards
    from quizzes.words import words

    card = flashcards.by_concept().get(slug or "")
    if card is not None:
        return f"Flashcard: {card.front}"
    return words(slug or "")
