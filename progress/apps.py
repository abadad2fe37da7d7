from django.apps import AppConfig


class ProgressConfig(AppConfig):
    name = "progress"
    verbose_name = "Progress"

    def ready(self):
        from . import signals  # noqa: F401  (listens to quizzes' practice_answered)
