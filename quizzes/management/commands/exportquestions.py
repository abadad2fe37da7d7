from pathlib import Path

from django.core.management.base import BaseCommand

from quizzes import importing


class Command(BaseCommand):
    help = "Export the current questions as YAML, GIFT or Moodle XML."

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=tuple(importing.WRITERS), default="yaml")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")

    def handle(self, *args, format, output, **options):
        text, skipped = importing.export_questions(format, importing.exportable())
        if output:
            Path(output).write_text(text, encoding="utf-8")
        else:
            self.stdout.write(text, ending="")
        for slug, reason in skipped:
            self.stderr.write(f"skipped {slug}: {reason}")
