from django.apps import AppConfig


class StudyappConfig(AppConfig):
    name = "studyapp"
    verbose_name = "Loopcraft"

    def ready(self) -> None:
        from quizzes import versioncache

        from . import pagecache, usercache

        usercache.connect()  # a changed user leaves the shared cache at once
        # A content reload on any server renders the kept parts of question pages again.
        versioncache.content_version = pagecache.content_version
