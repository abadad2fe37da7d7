"""The instructor role: the group, the command, and the access check."""

import pytest
from django.core.management import call_command
from django.http import HttpResponse
from django.test import RequestFactory

from authoring.access import instructor_required, is_instructor

pytestmark = pytest.mark.django_db


def test_the_migration_creates_the_instructors_group_with_question_permissions():
    from django.contrib.auth.models import Group

    group = Group.objects.get(name="Instructors")
    codenames = set(group.permissions.values_list("codename", flat=True))
    assert {"add_question", "change_question", "view_question"} <= codenames


def test_createinstructor_makes_an_instructor(django_user_model):
    call_command("createinstructor", "ada", "--password", "pw-ada-12345")
    user = django_user_model.objects.get(username="ada")
    assert is_instructor(user) and user.check_password("pw-ada-12345")


def test_createinstructor_promotes_an_existing_user(learner):
    assert not is_instructor(learner)
    call_command("createinstructor", learner.username)
    learner.refresh_from_db()
    assert is_instructor(type(learner).objects.get(pk=learner.pk))


@instructor_required
def _view(request):
    return HttpResponse("ok")


def test_the_access_check(learner, django_user_model):
    from django.contrib.auth.models import AnonymousUser
    from django.core.exceptions import PermissionDenied

    rf = RequestFactory()
    request = rf.get("/author/")
    request.user = AnonymousUser()
    assert _view(request).status_code == 302
    request.user = learner
    with pytest.raises(PermissionDenied):
        _view(request)
    staff = django_user_model.objects.create_user("boss", is_staff=True)
    request.user = staff
    assert _view(request).status_code == 200
