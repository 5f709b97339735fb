"""The corpus's data for the admin site: the admin user and the same categories and events in every variant."""
import datetime
import os
import sys

import django

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings")
django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.core.management import call_command  # noqa: E402

from events.models import Category, Event  # noqa: E402

call_command("migrate", verbosity=0)
User.objects.create_superuser("admin", "admin@example.test", os.environ["BENCH_PASSWORD"])
names = ["Conference", "Hackathon", "Meetup night", "Training", "Webinar series", "Workshop", "Workshop online"]
categories = {name: Category.objects.create(name=name) for name in names}
for title, category, kind, day in [("Spring kickoff", "Conference", "talk", 2), ("Data hack", "Hackathon", "meetup", 9),
                                    ("Intro to SQL", "Training", "workshop", 20)]:
    Event.objects.create(title=title, category=categories[category], kind=kind,
                         starts_on=datetime.date(2026, 2, day), public=True, notes="seeded")
