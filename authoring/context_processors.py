"""Template access to the instructor check, asked only when a template uses it."""

from .access import is_instructor


def authoring(request):
    # A callable: templates call it on first use, so pages that never ask make no query.
    return {"user_is_instructor": lambda: is_instructor(request.user)}
