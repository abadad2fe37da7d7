"""Template access to the instructor check, asked only when a template uses it."""

from .access import is_instructor


def authoring(request):
    # A callable: templates call it on first use, so pages that never ask make no query.
    return {
        "user_is_instructor": lambda: is_instructor(request.user),
        # The problems this visitor reported and what came of them ("fixed in version N"), for
        # the progress page; one query, only on a page that shows them.
        "my_problem_reports": lambda: my_reports(request),
    }


MY_REPORTS = 20


def my_reports(request) -> list:
    from core.owners import get_owner, owned_objects

    from .models import ProblemReport

    cached = getattr(request, "_my_problem_reports", None)
    if cached is None:
        owner = get_owner(request, create=False)
        # reported_by(owner)[:MY_REPORTS], its SQL compiled once (core/owners.owned_objects)
        cached = owned_objects(
            "authoring-my-reports",
            owner,
            lambda owned: ProblemReport.objects.reported_by_these(owned)[:MY_REPORTS],
        )
        request._my_problem_reports = cached
    return cached
