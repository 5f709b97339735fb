"""The admin pages of events: the category is an autocomplete box (Django's own select2)."""
from django.contrib import admin

from .models import Category, Event


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    search_fields = ["name"]


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ["title", "category", "kind", "starts_on", "public"]
    autocomplete_fields = ["category"]
