from django.apps import AppConfig


class StudyappConfig(AppConfig):
    name = "studyapp"
    verbose_name = "Loopcraft"

    def ready(self) -> None:
        from . import usercache

        usercache.connect()  # a changed user leaves the shared cache at once
