#!/usr/bin/env python
"""Django's manage.py for the corpus's admin site (any Django from 3.2 to 5.x)."""
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
