"""Who may author: members of the Instructors group, and staff."""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied

INSTRUCTORS = "Instructors"


def is_instructor(user) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    # The group names are prefetched per request by AuthenticationMiddleware's lazy user only
    # once; cache on the user object so a page asks the database at most once.
    cached = getattr(user, "_is_instructor", None)
    if cached is None:
        cached = user._is_instructor = bool(_membership().rows(user_id=user.pk))
    return cached


def _membership():
    """``user.groups.filter(name=INSTRUCTORS).exists()`` compiled to SQL once per process
    (core/prepared.py): every signed-in page asks it, and building the join was most of its
    cost."""
    from django.contrib.auth.models import Group

    from core.prepared import prepared_rows

    return prepared_rows(
        ("is-instructor",),
        lambda user_id: Group.objects.filter(user=user_id, name=INSTRUCTORS).values_list("pk")[:1],
        user_id=1_999_999_101,
    )


def instructor_required(view):
    """Anonymous visitors go to the login page; signed-in non-instructors get a 403."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_instructor(request.user):
            raise PermissionDenied("This page is for instructors.")
        return view(request, *args, **kwargs)

    return wrapper
