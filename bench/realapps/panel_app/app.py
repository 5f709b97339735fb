"""Panel on Bokeh 3 (web components: every widget inside an open shadow root; a rich-text editor, Quill; a
flatpickr date picker; the Save goes through a WebSocket).

Variants over the same data: Panel 1.9's bootstrap design (recorded), its material design and its fast
design (the same widgets restyled by another design system, with other wrappers and stylesheets).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from bench.realapps.common import Server, free_port
from bench.realapps.corpus import App, Expected, Variant
from bench.realapps.person import Click, Key, Step, Type, WaitFor
from bench.realapps.seed_events import events, seed

HERE = Path(__file__).resolve().parent
PANEL = ("panel==1.9.4",)

# Bokeh's widgets: each is a custom element whose shadow root holds a label and the control.
DEEP = """((sel, test) => { const seen = []; const walk = (root) => { for (const el of root.querySelectorAll('*')) {
  if (el.matches(sel) && test(el)) seen.push(el); if (el.shadowRoot) walk(el.shadowRoot); } }; walk(document);
  return seen[0]; })"""


def deep(selector: str, test: str = "() => true") -> str:
    """The first element matching `selector` in the page or any open shadow root, for which `test` holds."""
    return f"{DEEP}({selector!r}, {test})"


def labelled(label: str, control: str) -> str:
    """The control in the shadow root whose label reads `label`."""
    return deep(control, f"(el) => [...el.getRootNode().querySelectorAll('label, .bk-label')].some(l => "
                         f"l.textContent.trim() === {label!r})")


class PanelApp(App):
    name = "panel_app"
    covers = ("web components with shadow DOM", "rich text editor (Quill)", "date picker (flatpickr)",
              "save through a WebSocket")
    variants = (
        Variant("1.9-bootstrap", "panel-1.9", "3.11", PANEL, {"design": "bootstrap"}, recorded=True),
        Variant("1.9-material", "panel-1.9", "3.11", PANEL, {"design": "material"},
                what="material design: other stylesheets and widget wrappers"),
        Variant("1.9-fast", "panel-1.9", "3.11", PANEL, {"design": "fast"},
                what="fast design: other stylesheets and widget wrappers"),
    )
    expected = Expected({"title": "Bench summit", "category": "Workshop", "starts_on": "2026-03-14",
                         "public": True, "notes": "Bring a laptop, doors open at nine."})
    start_path = "/events_panel"

    def seed(self, variant: Variant, work: Path) -> None:
        seed(work / "events.sqlite")

    def server(self, variant: Variant, work: Path, host: str = "127.0.0.1") -> Server:
        port = free_port(host)
        return Server(f"panel {variant.name}",
                      [str(self.python(variant)), "-m", "panel", "serve", str(HERE / "events_panel.py"),
                       "--address", host, "--port", str(port), "--allow-websocket-origin", f"{host}:{port}"],
                      work, {"BENCH_DB": str(work / "events.sqlite"), "BENCH_DESIGN": variant.options["design"],
                             "HOME": str(work)}, host, port, work / "server.log")

    def ready_path(self, variant: Variant) -> str:
        return "/events_panel"

    def records(self, variant: Variant, work: Path) -> list[dict[str, Any]]:
        found = events(work / "events.sqlite")
        for row in found:  # the editor's value is HTML: compare the text a person reads
            row["notes"] = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row["notes"])).strip()
        return found

    def flow(self, base: str) -> list[Step]:
        return [
            WaitFor(labelled("Title", "input"), timeout=60),
            Click(labelled("Title", "input")), Type("Bench summit"),
            Click(labelled("Category", "select")), Type("Workshop"), Key("Return"),
            Click(labelled("Starts on", "input:not([type=hidden])")),
            WaitFor(deep(".flatpickr-calendar.open .flatpickr-day")),
            Click(deep(".flatpickr-calendar.open .flatpickr-day", "(el) => el.textContent.trim() === '14' && "
                                                                  "!el.classList.contains('prevMonthDay') && "
                                                                  "!el.classList.contains('nextMonthDay')")),
            Click(labelled("Public", "input[type=checkbox]")),
            Click(deep(".ql-editor")), Type("Bring a laptop, doors open at nine."),
            Click(deep("button", "(el) => el.textContent.trim() === 'Save event'")),
            WaitFor(deep("p", "(el) => el.textContent.includes('Saved event')")),
        ]


APP = PanelApp()
