from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self):
        from . import owners  # noqa: F401  (connects the log-in receiver that claims work)
