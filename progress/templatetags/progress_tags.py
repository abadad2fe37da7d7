from django import template

from progress import hooks, rules

register = template.Library()


@register.inclusion_tag("progress/_certainty_fields.html", takes_context=True)
def certainty_fields(context, response):
    """The optional certainty radios and the signed shown-at stamp for a practice form."""
    request = context.get("request")
    posted = request.POST if request is not None and request.method == "POST" else {}
    stamp = posted.get("shown", "")
    if hooks.seconds_since_shown(stamp, response.pk) is None:
        stamp = hooks.make_stamp(response.pk)  # keep the first stamp when a form comes back
    return {
        "stamp": stamp,
        "chosen": rules.parse_certainty(posted.get("certainty")),
        "levels": [
            (level, label, rules.CBM_RIGHT[level], rules.CBM_WRONG[level])
            for level, label in rules.CERTAINTY_LABELS.items()
        ],
        "response": response,
    }


@register.filter
def concept_label(slug: str) -> str:
    """A concept in words; a flashcard's concept by what its card asks."""
    from progress import flashcards
    from quizzes.words import words

    card = flashcards.by_concept().get(slug or "")
    if card is not None:
        return f"Flashcard: {card.front}"
    return words(slug or "")
