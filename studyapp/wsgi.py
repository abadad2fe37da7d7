"""WSGI entry point (gunicorn studyapp.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studyapp.settings")
application = get_wsgi_application()
