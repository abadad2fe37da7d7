#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studyapp.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        execute_from_command_line(sys.argv)
    except ImproperlyConfigured as e:  # a missing setting is the user's to fix: say which
        sys.exit(f"manage.py: {e} (on a development machine, run with DEBUG=true)")


if __name__ == "__main__":
    main()
