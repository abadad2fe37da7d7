from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from quizzes import importing
from quizzes.formats import FORMATS, Defaults, FormatError


class Command(BaseCommand):
    help = (
        "Import YAML, GIFT or Moodle XML questions: print the preview, then write it all at once."
    )

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--format", choices=("auto", *FORMATS), default="auto")
        parser.add_argument("--dry-run", action="store_true", help="print the preview only")
        parser.add_argument("--subtopic", default="", help="default subtopic (GIFT/XML)")
        parser.add_argument("--notes", default="", help="default notes link, note-slug#anchor")
        parser.add_argument("--source", default="", help="default source, an https:// URL")
        parser.add_argument(
            "--family", default="misread-contract", help="default distractor family"
        )

    def handle(self, *args, file, format, dry_run, subtopic, notes, source, family, **options):
        try:
            text = Path(file).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as e:
            raise CommandError(f"can't read {file}: {e}") from e
        try:
            preview = importing.import_preview(
                text, format, Defaults(subtopic, notes, source, family)
            )
        except FormatError as e:
            raise CommandError(str(e)) from e
        for r in preview.rows:
            extra = "; ".join(r.filled + r.warnings)
            extra = f": {extra}" if extra else ""
            self.stdout.write(f"{r.action:9} {r.slug} ({r.kind}, {r.status}) [{r.where}]{extra}")
        for s in preview.skipped:
            self.stdout.write(f"skipped   {s.name} [{s.where}]: {s.reason}")
        for e in preview.errors:
            self.stderr.write(f"error     {e}")
        summary = (
            f"{preview.format}: {preview.count_create} to create, "
            f"{preview.count_update} to update, "
            f"{preview.count_unchanged} unchanged, {len(preview.skipped)} skipped, "
            f"{len(preview.errors)} error(s)"
        )
        if preview.errors:
            raise CommandError(f"{summary}; nothing imported")
        if dry_run:
            self.stdout.write(f"{summary}; dry run, nothing written")
            return
        importing.import_apply(preview)
        self.stdout.write(f"{summary}; imported")
