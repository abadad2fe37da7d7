from django.apps import AppConfig


class QuizzesConfig(AppConfig):
    name = "quizzes"
    verbose_name = "Quizzes"

    def ready(self):
        from . import owners  # noqa: F401  (connects the log-in signal)
