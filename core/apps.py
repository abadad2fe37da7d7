from django.apps import AppConfig


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = "Core"

    def ready(self):
        from django.utils.translation import gettext

        from studyapp.agentloop import i18n

        from . import owners  # noqa: F401  (connects the log-in receiver that claims work)

        # The pure package's page-time text (per-model lines, statuses) in the reader's language.
        i18n.set_translator(gettext)
