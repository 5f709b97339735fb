"""Events and their categories: text, a foreign key (an autocomplete select2 box in the admin), a choice (a
native select), a date (the admin's calendar), a checkbox and a text area."""
import datetime

from django.db import models

KINDS = [("talk", "Talk"), ("workshop", "Workshop"), ("meetup", "Meetup"), ("webinar", "Webinar")]


class Category(models.Model):
    name = models.CharField(max_length=50, unique=True)

    class Meta:
        verbose_name_plural = "categories"
        ordering = ["name"]

    def __str__(self):
        return self.name


class Event(models.Model):
    title = models.CharField(max_length=100)
    category = models.ForeignKey(Category, on_delete=models.PROTECT)
    kind = models.CharField(max_length=20, choices=KINDS, default="talk")
    starts_on = models.DateField("starts on", default=datetime.date(2026, 3, 1))
    public = models.BooleanField(default=False)
    notes = models.TextField(blank=True)

    def __str__(self):
        return self.title
