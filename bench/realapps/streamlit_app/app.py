"""Streamlit (a single-page app in React: Base Web's custom select and date picker; the form's submit goes
through a WebSocket to the server, which saves).

Variants over the same data: Streamlit 1.28 (recorded) and Streamlit 1.67 (three years later: new theme,
widget markup and test ids).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.realapps.common import Server, free_port
from bench.realapps.corpus import App, Expected, Variant
from bench.realapps.person import Click, Step, Type, WaitFor, q, text_is
from bench.realapps.seed_events import events, seed

HERE = Path(__file__).resolve().parent
OLD = ("streamlit==1.28.2", "numpy==1.26.4", "pandas==2.1.4", "pyarrow==14.0.2", "altair==5.1.2",
       "protobuf==4.25.3")


class StreamlitApp(App):
    name = "streamlit_app"
    covers = ("single-page app in React", "custom select (Base Web)", "date picker (Base Web)",
              "save through a WebSocket")
    variants = (
        Variant("1.28", "streamlit-1.28", "3.11", OLD, recorded=True),
        Variant("1.67", "streamlit-1.67", "3.11", ("streamlit==1.67.0",),
                what="three years later: new theme, markup and test ids"),
    )
    expected = Expected({"title": "Bench summit", "category": "Workshop", "starts_on": "2026-03-14",
                         "public": True, "notes": "Bring a laptop, doors open at nine."})

    def seed(self, variant: Variant, work: Path) -> None:
        seed(work / "events.sqlite")

    def server(self, variant: Variant, work: Path, host: str = "127.0.0.1") -> Server:
        port = free_port(host)
        home = work / "home"
        (home / ".streamlit").mkdir(parents=True, exist_ok=True)
        (home / ".streamlit" / "credentials.toml").write_text('[general]\nemail = ""\n')
        return Server(f"streamlit {variant.name}",
                      [str(self.python(variant)), "-m", "streamlit", "run", str(HERE / "events_form.py"),
                       "--server.address", host, "--server.port", str(port), "--server.headless", "true",
                       "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
                       "--global.developmentMode", "false"],
                      work, {"BENCH_DB": str(work / "events.sqlite"), "HOME": str(home)}, host, port,
                      work / "server.log")

    def ready_path(self, variant: Variant) -> str:
        return "/_stcore/health"

    def records(self, variant: Variant, work: Path) -> list[dict[str, Any]]:
        return events(work / "events.sqlite")

    def flow(self, base: str) -> list[Step]:
        label = "[data-testid=stWidgetLabel], label"
        return [
            WaitFor(q("input[aria-label=Title]")),
            Click(q("input[aria-label=Title]")), Type("Bench summit"),
            Click(q("[data-baseweb=select] div"), note="the Category select box"),
            WaitFor(text_is("[role=option]", "Workshop")),
            Click(text_is("[role=option]", "Workshop")),
            Click(q("[data-baseweb=datepicker] input, [data-testid=stDateInput] input")),
            WaitFor(text_is("[data-baseweb=calendar] [role=gridcell]", "14")),
            Click(text_is("[data-baseweb=calendar] [role=gridcell]", "14")),
            Click(text_is(label, "Public")),
            Click(q("textarea")), Type("Bring a laptop, doors open at nine."),
            Click(text_is("button", "Save event")),
            WaitFor(q("[data-testid=stNotification], .stAlert")),
        ]


APP = StreamlitApp()
