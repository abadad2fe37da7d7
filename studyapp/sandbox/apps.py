from django.apps import AppConfig


class SandboxConfig(AppConfig):
    name = "studyapp.sandbox"
    label = "sandbox"

    def ready(self) -> None:
        from studyapp.sandbox import checks  # noqa: F401 - registers the library check
