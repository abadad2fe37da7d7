from django.apps import AppConfig


class SandboxConfig(AppConfig):
    name = "studyapp.sandbox"
    label = "sandbox"

    def ready(self):
        from . import receivers  # noqa: F401  (connects the log-in receiver)
