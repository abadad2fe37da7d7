from django.apps import AppConfig


class NotesConfig(AppConfig):
    name = "studyapp.notes"
    label = "notes"
