"""WSGI entry point (gunicorn studyapp.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

from studyapp import boot
from studyapp.agentloop import sdk

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studyapp.settings")
application = get_wsgi_application()

# A server imports the anthropic SDK now, at boot, rather than in a worker's first request that
# reads a transcript (management commands and tests import it only when they need it).
sdk.load()

# Last: what boot loaded is never walked by the garbage collector again (studyapp/boot.py), nor,
# later, what the first requests kept.
boot.settle()
application = boot.SettleAfter(application)
