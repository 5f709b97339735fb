"""Roundup, an issue tracker (server-rendered; a sign-in form in the sidebar that posts and redirects; native
selects; a change note).

Variants over the same schema and data: the classic template (recorded) and the jinja2 template (the same
classic schema drawn with Jinja2 and Bootstrap: every page's markup, wrappers and navigation differ).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from bench.realapps.common import Server, free_port
from bench.realapps.corpus import App, Expected, Variant
from bench.realapps.person import Click, Key, Step, Type, WaitFor, q, text_is

HERE = Path(__file__).resolve().parent
PASSWORD = "bench-Pass-2026"
ROUNDUP = ("roundup==2.6.0", "Jinja2==3.1.6")


class RoundupTracker(App):
    name = "roundup_tracker"
    covers = ("issue tracker", "sign-in that redirects", "theme variant (classic / jinja2 + Bootstrap)")
    variants = (
        Variant("2.6-classic", "roundup-2.6", "3.11", ROUNDUP, {"template": "classic"}, recorded=True),
        Variant("2.6-jinja2", "roundup-2.6", "3.11", ROUNDUP, {"template": "jinja2"},
                what="the jinja2 template: Bootstrap markup over the same schema"),
    )
    expected = Expected({"title": "Bench summit", "priority": "urgent", "assignedto": "alice",
                         "note": "Bring a laptop, doors open at nine."})
    start_path = "/"
    password = PASSWORD

    def _tracker(self, work: Path) -> Path:
        return work / "tracker"

    def _run(self, variant: Variant, *args: str) -> str:
        done = subprocess.run([str(self.python(variant)), str(HERE / "tracker.py"), *args], check=True,
                              capture_output=True, text=True)
        return done.stdout

    def seed(self, variant: Variant, work: Path) -> None:
        self._run(variant, "seed", str(self._tracker(work)), variant.options["template"], PASSWORD)

    def server(self, variant: Variant, work: Path, host: str = "127.0.0.1") -> Server:
        port = free_port(host)
        self._run(variant, "web", str(self._tracker(work)), f"http://{host}:{port}/")
        return Server(f"roundup {variant.name}", [str(self.python(variant)), str(HERE / "serve.py"),
                                                  str(self._tracker(work)), host, str(port)],
                      work, {}, host, port, work / "server.log")

    def ready_path(self, variant: Variant) -> str:
        return "/"

    def records(self, variant: Variant, work: Path) -> list[dict[str, Any]]:
        return json.loads(self._run(variant, "issues", str(self._tracker(work))))  # type: ignore[no-any-return]

    def flow(self, base: str) -> list[Step]:
        return [
            WaitFor(q("input[name=__login_name]")),
            Click(q("input[name=__login_name]")), Type("admin"),
            Click(q("input[name=__login_password]")), Type(PASSWORD),
            Click(q("input[type=submit][value='Login']")),
            WaitFor(text_is("a", "Create New")),
            Click(text_is("a", "Create New")),
            WaitFor(q("input[name=title]")),
            Click(q("input[name=title]")), Type("Bench summit"),
            Click(q("select[name=priority]")), Type("urgent"), Key("Return"),
            Click(q("select[name=assignedto]")), Type("alice"), Key("Return"),
            Click(q("textarea[name='@note']")), Type("Bring a laptop, doors open at nine."),
            Click(q("input[type=submit][value='Submit New Entry'], button[type=submit]")),
            WaitFor("location.pathname.match(/issue\\d+/) !== null"),
        ]


APP = RoundupTracker()
