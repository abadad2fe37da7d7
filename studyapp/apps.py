from django.apps import AppConfig


class StudyappConfig(AppConfig):
    name = "studyapp"
    verbose_name = "Loopcraft"
