from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core import i18n
from quizzes.bank import load_bank
from quizzes.translations import load_translations
from studyapp.notes.loader import NoteError, library
from studyapp.pagecache import bump_content_version


class Command(BaseCommand):
    help = "Check the notes and load the question bank from content/ (idempotent upsert by slug)."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="*", help="bank files (default: content/questions)")
        parser.add_argument(
            "--strict", action="store_true", help="exit with an error if any question is invalid"
        )

    def handle(self, *args, files, strict, **options):
        try:
            notes = library().notes()
        except NoteError as e:
            raise CommandError(str(e)) from e
        self.stdout.write(f"notes: {len(notes)} rendered")
        for lang in i18n.other_languages():
            if not library(lang).directory.is_dir():
                continue
            try:
                translated = library(lang).notes()
            except NoteError as e:
                raise CommandError(str(e)) from e
            self.stdout.write(f"notes ({lang}): {len(translated)} of {len(notes)} translated")
        paths = [Path(f) for f in files] or sorted(
            (Path(settings.CONTENT_DIR) / "questions").glob("*.yaml")
        )
        report = load_bank(paths)
        for problem in report.problems:
            self.stderr.write(f"invalid: {problem}")
        self.stdout.write(
            f"questions: {len(report.created)} created, {len(report.updated)} updated, "
            f"{len(report.unchanged)} unchanged, {len(report.retired)} retired, "
            f"{len(report.skipped)} kept (authored in the browser), "
            f"{len(report.problems)} invalid"
        )
        # Translations attach to the current English versions, so they load after them.
        translations = load_translations(Path(settings.CONTENT_DIR))
        for warning in translations.warnings:
            self.stderr.write(f"skipped translation: {warning}")
        for problem in translations.problems:
            self.stderr.write(f"invalid translation: {problem}")
        self.stdout.write(
            f"question translations: {len(translations.loaded)} loaded, "
            f"{len(translations.stale)} stale (English changed since), "
            f"{len(translations.problems)} invalid, {len(translations.warnings)} skipped"
        )
        # Every server's cached reading pages are out of date now (studyapp/pagecache.py).
        bump_content_version()
        if report.problems and strict:
            raise CommandError(f"{len(report.problems)} invalid question(s)")
        if translations.problems and strict:
            raise CommandError(f"{len(translations.problems)} invalid translation(s)")
