"""Written by hand so that Django 3.2 and 5.x make the same tables from one migration."""
import datetime

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [
        migrations.CreateModel(
            name="Category",
            fields=[("id", models.AutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                    ("name", models.CharField(max_length=50, unique=True))],
            options={"verbose_name_plural": "categories", "ordering": ["name"]},
        ),
        migrations.CreateModel(
            name="Event",
            fields=[("id", models.AutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                    ("title", models.CharField(max_length=100)),
                    ("kind", models.CharField(choices=[("talk", "Talk"), ("workshop", "Workshop"),
                                                       ("meetup", "Meetup"), ("webinar", "Webinar")],
                                              default="talk", max_length=20)),
                    ("starts_on", models.DateField(default=datetime.date(2026, 3, 1), verbose_name="starts on")),
                    ("public", models.BooleanField(default=False)),
                    ("notes", models.TextField(blank=True)),
                    ("category", models.ForeignKey(on_delete=django.db.models.deletion.PROTECT,
                                                   to="events.category"))],
        ),
    ]
