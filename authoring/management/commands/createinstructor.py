from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandError

from authoring.access import INSTRUCTORS


class Command(BaseCommand):
    help = "Create an instructor account, or make an existing user an instructor."

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
        try:
            group = Group.objects.get(name=INSTRUCTORS)
        except Group.DoesNotExist:
            raise CommandError("The Instructors group is missing: run manage.py migrate") from None
        user.groups.add(group)
        verb = "Created" if created else "Updated"
        self.stdout.write(f"{verb} {username}: now an instructor.")
