from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.core.management.base import BaseCommand

from authoring.access import INSTRUCTORS


class Command(BaseCommand):
    help = "Create an instructor account, or make an existing user an instructor."
    # As Django's createsuperuser: a one-off account command needs no system checks (about a
    # third of its start-up).
    requires_system_checks: list[str] = []

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="")
        parser.add_argument(
            "--password", help="for a new account; without it the account has no usable password"
        )

    def handle(self, *args, username, email, password, **options):
        User = get_user_model()
        user, created = User.objects.get_or_create(username=username, defaults={"email": email})
        if created:
            if password:
                user.set_password(password)
            else:
                user.set_unusable_password()
            user.save()
        group, made = Group.objects.get_or_create(name=INSTRUCTORS)
        if made:  # the migration's group was removed (a flushed database): restore its rights
            group.permissions.set(
                Permission.objects.filter(
                    content_type__app_label="quizzes",
                    codename__in=[
                        "add_question",
                        "change_question",
                        "view_question",
                        "add_option",
                        "change_option",
                        "delete_option",
                        "view_option",
                    ],
                )
            )
        user.groups.add(group)
        verb = "Created" if created else "Updated"
        self.stdout.write(f"{verb} {username}: now an instructor.")
