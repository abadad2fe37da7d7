from django.apps import AppConfig


class StudyappConfig(AppConfig):
    name = "studyapp"
    verbose_name = "Loopcraft"

    def ready(self) -> None:
        from quizzes import versioncache
        from quizzes.signals import bank_changed

        from . import pagecache, usercache

        usercache.connect()  # a changed user leaves the shared cache at once
        # A content reload on any server renders the kept parts of question pages again.
        versioncache.content_version = pagecache.content_version
        # A question written or published in the browser (or imported) is on the note pages at
        # once: the cached pages' content version moves when its transaction commits.
        bank_changed.connect(_bump_on_bank_change, dispatch_uid="studyapp.bump_on_bank_change")


def _bump_on_bank_change(**kwargs) -> None:
    from . import pagecache

    pagecache.bump_content_version()
