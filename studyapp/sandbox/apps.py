from django.apps import AppConfig


class SandboxConfig(AppConfig):
    name = "studyapp.sandbox"
    label = "sandbox"
