from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from studyapp import i18n_check


class Command(BaseCommand):
    help = (
        "Check the translated notes, questions and glossaries against English (--check), or "
        "write the stamps of the English they were translated from (--stamp)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="the structure check")
        parser.add_argument("--stamp", action="store_true", help="write source/translated_from")
        parser.add_argument("--content", default="", help="content folder (default CONTENT_DIR)")

    def handle(self, *args, check, stamp, content, **options):
        root = Path(content or settings.CONTENT_DIR)
        if not check and not stamp:
            raise CommandError("say --check or --stamp")
        if stamp:
            for path in i18n_check.stamp(root):
                self.stdout.write(f"stamped {path}")
        if check:
            report = i18n_check.check(root)
            for problem in report.problems:
                self.stderr.write(f"problem: {problem}")
            for line in report.stale:
                self.stdout.write(f"stale: {line}")
            for lang, (n, n_en, q, q_en) in report.coverage.items():
                self.stdout.write(f"{lang}: {n} of {n_en} notes, {q} of {q_en} questions")
            counts = ", ".join(f"{n} {what}" for what, n in sorted(report.checked.items()))
            self.stdout.write(
                f"checked {counts or 'nothing'}: {len(report.problems)} problem(s), "
                f"{len(report.stale)} stale or unstamped"
            )
            if report.problems:
                raise CommandError(f"{len(report.problems)} translation problem(s)")
