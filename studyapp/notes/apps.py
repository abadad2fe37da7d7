from django.apps import AppConfig


class NotesConfig(AppConfig):
    name = "studyapp.notes"
    label = "notes"

    def ready(self):
        from . import receivers  # noqa: F401  (connects the log-in receiver)
