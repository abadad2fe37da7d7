from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from quizzes import importing


class Command(BaseCommand):
    help = "Export the current questions as YAML, GIFT or Moodle XML."

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=tuple(importing.WRITERS), default="yaml")
        parser.add_argument("-o", "--output", help="file to write (default: standard output)")
        parser.add_argument(
            "--lang", default="", help="GIFT/XML: write this translated language (zh-hans, …)"
        )

    def handle(self, *args, format, output, lang, **options):
        try:
            text, skipped = importing.export_questions(
                format, importing.exportable(), lang=lang if format != "yaml" else ""
            )
        except importing.FormatError as e:
            raise CommandError(str(e)) from e
        if output:
            Path(output).write_text(text, encoding="utf-8")
        else:
            self.stdout.write(text, ending="")
        for slug, reason in skipped:
            self.stderr.write(f"skipped {slug}: {reason}")
