"""Django's admin site (server-rendered; a sign-in that redirects; an autocomplete select2 box; the admin's
calendar date picker; a native select; a checkbox; a text area).

Variants over the same data: Django 3.2 (recorded), Django 5.2 (two major versions later: new sidebar and
header markup, dark mode, new ids and headings), and Django 5.2 with the jazzmin theme (Bootstrap 4/AdminLTE:
every template replaced).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from bench.realapps.common import Server, free_port, rows
from bench.realapps.corpus import App, Expected, Variant
from bench.realapps.person import Click, Key, Step, Type, WaitFor, WaitUrl, q, text_is

PASSWORD = "bench-Pass-2026"
SITE = Path(__file__).resolve().parent / "benchsite"


class DjangoAdmin(App):
    name = "django_admin"
    covers = ("server-rendered admin", "sign-in that redirects", "custom select (select2 autocomplete)",
              "date picker", "theme variant")
    variants = (
        Variant("3.2", "django-3.2", "3.10", ("Django==3.2.25",), recorded=True),
        Variant("5.2", "django-5.2", "3.11", ("Django==5.2.19", "django-jazzmin==3.0.5"),
                what="two majors later: sidebar, header and form markup changed"),
        Variant("5.2-jazzmin", "django-5.2", "3.11", ("Django==5.2.19", "django-jazzmin==3.0.5"),
                {"theme": "jazzmin"}, what="jazzmin theme: Bootstrap/AdminLTE templates"),
    )
    expected = Expected({"title": "Bench summit", "category": "Workshop", "kind": "workshop",
                         "starts_on": "2026-03-14", "public": True, "notes": "Bring a laptop, doors open at nine."})
    start_path = "/admin/"
    password = PASSWORD

    def _env(self, variant: Variant, work: Path) -> dict[str, str]:
        return {"BENCH_DB": str(work / "db.sqlite3"), "BENCH_THEME": variant.options.get("theme", ""),
                "BENCH_PASSWORD": PASSWORD, "PYTHONDONTWRITEBYTECODE": "1"}

    def seed(self, variant: Variant, work: Path) -> None:
        subprocess.run([str(self.python(variant)), str(SITE / "seed.py")], cwd=SITE, check=True,
                       env={**os.environ, **self._env(variant, work)}, capture_output=True)

    def server(self, variant: Variant, work: Path, host: str = "127.0.0.1") -> Server:
        port = free_port(host)
        return Server(f"django {variant.name}", [str(self.python(variant)), "manage.py", "runserver", "--noreload",
                                                 f"{host}:{port}"],
                      SITE, self._env(variant, work), host, port, work / "server.log")

    def ready_path(self, variant: Variant) -> str:
        return "/admin/login/"

    def records(self, variant: Variant, work: Path) -> list[dict[str, Any]]:
        found = rows(work / "db.sqlite3", "SELECT e.id, e.title, c.name AS category, e.kind, e.starts_on, e.public, "
                                          "e.notes FROM events_event e JOIN events_category c ON c.id = e.category_id")
        for row in found:
            row["public"] = bool(row["public"])
            row["starts_on"] = str(row["starts_on"])
        return found

    def flow(self, base: str) -> list[Step]:
        return [
            WaitFor(q("#id_username")),
            Click(q("#id_username")), Type("admin"),
            Click(q("#id_password")), Type(PASSWORD),
            Click(q("input[type=submit]")),
            WaitUrl("/admin/"),
            Click(q('#content-main a[href$="/events/event/"]'), note="the Events link of the index"),
            WaitUrl("/admin/events/event/"),
            Click(text_is("a.addlink", "Add event")),
            WaitFor(q("#id_title")),
            Click(q("#id_title")), Type("Bench summit"),
            Click(q("#id_category + .select2 .select2-selection")),
            WaitFor(q(".select2-search__field")),
            Type("Workshop"),
            WaitFor("[...document.querySelectorAll('.select2-results__option')].map(e => e.textContent).join('|') "
                    "=== 'Workshop|Workshop online'"),
            Click(text_is(".select2-results__option", "Workshop")),
            Click(q("#id_kind")), Type("Workshop"), Key("Return"),
            Click(q("#calendarlink0")),
            WaitFor(q("#calendarbox0 a")),
            Click(text_is("#calendarin0 a", "14")),
            Click(q("#id_public")),
            Click(q("#id_notes")), Type("Bring a laptop, doors open at nine."),
            Click(q("input[name=_save]")),
            WaitFor(q(".messagelist, .alert-success")),
        ]


APP = DjangoAdmin()
