"""Flask-Admin (a Bootstrap-themed CRUD admin with template modes: select2 boxes for the relation and the
choice, a date range picker, a checkbox, a text area; no sign-in).

Variants over the same data: Flask-Admin 1.6 in bootstrap3 mode (recorded), the same in bootstrap4 mode and in
bootstrap2 mode (the theme variants the package ships), and Flask-Admin 2.2 (next major: bootstrap4 only,
newer select2 and markup).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from bench.realapps.common import Server, free_port, rows
from bench.realapps.corpus import App, Expected, Variant
from bench.realapps.person import Click, Step, Type, WaitFor, WaitUrl, q, text_is

HERE = Path(__file__).resolve().parent
OLD = ("Flask-Admin==1.6.1", "Flask==2.2.5", "Werkzeug==2.2.3", "WTForms==3.0.1", "Flask-SQLAlchemy==3.0.5",
       "SQLAlchemy==1.4.52")
NEW = ("Flask-Admin==2.2.1", "Flask==3.1.2", "Flask-SQLAlchemy==3.1.1", "SQLAlchemy==2.0.44", "WTForms==3.2.1")


DAY_14 = ("[...document.querySelectorAll('.daterangepicker td')].find(td => td.textContent.trim() === '14' && "
          "!td.classList.contains('off') && td.offsetParent)")


class FlaskAdmin(App):
    name = "flask_admin"
    covers = ("Bootstrap-themed CRUD with theme variants", "custom select (select2 3.x and 4.x)", "date picker")
    variants = (
        Variant("1.6-bs3", "flask-admin-1.6", "3.11", OLD, {"mode": "bootstrap3"}, recorded=True),
        Variant("1.6-bs4", "flask-admin-1.6", "3.11", OLD, {"mode": "bootstrap4"},
                what="bootstrap4 template mode: navigation, form layout and widgets restyled"),
        Variant("1.6-bs2", "flask-admin-1.6", "3.11", OLD, {"mode": "bootstrap2"},
                what="bootstrap2 template mode: older markup, another date picker"),
        Variant("2.2-bs4", "flask-admin-2.2", "3.11", NEW, {"mode": "bootstrap4"},
                what="next major: bootstrap4 only, select2 4, new markup"),
    )
    expected = Expected({"title": "Bench summit", "category": "Workshop", "kind": "workshop",
                         "starts_on": "2026-03-14", "public": True, "notes": "Bring a laptop, doors open at nine."})
    start_path = "/admin/"

    def _env(self, variant: Variant, work: Path) -> dict[str, str]:
        return {"BENCH_DB": str(work / "events.sqlite"), "BENCH_MODE": variant.options["mode"],
                "PYTHONDONTWRITEBYTECODE": "1"}

    def seed(self, variant: Variant, work: Path) -> None:
        subprocess.run([str(self.python(variant)), "events_admin.py"], cwd=HERE, check=True, capture_output=True,
                       env={**os.environ, **self._env(variant, work), "BENCH_SEED": "1"})

    def server(self, variant: Variant, work: Path, host: str = "127.0.0.1") -> Server:
        port = free_port(host)
        return Server(f"flask-admin {variant.name}", [str(self.python(variant)), "events_admin.py"], HERE,
                      {**self._env(variant, work), "BENCH_HOST": host, "BENCH_PORT": str(port)}, host, port,
                      work / "server.log")

    def ready_path(self, variant: Variant) -> str:
        return "/admin/"

    def records(self, variant: Variant, work: Path) -> list[dict[str, Any]]:
        found = rows(work / "events.sqlite", "SELECT e.id, e.title, c.name AS category, e.kind, e.starts_on, "
                                             "e.public, e.notes FROM event e JOIN category c ON c.id = e.category_id")
        for row in found:
            row["public"] = bool(row["public"])
            row["starts_on"] = str(row["starts_on"])
        return found

    def flow(self, base: str) -> list[Step]:
        return [
            WaitFor(text_is("a", "Event")),
            Click(text_is("a", "Event")),
            WaitUrl("/admin/event/"),
            Click(text_is("a", "Create")),
            WaitFor(q("#title")),
            Click(q("#title")), Type("Bench summit"),
            Click(q("#s2id_category a")),
            WaitFor(q("#select2-drop input.select2-input")),
            Type("Workshop"),
            WaitFor(text_is("#select2-drop .select2-result-label", "Workshop")),
            Click(text_is("#select2-drop .select2-result-label", "Workshop")),
            Click(q("#s2id_kind a")),
            WaitFor(text_is("#select2-drop .select2-result-label", "Workshop")),
            Click(text_is("#select2-drop .select2-result-label", "Workshop")),
            Click(q("#starts_on")),
            WaitFor(DAY_14),
            Click(DAY_14, note="day 14 in the date picker"),
            Click(q("#public")),
            Click(q("#notes")), Type("Bring a laptop, doors open at nine."),
            Click(q("input[type=submit][value=Save]")),
            WaitFor(q(".alert-success, .alert-info")),
        ]


APP = FlaskAdmin()
