"""``SESSION_ENGINE = "studyapp.sessions.db"``: Django's ``db`` engine (studyapp/sessions)."""

from django.contrib.sessions.backends import db

from . import PreparedQueries


class SessionStore(PreparedQueries, db.SessionStore):
    pass
